import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, ValidationFailedError } from '@svc/common';
import {
  DEFAULT_BUDGET_MS,
  detectKind,
  type ScheduleError,
  type ScheduleInput,
  ScheduleValidationCache,
} from '@svc/schedule';
import { APP_CONFIG } from '../config/config.module';
import { DEFAULT_PREVIEW_COUNT, type PreviewScheduleBody, type ValidateScheduleBody } from './schedule-request.schema';
import type { PreviewScheduleResponseDto, ValidateScheduleResponseDto } from './dto/schedule-response.dto';
import { toPreviewResponse, toScheduleErrorResponse, toValidateResponse } from './schedules.mapper';

/** The budget's clock: monotonic, sub-millisecond (spec → Limits: 100 ms cooperative deadline). */
const monotonicMs = (): number => performance.now();

/**
 * The public schedule endpoints (spec → Schedules). Every request runs under one 100 ms
 * cooperative budget (compile, never-fires and minimum-gap sampling, then the preview), so a
 * pathological expression returns `schedule computation budget exceeded` instead of blocking the
 * event loop. The minimum gap is the default plan's `min_interval` (these requests have no
 * workspace, hence no plan of their own).
 */
@Injectable()
export class SchedulesService {
  private readonly minIntervalMs: number;
  /** Exact reuse of compiled schedules and their upcoming fire times (libs/schedule/src/validate-cache.ts). */
  private readonly cache = new ScheduleValidationCache();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.minIntervalMs = config.plans[config.default_plan]?.min_interval_ms ?? 0;
  }

  /** `POST /schedules/validate`: bad schedules are an answer (`valid: false`), not an error. */
  validate(body: ValidateScheduleBody, now: Date = new Date()): ValidateScheduleResponseDto {
    const input = this.input(body, now);
    const result = this.cache.validate(input, {
      minIntervalMs: this.minIntervalMs,
      now: monotonicMs,
      budgetMs: DEFAULT_BUDGET_MS,
    });
    return toValidateResponse(result, result.kindDetected ?? detectKind(input.expr));
  }

  /**
   * `POST /schedules/preview`: the next `count` fire times strictly after `after` (default now),
   * which is also the reference instant. A bad schedule is `400 validation_failed` with the
   * structured `errors`.
   */
  preview(body: PreviewScheduleBody, now: Date = new Date()): PreviewScheduleResponseDto {
    const reference = body.after ? new Date(body.after) : now;
    const input = this.input(body, reference);
    const count = body.count ?? DEFAULT_PREVIEW_COUNT;
    const result = this.cache.validate(input, {
      minIntervalMs: this.minIntervalMs,
      now: monotonicMs,
      budgetMs: DEFAULT_BUDGET_MS,
      sampleCount: count, // the fire times come from the same (cached) source as the checks
    });
    if (!result.valid || !result.schedule) {
      throw invalidSchedule(result.errors);
    }
    return toPreviewResponse(result.schedule, (result.sample ?? []).slice(0, count));
  }

  private input(body: ValidateScheduleBody, reference: Date): ScheduleInput {
    return { expr: body.expr, kind: body.kind ?? 'auto', timezone: body.timezone ?? 'UTC', reference };
  }
}

/** `400 validation_failed`: `fields` names the input (`timezone` or `expr`), `errors` explains. */
function invalidSchedule(errors: ScheduleError[]): ValidationFailedError {
  const fields: Record<string, string> = {};
  const zone = errors.filter((e) => e.kind === 'unknown_timezone');
  const expr = errors.filter((e) => e.kind !== 'unknown_timezone');
  if (zone.length) {
    fields.timezone = zone.map((e) => e.message).join('; ');
  }
  if (expr.length) {
    fields.expr = expr.map((e) => e.message).join('; ');
  }
  return new ValidationFailedError(fields, 'Invalid schedule', errors.map(toScheduleErrorResponse));
}
