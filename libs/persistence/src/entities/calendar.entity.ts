import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { TimestampedEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

/**
 * A workspace calendar (issue 45): a named set of dates (`YYYY-MM-DD`, ascending, unique) whose
 * days a schedule can exclude (`… except holidays:de-berlin`, a job's `exclude_calendars`).
 */
@Entity({ name: 'calendars' })
export class CalendarEntity extends TimestampedEntity {
  @PrimaryColumn({ name: 'workspace_id', type: 'text', primaryKeyConstraintName: 'pk_calendars' })
  workspaceId: string;

  @PrimaryColumn({ name: 'name', type: 'text', primaryKeyConstraintName: 'pk_calendars' })
  name: string;

  @Column({ name: 'dates', type: 'text', array: true, default: () => "'{}'" })
  dates: string[];

  @ManyToOne(() => WorkspaceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'workspace_id', foreignKeyConstraintName: 'fk_calendars_workspace' })
  workspace?: WorkspaceEntity;
}
