import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 46 (destination limits): `destination_limits`, a workspace's limits per destination
 * (`max_in_flight`, `per_minute`, `on_429`) with the state every worker shares: the leases of the
 * attempts in flight (attempt key → expiry, epoch ms), the starts of the last minute and the hold
 * a `Retry-After` put on the destination. One row per destination is the serialization point: a
 * lease is taken by one `UPDATE` whose conditions PostgreSQL re-checks on the newest row version
 * (docs/delivery.md → Destination limits). No entity: only `DestinationsRepository` reads it.
 * A run waiting for its destination says why (`deferred_reason`) and for which one
 * (`deferred_destination`); nullable, no default: existing rows are untouched. The partial index
 * counts the waiting runs per destination (`/metrics`, the destinations list).
 */
export class DestinationLimits1795400005100 implements MigrationInterface {
  name = 'DestinationLimits1795400005100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "destination_limits" ("workspace_id" text NOT NULL, "destination" text NOT NULL, "max_in_flight" integer, "per_minute" integer, "on_429" text, "held_until" TIMESTAMP WITH TIME ZONE, "leases" jsonb NOT NULL DEFAULT '{}', "recent_starts" bigint array NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_destination_limits" PRIMARY KEY ("workspace_id", "destination"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "destination_limits" ADD CONSTRAINT "fk_destination_limits_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(`ALTER TABLE "runs" ADD "deferred_reason" text`);
    await queryRunner.query(`ALTER TABLE "runs" ADD "deferred_destination" text`);
    await queryRunner.query(
      `CREATE INDEX "idx_runs_destination_wait" ON "runs" ("workspace_id", "deferred_destination") WHERE "status" = 'deferred' AND "deferred_reason" IS NOT NULL`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "idx_runs_destination_wait"`);
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "deferred_destination"`);
    await queryRunner.query(`ALTER TABLE "runs" DROP COLUMN "deferred_reason"`);
    await queryRunner.query(`DROP TABLE "destination_limits"`);
  }
}
