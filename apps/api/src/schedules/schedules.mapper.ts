import {
  toIsoUtc,
  type CompiledSchedule,
  type ScheduleError,
  type ScheduleKind,
  type ValidationResult,
} from '@svc/schedule';
import type {
  PreviewScheduleResponseDto,
  ScheduleErrorDto,
  ValidateScheduleResponseDto,
} from './dto/schedule-response.dto';

/** The spec's error shape, field by field (library objects never leave the service as-is). */
export function toScheduleErrorResponse(error: ScheduleError): ScheduleErrorDto {
  return {
    kind: error.kind,
    position: error.position,
    length: error.length,
    message: error.message,
    suggestion: error.suggestion ?? null,
  };
}

export function toValidateResponse(result: ValidationResult, kindDetected: ScheduleKind): ValidateScheduleResponseDto {
  const response: ValidateScheduleResponseDto = {
    valid: result.valid,
    kind_detected: kindDetected,
    errors: result.errors.map(toScheduleErrorResponse),
  };
  if (result.valid) {
    response.canonical = result.canonical;
    response.description = result.description;
  }
  return response;
}

/** `next`: fire times as epoch milliseconds. */
export function toPreviewResponse(schedule: CompiledSchedule, next: number[]): PreviewScheduleResponseDto {
  return {
    kind_detected: schedule.kind,
    canonical: schedule.canonical,
    description: schedule.description,
    timezone: schedule.timezone,
    next: next.map(toIsoUtc),
  };
}
