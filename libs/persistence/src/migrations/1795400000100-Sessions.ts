import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 11: dashboard sessions. The cookie's token is never stored, only its SHA-256 (the primary
 * key); rows go with their user, and expired ones are deleted as users sign in again.
 */
export class Sessions1795400000100 implements MigrationInterface {
  name = 'Sessions1795400000100';

  public async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE TABLE "sessions" ("token_hash" text NOT NULL, "user_id" text NOT NULL, "provider" text NOT NULL, "created_at" TIMESTAMP WITH TIME ZONE NOT NULL DEFAULT now(), "expires_at" TIMESTAMP WITH TIME ZONE NOT NULL, CONSTRAINT "pk_sessions" PRIMARY KEY ("token_hash"))`,
    );
    await queryRunner.query(`CREATE INDEX "idx_sessions_user_id" ON "sessions" ("user_id")`);
    await queryRunner.query(`CREATE INDEX "idx_sessions_expires_at" ON "sessions" ("expires_at")`);
    await queryRunner.query(
      `ALTER TABLE "sessions" ADD CONSTRAINT "fk_sessions_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE NO ACTION`,
    );
  }

  public async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "sessions"`);
  }
}
