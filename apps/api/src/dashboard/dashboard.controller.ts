import { Controller, Get, Inject } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { AnyKey } from '../auth/auth.decorators';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { APP_CONFIG } from '../config/config.module';

/**
 * What the dashboard needs to know about this server beyond `/features`: where the Temporal Web
 * UI is (`temporal.ui_url`), to link each run to its workflow. Authenticated, unlike `/features`,
 * because it names internal infrastructure.
 */
@Controller('api/v1/dashboard')
export class DashboardController {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  @Get('config')
  @AnyKey()
  @ApiOperation('Dashboard settings: the Temporal Web UI to link runs to', {
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
      },
      required: ['temporal'],
      additionalProperties: false,
    },
  })
  settings() {
    const { ui_url, namespace } = this.config.temporal;
    return { temporal: ui_url ? { ui_url, namespace } : null };
  }
}
