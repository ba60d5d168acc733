import { Client, type Connection } from '@temporalio/client';
import type { AppConfig } from '@svc/common';
import type { SinkServices } from '@svc/delivery';
import { serviceWorkflows } from './service-workflows';

/**
 * What sink kinds may use of the service: its configuration and its Temporal connection, one
 * client per namespace. These clients use Temporal's default data converter, never the service's
 * payload codec: the workflows a `temporal_workflow` sink starts belong to the team's own workers,
 * which read plain JSON.
 */
export function sinkServices(config: AppConfig, connection: () => Connection): SinkServices {
  const clients = new Map<string, Client>();
  return {
    config,
    serviceWorkflows: serviceWorkflows(config),
    temporal(namespace: string): Client {
      let client = clients.get(namespace);
      if (!client) {
        client = new Client({ connection: connection(), namespace });
        clients.set(namespace, client);
      }
      return client;
    },
  };
}
