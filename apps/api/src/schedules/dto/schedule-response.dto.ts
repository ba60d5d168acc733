import type { ScheduleKind } from '@svc/schedule';

/** One structured schedule error; `position` and `length` count UTF-8 bytes of `expr`. */
export interface ScheduleErrorDto {
  kind: string;
  position: number;
  length: number;
  message: string;
  suggestion: string | null;
}

/** `200` of `POST /api/v1/schedules/validate`; `canonical` and `description` only when valid. */
export interface ValidateScheduleResponseDto {
  valid: boolean;
  kind_detected: ScheduleKind;
  canonical?: string;
  description?: string;
  errors: ScheduleErrorDto[];
}

/** `200` of `POST /api/v1/schedules/preview`; `next` holds UTC ISO 8601 instants, ascending. */
export interface PreviewScheduleResponseDto {
  kind_detected: ScheduleKind;
  canonical: string;
  description: string;
  timezone: string;
  next: string[];
}
