import type { AppConfig } from '@svc/common';
import { defaultSinkRegistry } from '@svc/delivery';
import { type JobLifecycle, sinkServices } from '@svc/orchestration';
import { JobScheduleValidator } from '../../apps/api/src/jobs/job-schedule.validator';
import { JobSettingsFactory } from '../../apps/api/src/jobs/job-settings.factory';
import { RunOverridesValidator } from '../../apps/api/src/jobs/run-overrides.validator';
import { SinkTemplateChecker } from '../../apps/api/src/jobs/sink-templates.checker';
import { SinkValidator } from '../../apps/api/src/jobs/sink.validator';
import type { FakeTemporal } from './fake-temporal';
import { kitConfig, lifecycleOver } from './fixtures';
import type { InMemoryDatabase } from './in-memory-database';

/**
 * The jobs module's collaborators as `JobsModule` wires them, over the in-memory kit: the real
 * validators (schedule, sink, templates, overrides), the real settings factory and the real
 * lifecycle. Sink kinds that would reach Temporal through the API's connection cannot here.
 */
export function jobsApiOver(db: InMemoryDatabase, temporal: FakeTemporal, config: AppConfig = kitConfig()) {
  const { transactions, secrets, calendars, workspaces } = db.repositories;
  const registry = defaultSinkRegistry();
  const services = sinkServices(config, () => {
    throw new Error('no Temporal connection in a unit spec');
  });
  const schedules = new JobScheduleValidator(calendars);
  const sinks = new SinkValidator(config, registry, services, workspaces);
  const templates = new SinkTemplateChecker(secrets, registry);
  const lifecycle: JobLifecycle = lifecycleOver(db, temporal, config);
  return {
    config,
    registry,
    lifecycle,
    schedules,
    sinks,
    templates,
    settingsFactory: new JobSettingsFactory(schedules, sinks, templates, transactions),
    overrides: new RunOverridesValidator(registry, sinks, templates, transactions),
  };
}
