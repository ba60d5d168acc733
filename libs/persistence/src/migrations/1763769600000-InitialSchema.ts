import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The whole initial schema (issue 2, Persistence). Generated from the entities with
 * `scripts/schema-diff.ts` against an empty database, then extended by hand with what TypeORM
 * decorators cannot express (their entities declare these indexes with `synchronize: false`):
 * the pg_trgm extension, GIN indexes, and DESC index orders. README.md lists which query each
 * index serves.
 */
export class InitialSchema1763769600000 implements MigrationInterface {
  name = 'InitialSchema1763769600000';

  public async up(queryRunner: QueryRunner): Promise<void> {
    // pg_trgm is a trusted extension (PostgreSQL >= 13): the database owner may create it.
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);

    // --- generated ---
    await queryRunner.query(
      `CREATE TABLE "workspaces" ("id" text NOT NULL, "name" text NOT NULL, "slug" text NOT NULL, "plan" text NOT NULL, "suspended_at" TIMESTAMP WITH TIME ZONE, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_workspaces_slug" UNIQUE ("slug"), CONSTRAINT "pk_workspaces" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "users" ("id" text NOT NULL, "email" text NOT NULL, "name" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "uq_users_email" UNIQUE ("email"), CONSTRAINT "ck_users_email_lowercase" CHECK ("email" = lower("email")), CONSTRAINT "pk_users" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "memberships" ("workspace_id" text NOT NULL, "user_id" text NOT NULL, "role" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "ck_memberships_role" CHECK ("role" IN ('owner', 'admin', 'member')), CONSTRAINT "pk_memberships" PRIMARY KEY ("workspace_id", "user_id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_memberships_user_id" ON "memberships" ("user_id")`);
    await queryRunner.query(
      `CREATE TABLE "api_keys" ("id" text NOT NULL, "workspace_id" text NOT NULL, "name" text NOT NULL, "prefix" text NOT NULL, "key_hash" text NOT NULL, "scopes" text array NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "last_used_at" TIMESTAMP WITH TIME ZONE, "revoked_at" TIMESTAMP WITH TIME ZONE, CONSTRAINT "uq_api_keys_key_hash" UNIQUE ("key_hash"), CONSTRAINT "pk_api_keys" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_api_keys_workspace_id" ON "api_keys" ("workspace_id", "id")`);
    await queryRunner.query(
      `CREATE TABLE "jobs" ("id" text NOT NULL, "workspace_id" text NOT NULL, "name" text NOT NULL, "description" text NOT NULL DEFAULT '', "tags" text array NOT NULL DEFAULT '{}', "schedule_expr" text NOT NULL, "schedule_kind" text NOT NULL, "schedule_canonical" text NOT NULL, "schedule_description" text NOT NULL, "schedule_timezone" text NOT NULL, "schedule_starts_at" TIMESTAMP WITH TIME ZONE, "schedule_ends_at" TIMESTAMP WITH TIME ZONE, "schedule_count" integer, "schedule_anchor" TIMESTAMP WITH TIME ZONE NOT NULL, "sink_kind" text NOT NULL, "sink_config" jsonb NOT NULL, "retry" jsonb NOT NULL, "timeout_ms" integer NOT NULL, "sla_threshold_ms" integer, "misfire_policy" text NOT NULL, "overlap_policy" text NOT NULL, "auto_disable_threshold" integer, "state" text NOT NULL, "disabled_reason" text, "consecutive_failures" integer NOT NULL DEFAULT '0', "next_run_at" TIMESTAMP WITH TIME ZONE, "last_run_at" TIMESTAMP WITH TIME ZONE, "last_run_status" text, "version" integer NOT NULL DEFAULT '1', "revision" integer NOT NULL DEFAULT '1', "signing_secrets" jsonb NOT NULL DEFAULT '[]', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_jobs" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_jobs_workspace_state" ON "jobs" ("workspace_id", "state", "id")`);
    await queryRunner.query(`CREATE INDEX "idx_jobs_workspace_id" ON "jobs" ("workspace_id", "id")`);
    await queryRunner.query(
      `CREATE TABLE "runs" ("id" text NOT NULL, "workspace_id" text NOT NULL, "job_id" text NOT NULL, "job_version" integer NOT NULL, "scheduled_at" TIMESTAMP(3) WITH TIME ZONE NOT NULL, "trigger" text NOT NULL, "status" text NOT NULL, "attempts_count" integer NOT NULL DEFAULT '0', "claimed_at" TIMESTAMP WITH TIME ZONE, "started_at" TIMESTAMP WITH TIME ZONE, "finished_at" TIMESTAMP WITH TIME ZONE, "next_attempt_at" TIMESTAMP WITH TIME ZONE, "start_lag_ms" integer, "e2e_ms" integer, "sla_breached" boolean NOT NULL DEFAULT false, "last_error" text, "skip_reason" text, "retry_of" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_runs" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_runs_manual_retry_occurrence" ON "runs" ("job_id", "scheduled_at") WHERE "trigger" = 'retry_manual'`,
    );
    await queryRunner.query(
      `CREATE TABLE "attempts" ("run_id" text NOT NULL, "n" integer NOT NULL, "workspace_id" text NOT NULL, "started_at" TIMESTAMP WITH TIME ZONE NOT NULL, "finished_at" TIMESTAMP WITH TIME ZONE, "duration_ms" integer, "outcome" text, "status_code" integer, "error" text, "request_summary" text NOT NULL, "response_body" text, CONSTRAINT "pk_attempts" PRIMARY KEY ("run_id", "n"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "secrets" ("workspace_id" text NOT NULL, "name" text NOT NULL, "value_encrypted" bytea NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_secrets" PRIMARY KEY ("workspace_id", "name"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "alert_channels" ("id" text NOT NULL, "workspace_id" text NOT NULL, "name" text NOT NULL, "kind" text NOT NULL, "config" jsonb NOT NULL, "verified" boolean NOT NULL DEFAULT false, "signing_secret" text, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_alert_channels" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_alert_channels_workspace_id" ON "alert_channels" ("workspace_id", "id")`,
    );
    await queryRunner.query(
      `CREATE TABLE "alert_rules" ("id" text NOT NULL, "workspace_id" text NOT NULL, "name" text NOT NULL, "enabled" boolean NOT NULL DEFAULT true, "channel_ids" text array NOT NULL, "events" text array NOT NULL, "job_ids" text array, "tags" text array, "cooldown_ms" integer NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_alert_rules" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_alert_rules_workspace_id" ON "alert_rules" ("workspace_id", "id")`);
    await queryRunner.query(
      `CREATE TABLE "audit_log" ("id" text NOT NULL, "workspace_id" text NOT NULL, "actor" text NOT NULL, "action" text NOT NULL, "target" text NOT NULL, "details" jsonb NOT NULL DEFAULT '{}', "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_audit_log" PRIMARY KEY ("id"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "usage_counters" ("workspace_id" text NOT NULL, "month" character(7) NOT NULL, "runs" integer NOT NULL DEFAULT '0', CONSTRAINT "pk_usage_counters" PRIMARY KEY ("workspace_id", "month"))`,
    );
    await queryRunner.query(
      `CREATE TABLE "idempotency_records" ("workspace_id" text NOT NULL, "scope" text NOT NULL, "key" text NOT NULL, "request_hash" text NOT NULL, "status_code" integer, "response_body" jsonb, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), CONSTRAINT "pk_idempotency_records" PRIMARY KEY ("workspace_id", "scope", "key"))`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_idempotency_records_created_at" ON "idempotency_records" ("created_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "memberships" ADD CONSTRAINT "fk_memberships_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "memberships" ADD CONSTRAINT "fk_memberships_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "api_keys" ADD CONSTRAINT "fk_api_keys_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "jobs" ADD CONSTRAINT "fk_jobs_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "runs" ADD CONSTRAINT "fk_runs_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "attempts" ADD CONSTRAINT "fk_attempts_run" FOREIGN KEY ("run_id") REFERENCES "runs"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "secrets" ADD CONSTRAINT "fk_secrets_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "alert_channels" ADD CONSTRAINT "fk_alert_channels_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "alert_rules" ADD CONSTRAINT "fk_alert_rules_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "audit_log" ADD CONSTRAINT "fk_audit_log_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "usage_counters" ADD CONSTRAINT "fk_usage_counters_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
    await queryRunner.query(
      `ALTER TABLE "idempotency_records" ADD CONSTRAINT "fk_idempotency_records_workspace" FOREIGN KEY ("workspace_id") REFERENCES "workspaces"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );

    // --- hand-written ---
    // GET /jobs?tag=…: tags @> ARRAY[$tag]
    await queryRunner.query(`CREATE INDEX "idx_jobs_tags" ON "jobs" USING gin ("tags")`);
    // GET /jobs?q=…: name ILIKE $q OR description ILIKE $q (trigram GIN serves ILIKE '%…%')
    await queryRunner.query(`CREATE INDEX "idx_jobs_name_trgm" ON "jobs" USING gin ("name" gin_trgm_ops)`);
    await queryRunner.query(
      `CREATE INDEX "idx_jobs_description_trgm" ON "jobs" USING gin ("description" gin_trgm_ops)`,
    );
    // GET /jobs/{id}/runs: newest first, ties by id
    await queryRunner.query(
      `CREATE INDEX "idx_runs_job_scheduled" ON "runs" ("workspace_id", "job_id", "scheduled_at" DESC, "id" DESC)`,
    );
    // GET /runs: newest first, ties by id
    await queryRunner.query(
      `CREATE INDEX "idx_runs_workspace_scheduled" ON "runs" ("workspace_id", "scheduled_at" DESC, "id" DESC)`,
    );
    // GET /runs?status=…
    await queryRunner.query(
      `CREATE INDEX "idx_runs_workspace_status_scheduled" ON "runs" ("workspace_id", "status", "scheduled_at" DESC, "id" DESC)`,
    );
    // GET /runs?sla_breached=true (rare rows: partial)
    await queryRunner.query(
      `CREATE INDEX "idx_runs_workspace_sla_breached" ON "runs" ("workspace_id", "scheduled_at" DESC, "id" DESC) WHERE "sla_breached"`,
    );
    // GET /audit-log: newest first, ties by id; and ?action=…
    await queryRunner.query(
      `CREATE INDEX "idx_audit_log_workspace_created" ON "audit_log" ("workspace_id", "created_at" DESC, "id" DESC)`,
    );
    await queryRunner.query(
      `CREATE INDEX "idx_audit_log_workspace_action_created" ON "audit_log" ("workspace_id", "action", "created_at" DESC, "id" DESC)`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    // --- hand-written ---
    await queryRunner.query(`DROP INDEX "public"."idx_audit_log_workspace_action_created"`);
    await queryRunner.query(`DROP INDEX "public"."idx_audit_log_workspace_created"`);
    await queryRunner.query(`DROP INDEX "public"."idx_runs_workspace_sla_breached"`);
    await queryRunner.query(`DROP INDEX "public"."idx_runs_workspace_status_scheduled"`);
    await queryRunner.query(`DROP INDEX "public"."idx_runs_workspace_scheduled"`);
    await queryRunner.query(`DROP INDEX "public"."idx_runs_job_scheduled"`);
    await queryRunner.query(`DROP INDEX "public"."idx_jobs_description_trgm"`);
    await queryRunner.query(`DROP INDEX "public"."idx_jobs_name_trgm"`);
    await queryRunner.query(`DROP INDEX "public"."idx_jobs_tags"`);
    // --- generated ---
    await queryRunner.query(`ALTER TABLE "idempotency_records" DROP CONSTRAINT "fk_idempotency_records_workspace"`);
    await queryRunner.query(`ALTER TABLE "usage_counters" DROP CONSTRAINT "fk_usage_counters_workspace"`);
    await queryRunner.query(`ALTER TABLE "audit_log" DROP CONSTRAINT "fk_audit_log_workspace"`);
    await queryRunner.query(`ALTER TABLE "alert_rules" DROP CONSTRAINT "fk_alert_rules_workspace"`);
    await queryRunner.query(`ALTER TABLE "alert_channels" DROP CONSTRAINT "fk_alert_channels_workspace"`);
    await queryRunner.query(`ALTER TABLE "secrets" DROP CONSTRAINT "fk_secrets_workspace"`);
    await queryRunner.query(`ALTER TABLE "attempts" DROP CONSTRAINT "fk_attempts_run"`);
    await queryRunner.query(`ALTER TABLE "runs" DROP CONSTRAINT "fk_runs_workspace"`);
    await queryRunner.query(`ALTER TABLE "jobs" DROP CONSTRAINT "fk_jobs_workspace"`);
    await queryRunner.query(`ALTER TABLE "api_keys" DROP CONSTRAINT "fk_api_keys_workspace"`);
    await queryRunner.query(`ALTER TABLE "memberships" DROP CONSTRAINT "fk_memberships_user"`);
    await queryRunner.query(`ALTER TABLE "memberships" DROP CONSTRAINT "fk_memberships_workspace"`);
    await queryRunner.query(`DROP INDEX "public"."idx_idempotency_records_created_at"`);
    await queryRunner.query(`DROP TABLE "idempotency_records"`);
    await queryRunner.query(`DROP TABLE "usage_counters"`);
    await queryRunner.query(`DROP TABLE "audit_log"`);
    await queryRunner.query(`DROP INDEX "public"."idx_alert_rules_workspace_id"`);
    await queryRunner.query(`DROP TABLE "alert_rules"`);
    await queryRunner.query(`DROP INDEX "public"."idx_alert_channels_workspace_id"`);
    await queryRunner.query(`DROP TABLE "alert_channels"`);
    await queryRunner.query(`DROP TABLE "secrets"`);
    await queryRunner.query(`DROP TABLE "attempts"`);
    await queryRunner.query(`DROP INDEX "public"."uq_runs_manual_retry_occurrence"`);
    await queryRunner.query(`DROP TABLE "runs"`);
    await queryRunner.query(`DROP INDEX "public"."idx_jobs_workspace_id"`);
    await queryRunner.query(`DROP INDEX "public"."idx_jobs_workspace_state"`);
    await queryRunner.query(`DROP TABLE "jobs"`);
    await queryRunner.query(`DROP INDEX "public"."idx_api_keys_workspace_id"`);
    await queryRunner.query(`DROP TABLE "api_keys"`);
    await queryRunner.query(`DROP INDEX "public"."idx_memberships_user_id"`);
    await queryRunner.query(`DROP TABLE "memberships"`);
    await queryRunner.query(`DROP TABLE "users"`);
    await queryRunner.query(`DROP TABLE "workspaces"`);
    // pg_trgm stays installed: it may serve other objects, and leaving it is harmless.
  }
}
