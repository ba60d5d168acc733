import { Injectable } from '@nestjs/common';
import { CURSORS, NotFoundError, type Page, readKeysetPage } from '@svc/common';
import { generateApiKey } from '@svc/common/api-keys';
import { ApiKeysRepository, AuditRepository, Transactions } from '@svc/persistence';
import type { AuthContext } from '../auth/auth.decorators';
import {
  type ApiKeyResponse,
  type CreatedApiKeyResponse,
  toApiKeyResponse,
  toCreatedApiKeyResponse,
} from './api-keys.mapper';
import { CreateApiKeyDto, ListApiKeysQueryDto } from './dto/api-key.dto';

/**
 * API keys of the workspace (spec → API key, Authentication; decisions.md → API key format,
 * Idempotency, Audit actions). The full key exists only in the create response; the database
 * holds its SHA-256 (and, for an idempotent replay, the key sealed to its creator).
 */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly transactions: Transactions,
    private readonly keys: ApiKeysRepository,
    private readonly audit: AuditRepository,
  ) {}

  list(auth: AuthContext, query: ListApiKeysQueryDto): Promise<Page<ApiKeyResponse>> {
    return readKeysetPage(query, {
      format: CURSORS.apiKeys,
      fetch: (after, limit) => this.keys.listPage(auth.workspaceId, { beforeId: after?.id, limit }),
      keyOf: ({ id }) => ({ id }),
      toItem: toApiKeyResponse,
    });
  }

  /** Revokes a key: effective on the very next request (the guard never caches keys). Idempotent. */
  async revoke(auth: AuthContext, id: string): Promise<void> {
    await this.transactions.run(async (manager) => {
      const key = await this.keys.findByIdForUpdate(auth.workspaceId, id, manager);
      if (!key) {
        throw new NotFoundError('API key');
      }
      if (key.revokedAt !== null) {
        return;
      }
      await this.keys.revoke(auth.workspaceId, id, new Date(), manager);
      await this.audit.insert(
        auth.workspaceId,
        { actor: auth.actor, action: 'api_key.revoke', target: id, details: { name: key.name, prefix: key.prefix } },
        manager,
      );
    });
  }

  /** A new key with its `api_key.create` audit entry; the full key is in this answer only. */
  async create(auth: AuthContext, dto: CreateApiKeyDto): Promise<CreatedApiKeyResponse> {
    const generated = generateApiKey();
    const scopes = dto.scopes ?? ['*'];
    const row = await this.transactions.run(async (manager) => {
      const created = await this.keys.create(
        auth.workspaceId,
        { name: dto.name, prefix: generated.prefix, keyHash: generated.hash, scopes },
        manager,
      );
      await this.audit.insert(
        auth.workspaceId,
        {
          actor: auth.actor,
          action: 'api_key.create',
          target: created.id,
          details: { name: created.name, prefix: created.prefix, scopes: created.scopes },
        },
        manager,
      );
      return created;
    });
    return toCreatedApiKeyResponse(row, generated.key);
  }
}
