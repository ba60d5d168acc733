import { Injectable } from '@nestjs/common';
import { ConflictError, LimitExceededError, NotFoundError, type Page, readKeysetPage } from '@svc/common';
import { SecretsCipher } from '@svc/common/secrets-crypto';
import { secretsUsedBy, SinkRegistry } from '@svc/delivery';
import { AuditRepository, type SecretReferenceCandidate, SecretsRepository, Transactions } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import { ListSecretsQueryDto, PutSecretDto, SECRET_CURSOR } from './dto/secret.dto';
import { MAX_SECRETS_LIMIT_NAME, MAX_SECRETS_PER_WORKSPACE } from './secret-limits';
import { type SecretResponse, toSecretResponse } from './secrets.mapper';

/** Jobs named in a 409 before "and N more". */
const JOBS_NAMED_IN_CONFLICT = 10;

/**
 * Workspace secrets (spec → Secret; decisions.md → Secrets). Values are encrypted before they
 * reach the database and appear in no response, audit entry, error or log line; audit entries
 * carry the name only.
 */
@Injectable()
export class SecretsService {
  constructor(
    private readonly transactions: Transactions,
    private readonly secrets: SecretsRepository,
    private readonly audit: AuditRepository,
    private readonly cipher: SecretsCipher,
    private readonly sinkKinds: SinkRegistry,
  ) {}

  list(auth: AuthContext, query: ListSecretsQueryDto): Promise<Page<SecretResponse>> {
    return readKeysetPage(query, {
      format: SECRET_CURSOR,
      fetch: (after, limit) => this.secrets.listPage(auth.workspaceId, { afterName: after?.name, limit }),
      keyOf: ({ name }) => ({ name }),
      toItem: toSecretResponse,
    });
  }

  /**
   * Creates or replaces a secret, with its `secret.update` audit entry in the same transaction.
   * Writes of one workspace are serialized, so the 100-secret cap holds under concurrent creates.
   */
  async put(auth: AuthContext, name: string, dto: PutSecretDto): Promise<{ created: boolean; secret: SecretResponse }> {
    const { workspaceId } = auth;
    const encrypted = this.cipher.encrypt(dto.value, { workspaceId, name });
    return this.transactions.run(async (manager) => {
      await this.secrets.lockWorkspace(workspaceId, manager);
      const existing = await this.secrets.findForUpdate(workspaceId, name, manager);
      let stored;
      if (existing) {
        stored = await this.secrets.replaceValue(workspaceId, name, encrypted, manager);
      } else {
        const count = await this.secrets.countInWorkspace(workspaceId, manager);
        if (count >= MAX_SECRETS_PER_WORKSPACE) {
          throw new LimitExceededError(
            MAX_SECRETS_LIMIT_NAME,
            MAX_SECRETS_PER_WORKSPACE,
            `A workspace holds at most ${MAX_SECRETS_PER_WORKSPACE} secrets; delete one first`,
          );
        }
        stored = await this.secrets.insert(workspaceId, name, encrypted, manager);
      }
      await this.audit.insert(
        workspaceId,
        { actor: auth.actor, action: 'secret.update', target: name, details: { created: !existing } },
        manager,
      );
      return { created: !existing, secret: toSecretResponse(stored!) };
    });
  }

  /**
   * Deletes a secret unless a job of any sink kind uses it (`secretsUsedBy`: the kind's template
   * fields; any mention for a kind this server no longer knows): `409 conflict` naming the jobs,
   * since deleting it would make every delivery of those jobs fail. The secret row is locked
   * first; job writes that reference a secret lock it too (`SinkTemplateChecker`), so a job saved
   * concurrently is either seen here or sees the secret gone.
   */
  async remove(auth: AuthContext, name: string): Promise<void> {
    const { workspaceId } = auth;
    await this.transactions.run(async (manager) => {
      const existing = await this.secrets.findForUpdate(workspaceId, name, manager);
      if (!existing) {
        throw new NotFoundError('Secret');
      }
      const candidates = await this.secrets.findReferenceCandidates(workspaceId, name, manager);
      const users = candidates.filter((job) =>
        secretsUsedBy(this.sinkKinds, job.sinkKind, job.sinkConfig).includes(name),
      );
      if (users.length > 0) {
        throw new ConflictError(
          `Secret ${name} is used by ${describeJobs(users)}; remove {{secret.${name}}} from ` +
            `${users.length === 1 ? 'that job' : 'those jobs'} (or delete ${users.length === 1 ? 'it' : 'them'}) first`,
        );
      }
      await this.secrets.delete(workspaceId, name, manager);
      await this.audit.insert(
        workspaceId,
        { actor: auth.actor, action: 'secret.delete', target: name, details: {} },
        manager,
      );
    });
  }
}

function describeJobs(jobs: SecretReferenceCandidate[]): string {
  const named = jobs.slice(0, JOBS_NAMED_IN_CONFLICT).map((job) => `${job.id} (${JSON.stringify(job.name)})`);
  const more = jobs.length - named.length;
  const list = more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
  return `${jobs.length === 1 ? 'job' : `${jobs.length} jobs:`} ${list}`;
}
