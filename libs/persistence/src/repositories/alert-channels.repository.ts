import { DataSource, EntityManager } from 'typeorm';
import { AlertChannelEntity } from '../entities/alert-channel.entity';
import type { JsonObject } from '../entities/json';
import { returnedRows } from './query-result';
import { WorkspaceRowsRepository } from './workspace-rows';

/** A channel as listed and returned: never its signing secret. */
export type AlertChannelRow = Omit<AlertChannelEntity, 'signingSecret' | 'workspace'>;

/** A channel with its `whsec_` signing secret (webhook channels), for sending only. */
export type AlertChannelWithSecret = AlertChannelRow & { signingSecret: string | null };

export interface NewAlertChannel {
  id: string;
  workspaceId: string;
  name: string;
  kind: string;
  config: JsonObject;
  verified: boolean;
  signingSecret: string | null;
}

/**
 * Named queries on alert channels (docs/alerts.md). The signing secret is selected only by the
 * `…WithSecret` methods; every other method leaves it out.
 */
export class AlertChannelsRepository extends WorkspaceRowsRepository<AlertChannelEntity, AlertChannelRow> {
  constructor(dataSource: DataSource) {
    super(dataSource, AlertChannelEntity, 'ch');
  }

  /** With its signing secret (sending, channel test). */
  findWithSecret(workspaceId: string, id: string): Promise<AlertChannelWithSecret | null> {
    return this.repo()
      .createQueryBuilder('ch')
      .addSelect('ch.signingSecret')
      .where('ch.workspaceId = :workspaceId AND ch.id = :id', { workspaceId, id })
      .getOne();
  }

  async insert(channel: NewAlertChannel, manager: EntityManager): Promise<AlertChannelRow> {
    await manager.query(
      `INSERT INTO alert_channels (id, workspace_id, name, kind, config, verified, signing_secret)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7) RETURNING id`,
      [
        channel.id,
        channel.workspaceId,
        channel.name,
        channel.kind,
        JSON.stringify(channel.config),
        channel.verified,
        channel.signingSecret,
      ],
    );
    return (await this.findById(channel.workspaceId, channel.id, manager))!;
  }

  /**
   * Writes name, config and the verified flag; `updated_at` moves. `readdressed` (a new email
   * address) also clears the confirmation throttle: the new address has been mailed nothing yet.
   */
  async update(
    workspaceId: string,
    id: string,
    change: { name: string; config: JsonObject; verified: boolean; readdressed?: boolean },
    manager: EntityManager,
  ): Promise<AlertChannelRow | null> {
    await manager.query(
      `UPDATE alert_channels SET name = $3, config = $4::jsonb, verified = $5, updated_at = now(),
              verification_sent_at = CASE WHEN $6 THEN NULL ELSE verification_sent_at END
        WHERE workspace_id = $1 AND id = $2`,
      [workspaceId, id, change.name, JSON.stringify(change.config), change.verified, change.readdressed ?? false],
    );
    return this.findById(workspaceId, id, manager);
  }

  /**
   * Deletes the channel and takes it out of every rule of the workspace in the same transaction
   * (spec: rules referencing it stop sending to it). True when it existed.
   */
  async delete(workspaceId: string, id: string, manager: EntityManager): Promise<boolean> {
    const deleted = returnedRows(
      await manager.query(`DELETE FROM alert_channels WHERE workspace_id = $1 AND id = $2 RETURNING id`, [
        workspaceId,
        id,
      ]),
    );
    if (deleted.length === 0) {
      return false;
    }
    await manager.query(
      `UPDATE alert_rules SET channel_ids = array_remove(channel_ids, $2), updated_at = now()
        WHERE workspace_id = $1 AND $2 = ANY(channel_ids)`,
      [workspaceId, id],
    );
    return true;
  }

  /**
   * Which of `ids` are channels of the workspace, each locked `FOR KEY SHARE` until the transaction
   * ends: a rule write that references channels calls this, so a concurrent channel delete waits
   * for the rule to commit and then removes the id from it too.
   */
  async lockExisting(workspaceId: string, ids: readonly string[], manager: EntityManager): Promise<string[]> {
    if (ids.length === 0) {
      return [];
    }
    const rows: Array<{ id: string }> = await manager.query(
      `SELECT id FROM alert_channels WHERE workspace_id = $1 AND id = ANY($2::text[]) FOR KEY SHARE`,
      [workspaceId, [...ids]],
    );
    return rows.map((row) => row.id);
  }

  /**
   * Marks an email channel verified when it still has `address` (a link mailed for an address the
   * channel no longer has confirms nothing). Returns the channel when this call verified it, or
   * when it already was; null when no channel of that id has that address.
   */
  async markVerified(id: string, address: string): Promise<{ channel: AlertChannelRow; changed: boolean } | null> {
    const changed = returnedRows(
      await this.dataSource.manager.query(
        `UPDATE alert_channels SET verified = true, updated_at = now()
          WHERE id = $1 AND kind = 'email' AND config->>'address' = $2 AND NOT verified RETURNING id`,
        [id, address],
      ),
    );
    const channel = await this.repo().findOne({ where: { id } });
    if (!channel || channel.kind !== 'email' || channel.config.address !== address) {
      return null;
    }
    return { channel, changed: changed.length > 0 };
  }

  /**
   * Records that a confirmation mail goes out at `now`, unless one went out less than `minGapMs`
   * before (then false: the caller answers 429).
   */
  async claimVerificationSend(
    workspaceId: string,
    id: string,
    now: Date,
    minGapMs: number,
    manager: EntityManager,
  ): Promise<boolean> {
    const rows = returnedRows(
      await manager.query(
        `UPDATE alert_channels SET verification_sent_at = $3
          WHERE workspace_id = $1 AND id = $2
            AND (verification_sent_at IS NULL OR verification_sent_at <= $3::timestamptz - ($4::int * interval '1 millisecond'))
          RETURNING id`,
        [workspaceId, id, now, minGapMs],
      ),
    );
    return rows.length > 0;
  }
}
