import { Inject, Injectable } from '@nestjs/common';
import { type AppConfig, ValidationFailedError } from '@svc/common';
import { checkAgainstSchema, SinkRegistry, type SinkServices } from '@svc/delivery';
import { WorkspacesRepository } from '@svc/persistence';
import { APP_CONFIG } from '../config/config.module';
import { SINK_SERVICES } from './sink-services.token';

/**
 * Validates a sink at the boundary through its kind (docs/extending.md): the kind must be
 * registered and enabled here, its config must fit the kind's JSON Schema (the one the OpenAPI
 * document shows), then the kind's own checks run and fill in its defaults, with the workspace's
 * own settings (its narrowing of the temporal_workflow task queues). Every write of a sink (create,
 * PATCH, apply, sink test) goes through here. Returns the config to store, or throws
 * `400 validation_failed` naming `sink.kind` or `sink.config.*` fields.
 */
@Injectable()
export class SinkValidator {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly registry: SinkRegistry,
    @Inject(SINK_SERVICES) private readonly services: SinkServices,
    private readonly workspaces: WorkspacesRepository,
  ) {}

  async validate(
    sink: { kind: string; config: Record<string, unknown> },
    workspaceId: string,
  ): Promise<Record<string, unknown>> {
    const kind = this.registry.get(sink.kind);
    if (!kind) {
      throw new ValidationFailedError({
        'sink.kind': `unknown sink kind; one of ${this.registry.names().join(', ')}`,
      });
    }
    const disabled = kind.disabledReason(this.config);
    if (disabled) {
      throw new ValidationFailedError({ 'sink.kind': disabled });
    }
    const fields = checkAgainstSchema(kind.configSchema, sink.config);
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
    const workspace = await this.workspaces.findById(workspaceId);
    const normalized = await kind.normalize(sink.config, {
      config: this.config,
      services: this.services,
      workspace: { id: workspaceId, temporalWorkflowTaskQueues: workspace?.temporalWorkflowTaskQueues ?? null },
    });
    if ('fields' in normalized) {
      throw new ValidationFailedError(normalized.fields);
    }
    return normalized.config as Record<string, unknown>;
  }
}
