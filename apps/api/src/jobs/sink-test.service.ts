import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@svc/common';
import { newId } from '@svc/workflow-contract/ids';
import { generateSigningSecret, type Sink, toSink } from '@svc/delivery';
import { JobsRepository, type StoredSigningSecret, Transactions } from '@svc/persistence';
import { JobLifecycle, SinkSender } from '@svc/orchestration';
import type { AuthContext } from '../auth/auth.decorators';
import { CreateJobDto } from './dto/job-body.dto';
import { JobSettingsFactory } from './job-settings.factory';
import { type SinkTestResponse, toSinkTestResponse } from './sink-test.mapper';
import { SinkTemplateChecker } from './sink-templates.checker';

/**
 * Sink tests (spec: Jobs → `POST /jobs/{id}/test`, `POST /jobs/test`; Events → Sink test): one
 * real request, sent synchronously by the same code as a delivery attempt (`SinkSender`: the
 * job's timeout, the server's network rules, signing, `{{secret.NAME}}` decrypted at send time).
 *
 * Nothing is written: no run, no attempt, no usage, no audit entry, no counter. The request's
 * `webhook-id` / `Idempotency-Key` is a fresh `run_` id that names no run, its attempt is 0, its
 * `scheduled_at` and `fired_at` are now, and it carries `Svc-Test: true`.
 */
@Injectable()
export class SinkTestService {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly transactions: Transactions,
    private readonly lifecycle: JobLifecycle,
    private readonly settingsFactory: JobSettingsFactory,
    private readonly templates: SinkTemplateChecker,
    private readonly sender: SinkSender,
  ) {}

  /** A saved job's sink, signed with the job's signing secrets (both during a rotation overlap). */
  async testJob(auth: AuthContext, id: string): Promise<SinkTestResponse> {
    const job = await this.jobs.getWithSigningSecrets(auth.workspaceId, id);
    const sink = job ? toSink(job.sinkKind, job.sinkConfig) : null;
    if (!job || !sink) {
      throw new NotFoundError('Job');
    }
    return this.send(auth.workspaceId, sink, { id: job.id, name: job.name }, job.signingSecrets, job.timeoutMs);
  }

  /**
   * An unsaved job body, validated exactly as `POST /jobs` validates it (schedule with the plan's
   * minimum interval, sink, retry, templates and the secrets they name) but saved nowhere. Its
   * `Svc-Job-Id` is a fresh `job_` id, and it is signed with a one-time secret that is not kept:
   * to test a receiver's signature check, create the job and use `POST /jobs/{id}/test`.
   */
  async testConfig(auth: AuthContext, dto: CreateJobDto): Promise<SinkTestResponse> {
    const now = new Date();
    const plan = await this.lifecycle.planOf(auth.workspaceId);
    // Validated by the create's own code (every field at once); templates inside a transaction.
    const { settings } = await this.settingsFactory.fromDeclaration(dto, now, plan, auth.workspaceId);
    await this.transactions.run((manager) =>
      this.templates.check(auth.workspaceId, settings.sinkKind, settings.sinkConfig, manager),
    );
    const sink = toSink(settings.sinkKind, settings.sinkConfig)!;
    const timeoutMs = settings.timeoutMs;
    const oneTimeSecret = { secret: generateSigningSecret(), expires_at: null };
    return this.send(
      auth.workspaceId,
      sink,
      { id: newId('job', now.getTime()), name: dto.name },
      [oneTimeSecret],
      timeoutMs,
    );
  }

  private async send(
    workspaceId: string,
    sink: Sink,
    job: { id: string; name: string },
    signingSecrets: StoredSigningSecret[],
    timeoutMs: number,
  ): Promise<SinkTestResponse> {
    const now = Date.now();
    const result = await this.sender.send({
      workspaceId,
      sink,
      run: { id: newId('run', now), scheduledAt: new Date(now), attempt: 0 },
      job,
      signingSecrets,
      nowMs: now,
      timeoutMs,
      test: true,
    });
    return toSinkTestResponse(result);
  }
}
