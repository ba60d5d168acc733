import { Column, CreateDateColumn, UpdateDateColumn } from 'typeorm';

/** `created_at` and `updated_at`, which TypeORM sets on insert and on every update. */
export abstract class TimestampedEntity {
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/**
 * The progress columns of work a workflow carries out item by item (a backfill, a bulk operation):
 * its cancel endpoint sets `cancel_requested_at` and no item starts after it; `finished_at` is set
 * when it ends, completed or cancelled.
 */
export abstract class ProgressEntity extends TimestampedEntity {
  @Column({ name: 'cancel_requested_at', type: 'timestamptz', nullable: true })
  cancelRequestedAt: Date | null;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
