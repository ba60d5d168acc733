import { Injectable } from '@nestjs/common';
import type { PlanLimits } from '@svc/common';
import { type JobEntity, Transactions } from '@svc/persistence';
import { nextFireTimes, type JobSettingsColumns } from '@svc/orchestration';
import type { CompiledSchedule } from '@svc/schedule';
import type { CreateJobDto } from './dto/job-body.dto';
import { checkRetry, checkSpread, START_WINDOW_SAMPLE, storedRetry } from './job-config';
import { declaredSettings, type JobDeclaration, scalarColumns } from './job-patch';
import { pendingFieldErrors, withoutRefused } from '../common/validation';
import { FieldErrors } from './field-errors';
import { JobScheduleValidator } from './job-schedule.validator';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';

/** A declaration turned into the columns a job stores, validated. */
export interface DeclaredSettings {
  settings: JobSettingsColumns;
  /** The schedule compiled once (the answer's next run). */
  compiled: CompiledSchedule;
  /**
   * The signing secret the caller chose for a new webhook job (write-only, never in a
   * response). Used on create only: an update never replaces a job's secret.
   */
  ownSigningSecret?: string;
}

/**
 * A create body (`POST /jobs`, `PUT /jobs/by-key/{key}`, a job
 * of an apply) → the settings a job stores, every field left out at its default (`declaredSettings`: the body
 * as a PATCH over `JOB_DEFAULTS`, the one merge rule and the one defaults table). Throws the
 * create's errors (`400 validation_failed` naming `schedule.expr`, `sink.config.url`…, `403
 * limit_exceeded` below the plan's minimum interval), every field at once (`FieldErrors`): the
 * body's own errors (`pending`, the pipe's) and those of each stage that can still run. Templates
 * are checked by the caller inside its write transaction (`SinkTemplateChecker`); here only when
 * the body is refused anyway, so their errors come in the same answer.
 */
@Injectable()
export class JobSettingsFactory {
  constructor(
    private readonly schedules: JobScheduleValidator,
    private readonly sinks: SinkValidator,
    private readonly templates: SinkTemplateChecker,
    private readonly transactions: Transactions,
  ) {}

  async fromDeclaration(
    dto: CreateJobDto,
    now: Date,
    plan: PlanLimits,
    workspaceId: string,
    pending: Record<string, string> = pendingFieldErrors(dto),
  ): Promise<DeclaredSettings> {
    const problems = new FieldErrors(pending);
    const ownSigningSecret = dto.signing_secret ?? undefined; // null: none, as when omitted
    if (ownSigningSecret !== undefined && !problems.refused('sink') && dto.sink.kind !== 'webhook') {
      problems.add('signing_secret', 'only webhook jobs are signed');
    }
    const declared = declaredSettings(withoutRefused(dto, pending) as JobDeclaration);
    // Each stage reads only what it needs; one the body's own checks refused is skipped.
    const schedule = problems.refused('schedule')
      ? undefined
      : await problems.run(() => this.schedules.validateIn(workspaceId, declared.schedule, now, plan.min_interval_ms));
    const sinkConfig = problems.refused('sink')
      ? undefined
      : await problems.run(() => this.sinks.validate(dto.sink, workspaceId));
    const retry = problems.refused('retry')
      ? undefined
      : await problems.run(() => checkRetry(storedRetry(declared.retry)));
    const spread =
      problems.refused('start_window') || problems.refused('max_concurrent_runs')
        ? undefined
        : await problems.run(() =>
            checkSpread(
              declared,
              // Without a schedule (refused) there is nothing to compare the window with.
              () => (schedule ? nextFireTimes(schedule.columns, now, START_WINDOW_SAMPLE, schedule.compiled) : []),
            ),
          );
    if (!problems.empty && sinkConfig !== undefined) {
      await problems.run(() =>
        this.transactions.run((manager) => this.templates.check(workspaceId, dto.sink.kind, sinkConfig, manager)),
      );
    }
    problems.throwIfAny();
    const settings: JobSettingsColumns = {
      ...scalarColumns(declared),
      ...schedule!.columns,
      sinkKind: dto.sink.kind,
      sinkConfig: sinkConfig as JobEntity['sinkConfig'],
      retry: retry!,
      ...spread!,
    };
    return { settings, compiled: schedule!.compiled, ownSigningSecret };
  }
}
