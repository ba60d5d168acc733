import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 10, alerts (docs/alerts.md): events recorded where they happen (`alert_events`, one row
 * per occurrence, keyed by an id derived from the run and the type), one delivery per event and
 * channel (`alert_deliveries`), the cooldown of each rule per job and event type
 * (`alert_cooldowns`), the throttle of confirmation mails, and the partial index the worker's SLA
 * watch scans (only runs in flight that have not breached yet).
 */
export class AlertDelivery1795400000500 implements MigrationInterface {
  name = 'AlertDelivery1795400000500';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "alert_channels" ADD "verification_sent_at" TIMESTAMP WITH TIME ZONE`);
    await queryRunner.query(
      `CREATE TABLE "alert_events" ("id" text NOT NULL, "workspace_id" text NOT NULL, "type" text NOT NULL, "job_id" text NOT NULL, "run_id" text, "occurred_at" TIMESTAMP WITH TIME ZONE NOT NULL, "details" jsonb NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "dispatched_at" TIMESTAMP WITH TIME ZONE, "planned_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "pk_alert_events" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_alert_events_undispatched" ON "alert_events" ("created_at") WHERE "dispatched_at" IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX "idx_alert_events_created_at" ON "alert_events" ("created_at")`);
    await queryRunner.query(
      `CREATE TABLE "alert_deliveries" ("event_id" text NOT NULL, "channel_id" text NOT NULL, "workspace_id" text NOT NULL, "rule_id" text NOT NULL, "status" text NOT NULL, "attempts" integer NOT NULL DEFAULT '0', "last_error" text, "sent_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_alert_deliveries" PRIMARY KEY ("event_id", "channel_id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "alert_cooldowns" ("rule_id" text NOT NULL, "job_id" text NOT NULL, "event_type" text NOT NULL, "last_event_id" text NOT NULL, "last_alerted_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pk_alert_cooldowns" PRIMARY KEY ("rule_id", "job_id", "event_type"))`,
    );
    await queryRunner.query(
      `ALTER TABLE "alert_events" ADD CONSTRAINT "fk_alert_events_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "alert_deliveries" ADD CONSTRAINT "fk_alert_deliveries_event" FOREIGN KEY ("event_id") REFERENCES "alert_events"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "alert_cooldowns" ADD CONSTRAINT "fk_alert_cooldowns_rule" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    // Hand-written: the SLA watch's scan (TypeORM cannot express IN lists in a partial index).
    await queryRunner.query(
      `CREATE INDEX "idx_runs_sla_watch" ON "runs" ("scheduled_at") WHERE "status" IN ('running', 'deferred') AND NOT "sla_breached"`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "public"."idx_runs_sla_watch"`);
    await queryRunner.query(`ALTER TABLE "alert_cooldowns" DROP CONSTRAINT "fk_alert_cooldowns_rule"`);
    await queryRunner.query(`ALTER TABLE "alert_deliveries" DROP CONSTRAINT "fk_alert_deliveries_event"`);
    await queryRunner.query(`ALTER TABLE "alert_events" DROP CONSTRAINT "fk_alert_events_workspace"`);
    await queryRunner.query(`DROP TABLE "alert_cooldowns"`);
    await queryRunner.query(`DROP TABLE "alert_deliveries"`);
    await queryRunner.query(`DROP INDEX "public"."idx_alert_events_created_at"`);
    await queryRunner.query(`DROP INDEX "public"."idx_alert_events_undispatched"`);
    await queryRunner.query(`DROP TABLE "alert_events"`);
    await queryRunner.query(`ALTER TABLE "alert_channels" DROP COLUMN "verification_sent_at"`);
  }
}
