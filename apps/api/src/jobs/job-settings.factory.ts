import { Injectable } from '@nestjs/common';
import { parseDuration, type PlanLimits } from '@svc/common';
import type { JobEntity } from '@svc/persistence';
import type { JobSettingsColumns } from '@svc/orchestration';
import type { CompiledSchedule } from '@svc/schedule';
import type { CreateJobDto } from './dto/job-body.dto';
import { checkRetry, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS, mergeRetry } from './job-config';
import { JobScheduleValidator } from './job-schedule.validator';
import { SinkValidator } from './sink.validator';

/** A declaration turned into the columns a job stores, validated. */
export interface DeclaredSettings {
  settings: JobSettingsColumns;
  /** The schedule compiled once (the answer's next run). */
  compiled: CompiledSchedule;
}

/**
 * The create defaults, in one place: a create body (`POST /jobs`, `PUT /jobs/by-key/{key}`, a job
 * of an apply) → the settings a job stores, every field left out at its default. Throws the
 * create's errors (`400 validation_failed` naming `schedule.expr`, `sink.config.url`…, `403
 * limit_exceeded` below the plan's minimum interval). Templates are checked by the caller inside
 * its write transaction (`SinkTemplateChecker`).
 */
@Injectable()
export class JobSettingsFactory {
  constructor(
    private readonly schedules: JobScheduleValidator,
    private readonly sinks: SinkValidator,
  ) {}

  async fromDeclaration(dto: CreateJobDto, now: Date, plan: PlanLimits): Promise<DeclaredSettings> {
    const schedule = this.schedules.validate(dto.schedule, now, plan.min_interval_ms);
    const sinkConfig = await this.sinks.validate(dto.sink);
    const settings: JobSettingsColumns = {
      name: dto.name,
      description: dto.description ?? '',
      tags: dto.tags ?? [],
      ...schedule.columns,
      sinkKind: dto.sink.kind,
      sinkConfig: sinkConfig as JobEntity['sinkConfig'],
      retry: checkRetry(mergeRetry(DEFAULT_RETRY, dto.retry)),
      timeoutMs: dto.timeout ? parseDuration(dto.timeout)! : DEFAULT_TIMEOUT_MS,
      slaThresholdMs: dto.sla_threshold ? parseDuration(dto.sla_threshold)! : null,
      misfirePolicy: dto.misfire_policy ?? 'fire_once',
      overlapPolicy: dto.overlap_policy ?? 'allow',
      autoDisableThreshold: dto.auto_disable_threshold ?? null,
    };
    return { settings, compiled: schedule.compiled };
  }
}
