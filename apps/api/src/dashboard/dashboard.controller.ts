import { Controller, Get, Inject } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { AnyKey } from '../auth/auth.decorators';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { APP_CONFIG } from '../config/config.module';

/**
 * What the dashboard needs to know about this server beyond `/features`: where the Temporal Web
 * UI is (`temporal.ui_url`), to link each run to its workflow, and the job defaults a job left at
 * "server default" gets (the job page shows the number). Authenticated, unlike `/features`,
 * because it names internal infrastructure.
 */
@Controller('api/v1/dashboard')
export class DashboardController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('config')
  @AnyKey()
  @ApiOperation('Dashboard settings: the Temporal Web UI to link runs to, the server’s job defaults', {
    200: {
      type: 'object',
      properties: {
        temporal: {
          oneOf: [
            {
              type: 'object',
              properties: { ui_url: { type: 'string' }, namespace: { type: 'string' } },
              required: ['ui_url', 'namespace'],
              additionalProperties: false,
            },
            { type: 'null' },
          ],
        },
        job_defaults: {
          type: 'object',
          description: 'What a job whose setting is null (the server default) gets.',
          properties: {
            auto_disable_threshold: {
              type: 'integer',
              description: 'Consecutive failed runs before such a job is disabled; 0 never.',
            },
          },
          required: ['auto_disable_threshold'],
          additionalProperties: false,
        },
      },
      required: ['temporal'],
      additionalProperties: false,
    },
  })
  settings() {
    const { ui_url, namespace } = this.config.temporal;
    return {
      temporal: ui_url ? { ui_url, namespace } : null,
      job_defaults: { auto_disable_threshold: this.config.scheduler.default_auto_disable_threshold },
    };
  }
}
