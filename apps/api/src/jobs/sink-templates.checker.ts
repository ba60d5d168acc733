import { Injectable } from '@nestjs/common';
import { ValidationFailedError } from '@svc/common';
import { findTemplateReferences, secretsUsedBy, SinkRegistry, validateTemplates } from '@svc/delivery';
import { SecretsRepository, type Tx } from '@svc/persistence';

/**
 * Templates of a sink (decisions.md → Templates): `{{…}}` only in the fields its kind lists
 * (`templateFields`: a webhook's header values and body, a workflow's `args` and id), only known
 * variables, and `{{secret.NAME}}` only for secrets the workspace holds. Otherwise
 * `400 validation_failed` naming each field (`sink.config.headers.X-Token`, `sink.config.body`).
 *
 * Runs inside the job's write transaction: the referenced secrets are locked `FOR KEY SHARE`
 * until it commits, so a concurrent `DELETE /secrets/{name}` either waits and then sees this job
 * (409), or has already removed the secret and this write fails.
 */
@Injectable()
export class SinkTemplateChecker {
  constructor(
    private readonly secrets: SecretsRepository,
    private readonly registry: SinkRegistry,
  ) {}

  async check(workspaceId: string, sinkKind: string, sinkConfig: Record<string, unknown>, manager: Tx): Promise<void> {
    const kind = this.registry.get(sinkKind);
    if (!kind) {
      return;
    }
    // The same secrets DELETE /secrets/{name} looks for (one home: secretsUsedBy).
    const used = secretsUsedBy(this.registry, sinkKind, sinkConfig);
    const existing = await this.secrets.lockExisting(workspaceId, used, manager);
    const missing = used.filter((name) => !existing.includes(name));
    const texts = kind.templateFields(sinkConfig);
    const fields: Record<string, string> = {};
    for (const [path, text] of Object.entries(texts)) {
      // One field at a time, keyed by the kind's own path (the message format is the webhook's).
      const errors = validateTemplates({ body: text }, { secretNames: existing, basePath: '' });
      if (errors['.body']) {
        fields[path] = errors['.body'];
      }
    }
    // A secret the kind uses outside its templates (its own `secretNames`) must exist too.
    const templated = new Set(
      Object.values(texts).flatMap((text) =>
        findTemplateReferences(text).flatMap((ref) => (ref.kind === 'secret' ? [ref.name] : [])),
      ),
    );
    const untemplated = missing.filter((name) => !templated.has(name));
    if (untemplated.length > 0) {
      fields['sink.config'] =
        `unknown secret${untemplated.length > 1 ? 's' : ''} ${untemplated.map((n) => `"${n}"`).join(', ')}`;
    }
    if (Object.keys(fields).length > 0) {
      throw new ValidationFailedError(fields);
    }
  }
}
