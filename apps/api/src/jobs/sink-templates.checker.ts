import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { collectSecretNames, type TemplatableConfig, validateTemplates } from '@svc/delivery';
import { SecretsRepository, type Tx } from '@svc/persistence';

/**
 * Templates of a webhook sink (decisions.md → Templates): `{{…}}` only in header values and the
 * body, only known variables, and `{{secret.NAME}}` only for secrets the workspace holds.
 * Otherwise `400 validation_failed` naming each field (`sink.config.headers.X-Token`,
 * `sink.config.body`, `sink.config.url`).
 *
 * Runs inside the job's write transaction: the referenced secrets are locked `FOR KEY SHARE`
 * until it commits, so a concurrent `DELETE /secrets/{name}` either waits and then sees this job
 * (409), or has already removed the secret and this write fails.
 */
@Injectable()
export class SinkTemplateChecker {
  constructor(private readonly secrets: SecretsRepository) {}

  async check(workspaceId: string, sinkKind: string, sinkConfig: Record<string, unknown>, manager: Tx): Promise<void> {
    if (sinkKind !== 'webhook') {
      return;
    }
    const config = sinkConfig as TemplatableConfig;
    const existing = await this.secrets.lockExisting(workspaceId, collectSecretNames(config), manager);
    const fields = validateTemplates(config, { secretNames: existing });
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
  }
}
