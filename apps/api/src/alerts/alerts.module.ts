import { Module } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import { AlertSender, networkRulesOf, verificationKeyFromConfig } from '@svc/delivery';
import { AlertWorkflowGateway } from '@svc/orchestration';
import { alertsTaskQueue } from '@svc/workflow-contract/definitions';
import { APP_CONFIG } from '../config/config.module';
import { workflowGatewayProvider } from '../temporal/workflow-gateway.provider';
import { AlertChannelsController } from './alert-channels.controller';
import { ALERT_VERIFICATION_KEY, AlertChannelsService } from './alert-channels.service';
import { AlertRulesController } from './alert-rules.controller';
import { AlertRulesService } from './alert-rules.service';

/** `/api/v1/alert-channels` and `/api/v1/alert-rules` (docs/alerts.md). */
@Module({
  controllers: [AlertChannelsController, AlertRulesController],
  providers: [
    AlertChannelsService,
    AlertRulesService,
    {
      // Channel tests send exactly as the worker's alert activities do.
      provide: AlertSender,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        new AlertSender({
          serviceName: config.service_name,
          version: config.version,
          smtp: config.smtp,
          rules: networkRulesOf(config),
          timeoutMs: config.alerts.send_timeout_ms,
        }),
    },
    workflowGatewayProvider(AlertWorkflowGateway, (config) => alertsTaskQueue(config.temporal.task_queue)),
    {
      provide: ALERT_VERIFICATION_KEY,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => verificationKeyFromConfig(config),
    },
  ],
})
export class AlertsModule {}
