import { Module } from '@nestjs/common';
import { CalendarsController } from './calendars.controller';
import { CalendarsService } from './calendars.service';

/** `/api/v1/calendars`. */
@Module({
  controllers: [CalendarsController],
  providers: [CalendarsService],
})
export class CalendarsModule {}
