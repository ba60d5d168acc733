import type { SecretsCipher } from '@svc/common/secrets-crypto';
import { DataSource, EntityManager } from 'typeorm';
import { SecretEntity } from '../entities/secret.entity';
import { returnedRows } from './query-result';

/** A secret's listed columns: name and timestamps, never the value (spec → Secret). */
export type SecretMetadata = Pick<SecretEntity, 'workspaceId' | 'name' | 'createdAt' | 'updatedAt'>;

/** A job whose webhook config may reference a secret (the caller checks the templates exactly). */
export interface SecretReferenceCandidate {
  id: string;
  name: string;
  sinkKind: string;
  sinkConfig: Record<string, unknown>;
}

/**
 * Named queries on workspace secrets (decisions.md → Secrets). Values are stored encrypted
 * (`@svc/common/secrets-crypto`) and selected only by `findEncrypted` / `resolveForWorkspace`;
 * every other method returns names and timestamps only.
 */
export class SecretsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * One page of the workspace's secrets, by name (ascending, on the primary key), starting
   * strictly after `afterName` when given.
   */
  async listPage(workspaceId: string, page: { afterName?: string; limit: number }): Promise<SecretMetadata[]> {
    const query = this.dataSource.manager
      .createQueryBuilder(SecretEntity, 'secret')
      .where('secret.workspace_id = :workspaceId', { workspaceId });
    if (page.afterName !== undefined) {
      // COLLATE "C": byte order, the same as the cursor's, whatever the database's collation.
      query.andWhere('secret.name COLLATE "C" > :afterName', { afterName: page.afterName });
    }
    const rows = await query.orderBy('secret.name COLLATE "C"', 'ASC').take(page.limit).getMany();
    return rows.map(fromEntity);
  }

  /**
   * Serializes secret writes of one workspace until the transaction ends, so the per-workspace
   * count cannot be passed by two concurrent creates.
   */
  async lockWorkspace(workspaceId: string, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('secrets/' || $1))`, [workspaceId]);
  }

  /** The secret's row, locked (`FOR UPDATE`) until the transaction ends; null when absent. */
  async findForUpdate(workspaceId: string, name: string, manager: EntityManager): Promise<SecretMetadata | null> {
    const row = await manager.findOne(SecretEntity, {
      where: { workspaceId, name },
      lock: { mode: 'pessimistic_write' },
    });
    return row ? fromEntity(row) : null;
  }

  countInWorkspace(workspaceId: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    return manager.countBy(SecretEntity, { workspaceId });
  }

  /** Inserts a new secret (the caller has checked it does not exist, under `lockWorkspace`). */
  async insert(
    workspaceId: string,
    name: string,
    valueEncrypted: Buffer,
    manager: EntityManager,
  ): Promise<SecretMetadata> {
    const rows: RawSecretRow[] = await manager.query(
      `INSERT INTO secrets (workspace_id, name, value_encrypted) VALUES ($1, $2, $3)
       RETURNING workspace_id, name, created_at, updated_at`,
      [workspaceId, name, valueEncrypted],
    );
    return toMetadata(rows[0]);
  }

  /** Replaces the value of an existing secret; `updated_at` moves, `created_at` stays. */
  async replaceValue(
    workspaceId: string,
    name: string,
    valueEncrypted: Buffer,
    manager: EntityManager,
  ): Promise<SecretMetadata | null> {
    const result: unknown = await manager.query(
      `UPDATE secrets SET value_encrypted = $3, updated_at = now() WHERE workspace_id = $1 AND name = $2
       RETURNING workspace_id, name, created_at, updated_at`,
      [workspaceId, name, valueEncrypted],
    );
    const rows = returnedRows<RawSecretRow>(result);
    return rows.length > 0 ? toMetadata(rows[0]) : null;
  }

  async delete(workspaceId: string, name: string, manager: EntityManager): Promise<void> {
    await manager.delete(SecretEntity, { workspaceId, name });
  }

  /**
   * Which of `names` exist, each row locked `FOR KEY SHARE` until the transaction ends: a job
   * write that references secrets calls this, so a concurrent delete of one of them waits for the
   * job to commit (and then sees the reference), or has already deleted it (and the job write
   * sees it missing). Value updates are not blocked.
   */
  async lockExisting(workspaceId: string, names: readonly string[], manager: EntityManager): Promise<string[]> {
    if (names.length === 0) {
      return [];
    }
    const rows: Array<{ name: string }> = await manager.query(
      `SELECT name FROM secrets WHERE workspace_id = $1 AND name = ANY($2::text[]) FOR KEY SHARE`,
      [workspaceId, [...names]],
    );
    return rows.map((row) => row.name);
  }

  /**
   * Jobs of the workspace, of every sink kind, whose sink config mentions `secret.<name>` anywhere
   * (a cheap superset: the caller decides with `secretsUsedBy`, which knows each kind's fields).
   */
  findReferenceCandidates(
    workspaceId: string,
    name: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SecretReferenceCandidate[]> {
    return manager.query(
      `SELECT id, name, sink_kind AS "sinkKind", sink_config AS "sinkConfig" FROM jobs
        WHERE workspace_id = $1 AND strpos(sink_config::text, $2) > 0
        ORDER BY id`,
      [workspaceId, `secret.${name}`],
    );
  }

  /** Encrypted values of the named secrets that exist (by name); absent names are left out. */
  async findEncrypted(workspaceId: string, names: readonly string[]): Promise<Map<string, Buffer>> {
    if (names.length === 0) {
      return new Map();
    }
    const rows: Array<{ name: string; value_encrypted: Buffer }> = await this.dataSource.manager.query(
      `SELECT name, value_encrypted FROM secrets WHERE workspace_id = $1 AND name = ANY($2::text[])`,
      [workspaceId, [...names]],
    );
    return new Map(rows.map((row) => [row.name, row.value_encrypted]));
  }

  /**
   * The decrypted values of the named secrets of a workspace, for rendering `{{secret.NAME}}` at
   * send time (the delivery activity: `secretsUsedBy` gives `names`). A name
   * without a stored secret is absent from the result, so `renderTemplate` fails the attempt with
   * `unknown secret "NAME"`. One query for all names.
   * @throws SecretDecryptionError (from the cipher) when a stored value cannot be decrypted under
   *   the configured key; it names the secret, never a value.
   */
  async resolveForWorkspace(
    workspaceId: string,
    names: readonly string[],
    cipher: SecretsCipher,
  ): Promise<Record<string, string>> {
    const encrypted = await this.findEncrypted(workspaceId, [...new Set(names)]);
    const values: Record<string, string> = {};
    for (const [name, blob] of encrypted) {
      values[name] = cipher.decrypt(blob, { workspaceId, name });
    }
    return values;
  }
}

interface RawSecretRow {
  workspace_id: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

function fromEntity(row: SecretEntity): SecretMetadata {
  return { workspaceId: row.workspaceId, name: row.name, createdAt: row.createdAt, updatedAt: row.updatedAt };
}

function toMetadata(row: RawSecretRow): SecretMetadata {
  return { workspaceId: row.workspace_id, name: row.name, createdAt: row.created_at, updatedAt: row.updated_at };
}
