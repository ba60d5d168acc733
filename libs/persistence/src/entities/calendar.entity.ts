import { Entity } from 'typeorm';
import { BelongsTo, KeyColumn, TextColumn } from './columns';
import { TimestampedEntity } from './timestamps';
import { WorkspaceEntity } from './workspace.entity';

/**
 * A workspace calendar: a named set of dates (`YYYY-MM-DD`, ascending, unique) whose
 * days a schedule can exclude (`… except holidays:de-berlin`, a job's `exclude_calendars`).
 */
@Entity({ name: 'calendars' })
export class CalendarEntity extends TimestampedEntity {
  @KeyColumn('calendars', 'workspace_id')
  workspaceId: string;

  @KeyColumn('calendars', 'name')
  name: string;

  @TextColumn('dates', { array: true, default: () => "'{}'" })
  dates: string[];

  @BelongsTo('calendars', 'workspace', () => WorkspaceEntity)
  workspace?: WorkspaceEntity;
}
