import { Body, Controller, Param, Post, Put, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Auth, type AuthContext, Scopes } from '../auth/auth.decorators';
import { ApiOperation, createdOrReplaced, ServerChecks } from '../common/openapi/openapi.decorators';
import { CalendarNameToFindPipe, CalendarNameToWritePipe } from './calendar-name.pipe';
import { CALENDAR_LIST_SCHEMA, CALENDAR_SCHEMA } from './calendar-response.schema';
import { CalendarsService } from './calendars.service';
import { CalendarDatesDto, CreateCalendarDto } from './dto/calendar.dto';
import { DeleteRoute, GetRoute } from '../auth/route.decorators';

const DATES_BODY =
  'The body gives the dates either as `dates` (`YYYY-MM-DD`, any order) or as `ical`, the text of an iCalendar ' +
  'file (each event’s days; recurring events are refused): `400` naming the field otherwise.';

/** Workspace calendars: named sets of dates that schedules exclude. */
@Controller('api/v1/calendars')
export class CalendarsController {
  constructor(private readonly calendars: CalendarsService) {}

  @Post()
  @Scopes('jobs:write')
  @ApiOperation('Create a calendar from a list of dates or an iCalendar file', { 201: CALENDAR_SCHEMA }, DATES_BODY)
  async create(@Auth() auth: AuthContext, @Body() body: CreateCalendarDto) {
    return (await this.calendars.create(auth, body)).calendar;
  }

  @GetRoute('', 'jobs:read', 'List the workspace’s calendars by name, with their number of dates', CALENDAR_LIST_SCHEMA)
  list(@Auth() auth: AuthContext) {
    return this.calendars.list(auth);
  }

  @ServerChecks({
    name: 'lowercase words joined by `:` (`holidays:de-berlin`), at most 64 characters',
    path: 'at most 64 characters of name',
  })
  @GetRoute(':name', 'jobs:read', 'A calendar with its dates', CALENDAR_SCHEMA)
  get(@Auth() auth: AuthContext, @Param('name', CalendarNameToFindPipe) name: string) {
    return this.calendars.get(auth, name);
  }

  @ServerChecks({
    name: 'lowercase words joined by `:` (`holidays:de-berlin`), at most 64 characters',
    path: 'at most 64 characters of name',
  })
  @Put(':name')
  @Scopes('jobs:write')
  @ApiOperation(
    'Create (201) or replace (200) a calendar’s dates',
    createdOrReplaced(CALENDAR_SCHEMA),
    `${DATES_BODY} Jobs that use the calendar plan again with its new dates at once.`,
  )
  async put(
    @Auth() auth: AuthContext,
    @Param('name', CalendarNameToWritePipe) name: string,
    @Body() body: CalendarDatesDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { created, calendar } = await this.calendars.put(auth, name, body);
    void reply.status(created ? 201 : 200);
    return calendar;
  }

  @ServerChecks({
    name: 'lowercase words joined by `:` (`holidays:de-berlin`), at most 64 characters',
    path: 'at most 64 characters of name',
  })
  @DeleteRoute(':name', 'jobs:write', 'Delete a calendar (409 while a job uses it)')
  async remove(@Auth() auth: AuthContext, @Param('name', CalendarNameToFindPipe) name: string): Promise<void> {
    await this.calendars.remove(auth, name);
  }
}
