import type { FactoryProvider } from '@nestjs/common';
import type { AppConfig } from '@svc/common';
import type { Client } from '@temporalio/client';
import { APP_CONFIG } from '../config/config.module';
import { TEMPORAL_CLIENT } from './temporal.module';

/**
 * The provider of a workflow gateway (libs/orchestration): the gateway over the Temporal client and
 * the task queue its workflows run on, by default the jobs task queue (`temporal.task_queue`).
 */
export function workflowGatewayProvider<T>(
  gateway: new (client: Client, taskQueue: string) => T,
  taskQueue: (config: AppConfig) => string = (config) => config.temporal.task_queue,
): FactoryProvider<T> {
  return {
    provide: gateway,
    inject: [TEMPORAL_CLIENT, APP_CONFIG],
    useFactory: (client: Client, config: AppConfig) => new gateway(client, taskQueue(config)),
  };
}
