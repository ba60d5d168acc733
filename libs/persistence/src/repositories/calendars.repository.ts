import { DataSource, EntityManager } from 'typeorm';
import { CalendarEntity } from '../entities/calendar.entity';

/** Named queries on workspace calendars; the workspace id is always the first argument. */
export class CalendarsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** The workspace's calendars by name (`COLLATE "C"`: byte order, whatever the database's collation). */
  list(workspaceId: string, manager: EntityManager = this.dataSource.manager): Promise<CalendarEntity[]> {
    return manager
      .createQueryBuilder(CalendarEntity, 'calendar')
      .where('calendar.workspace_id = :workspaceId', { workspaceId })
      .orderBy('calendar.name COLLATE "C"', 'ASC')
      .getMany();
  }

  /** Name → dates of the workspace's calendars: what a schedule compiles with (`ScheduleInput.calendars`). */
  async datesByName(workspaceId: string, manager?: EntityManager): Promise<Record<string, string[]>> {
    const calendars: Record<string, string[]> = {};
    for (const calendar of await this.list(workspaceId, manager)) {
      calendars[calendar.name] = calendar.dates;
    }
    return calendars;
  }

  get(workspaceId: string, name: string, manager: EntityManager = this.dataSource.manager) {
    return manager.findOne(CalendarEntity, { where: { workspaceId, name } });
  }

  /** Serializes calendar writes of one workspace until the transaction ends (the per-workspace cap, a delete's check). */
  async lockWorkspace(workspaceId: string, manager: EntityManager): Promise<void> {
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext('calendars/' || $1))`, [workspaceId]);
  }

  countInWorkspace(workspaceId: string, manager: EntityManager): Promise<number> {
    return manager.countBy(CalendarEntity, { workspaceId });
  }

  /** Creates or replaces the calendar's dates; true when it was created. */
  async upsert(workspaceId: string, name: string, dates: string[], manager: EntityManager): Promise<boolean> {
    const rows: Array<{ created: boolean }> = await manager.query(
      `INSERT INTO calendars (workspace_id, name, dates) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id, name) DO UPDATE SET dates = EXCLUDED.dates, updated_at = now()
       RETURNING (xmax = 0) AS created`,
      [workspaceId, name, dates],
    );
    return rows[0]!.created;
  }

  async delete(workspaceId: string, name: string, manager: EntityManager): Promise<void> {
    await manager.delete(CalendarEntity, { workspaceId, name });
  }

  /**
   * Jobs of the workspace that use the calendar: in `exclude_calendars`, or named in a natural
   * schedule (`except holidays:de-berlin`; matched as text here, the caller confirms), at most `limit`.
   */
  async jobsUsing(
    workspaceId: string,
    name: string,
    limit: number,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Array<{ id: string; name: string; scheduleExpr: string; excludeCalendars: string[] }>> {
    const rows: Array<{ id: string; name: string; schedule_expr: string; exclude_calendars: string[] }> =
      await manager.query(
        `SELECT id, name, schedule_expr, exclude_calendars FROM jobs
          WHERE workspace_id = $1
            AND (exclude_calendars @> ARRAY[$2]::text[]
                 OR (schedule_kind = 'natural' AND strpos(lower(schedule_expr), $2) > 0))
          ORDER BY id LIMIT $3`,
        [workspaceId, name, limit],
      );
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      scheduleExpr: r.schedule_expr,
      excludeCalendars: r.exclude_calendars,
    }));
  }
}
