import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { applyRunOverrides, checkOverridesShape, overridesFieldPath, SinkRegistry } from '@svc/delivery';
import { type JobEntity, type JsonObject, Transactions } from '@svc/persistence';
import { SinkTemplateChecker } from './sink-templates.checker';
import { SinkValidator } from './sink.validator';

/**
 * Per-run overrides (docs/api.md → Per-run overrides) of a trigger, a manual retry or a backfill,
 * validated exactly as the job's own sink would be with them applied: the kind's schema and checks
 * (`SinkValidator`), its templates and that every secret they name exists
 * (`SinkTemplateChecker`). Errors are `400 validation_failed` named for the request
 * (`overrides.body`, `overrides.headers.X-Token`); nothing is written before this passes.
 */
@Injectable()
export class RunOverridesValidator {
  constructor(
    private readonly registry: SinkRegistry,
    private readonly sinks: SinkValidator,
    private readonly templates: SinkTemplateChecker,
    private readonly transactions: Transactions,
  ) {}

  /** The overrides to record on a run of `job` (null: none), or `400` naming each bad field. */
  async validate(
    job: Pick<JobEntity, 'workspaceId' | 'sinkKind' | 'sinkConfig'>,
    overrides: unknown,
  ): Promise<JsonObject | null> {
    const kind = this.registry.get(job.sinkKind);
    if (!kind) {
      if (overrides === undefined || overrides === null) {
        return null;
      }
      throw new ValidationFailedError({ overrides: `the job's sink kind ${job.sinkKind} is not available here` });
    }
    const shaped = checkOverridesShape(kind, overrides);
    if ('fields' in shaped) {
      throw new ValidationFailedError(shaped.fields);
    }
    if (!shaped.overrides) {
      return null;
    }
    const given = shaped.overrides;
    const config = applyRunOverrides(kind, job.sinkConfig, given);
    try {
      const normalized = await this.sinks.validate({ kind: job.sinkKind, config }, job.workspaceId);
      await this.transactions.run((manager) =>
        this.templates.check(job.workspaceId, job.sinkKind, normalized, manager),
      );
    } catch (err) {
      if (err instanceof ValidationFailedError) {
        throw new ValidationFailedError(
          renamed(err.body.fields ?? {}, (path) => overridesFieldPath(kind, path, given)),
        );
      }
      throw err;
    }
    return given as JsonObject;
  }
}

function renamed(fields: Record<string, string>, rename: (path: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [path, message] of Object.entries(fields)) {
    out[rename(path)] ??= message;
  }
  return out;
}
