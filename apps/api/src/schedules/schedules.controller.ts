import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { Public } from '../common/auth/auth.decorators';
import { PreviewScheduleDto, ValidateScheduleDto } from './dto/schedule-request.dto';
import type { PreviewScheduleResponseDto, ValidateScheduleResponseDto } from './dto/schedule-response.dto';
import { SCHEDULE_ENDPOINT } from './schedule-endpoint.hooks';
import { SchedulesService } from './schedules.service';

/**
 * Unauthenticated schedule tools (spec → Schedules). `SCHEDULE_ENDPOINT` puts both routes under
 * the 16 KiB body limit and the per-IP rate limit (schedule-endpoint.hooks.ts).
 */
@Controller('api/v1/schedules')
@Public()
export class SchedulesController {
  constructor(private readonly schedules: SchedulesService) {}

  @Post('validate')
  @HttpCode(200)
  @RouteConfig(SCHEDULE_ENDPOINT)
  validate(@Body() body: ValidateScheduleDto): ValidateScheduleResponseDto {
    return this.schedules.validate(body);
  }

  @Post('preview')
  @HttpCode(200)
  @RouteConfig(SCHEDULE_ENDPOINT)
  preview(@Body() body: PreviewScheduleDto): PreviewScheduleResponseDto {
    return this.schedules.preview(body);
  }
}
