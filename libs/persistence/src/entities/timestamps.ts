import { CreateDateColumn, UpdateDateColumn } from 'typeorm';
import { TimestampColumn } from './columns';

/** `created_at`, which TypeORM sets on insert. */
export abstract class CreatedEntity {
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}

/** `created_at` and `updated_at`, which TypeORM sets on insert and on every update. */
export abstract class TimestampedEntity extends CreatedEntity {
  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * The progress columns of work a workflow carries out item by item (a backfill, a bulk operation):
 * its cancel endpoint sets `cancel_requested_at` and no item starts after it; `finished_at` is set
 * when it ends, completed or cancelled.
 */
export abstract class ProgressEntity extends TimestampedEntity {
  @TimestampColumn('cancel_requested_at', { nullable: true })
  cancelRequestedAt: Date | null;

  @TimestampColumn('finished_at', { nullable: true })
  finishedAt: Date | null;
}
