import {
  arrayOf,
  boolean,
  enumOf,
  integer,
  named,
  nullable,
  object,
  string,
  timestamp,
} from '../common/openapi/schema';

export const HEALTH_SCHEMA = named('Health', object({ status: enumOf(['ok']) }));

/** `/readyz`: the same body with `200` (ready) and `503` (not ready). */
export const READINESS_SCHEMA = named(
  'Readiness',
  object({
    status: enumOf(['ready', 'unavailable']),
    dispatcher: enumOf(['starting', 'active', 'standby', 'stopped']),
    queue: boolean,
    heartbeat: nullable(timestamp),
    writer_backpressure: boolean,
    sqlite_writable: { ...boolean, description: 'Kept for the spec: PostgreSQL accepts writes here.' },
    database_writable: boolean,
    temporal: boolean,
    stalled_runs: {
      ...nullable(integer),
      description:
        'Runs open with no progress past scheduler.stalled_run_grace (no first attempt, or a retry long due); the worker starts or closes them. Informational: does not make the service unready. Null when the database cannot be read.',
    },
    temporal_error: {
      ...nullable(string),
      description:
        'Why Temporal did not answer, in one line naming the cause (untrusted server certificate, rejected client certificate or API key, unknown namespace, unreachable); null when it answered.',
    },
    database_error: {
      ...nullable(string),
      description:
        'Why PostgreSQL does not accept writes, in one line naming the cause (unreachable, starting up, a read-only standby); null when it does.',
    },
    service_degraded: {
      ...arrayOf(
        object({
          dependency: enumOf(['temporal', 'postgres', 'worker_polling', 'schedule_lag']),
          cause: { ...nullable(string), description: 'What is out, as service alerts say it (never hosts or ports).' },
          since: { ...timestamp, description: 'When the earliest reporting worker saw it start failing.' },
          degraded_at: { ...timestamp, description: 'When it counted as degraded (alerts.service_degraded_after).' },
          observed_at: { ...timestamp, description: 'The latest report.' },
          workers: { ...integer, description: 'How many workers report it.' },
        }),
      ),
      description:
        "What the workers' health probes see degraded (the state of svc_service_degraded and service.degraded alerts), from reports of the last 30 s. Empty when nothing is, or when PostgreSQL cannot be read (database_writable says so; a worker cannot report PostgreSQL's own outage there). Informational: does not change status.",
    },
  }),
);

export const VERSION_SCHEMA = named(
  'Version',
  object({ version: string, commit: string, build_date: string, edition: enumOf(['oss']) }),
);

export const FEATURES_SCHEMA = named(
  'Features',
  object({
    public_url: string,
    auth: object({ providers: arrayOf(string), dev_login: boolean }),
    sinks: {
      ...object({ webhook: boolean, command: boolean, temporal_workflow: boolean }),
      additionalProperties: boolean,
      description: 'Each registered sink kind: whether this server accepts it.',
    },
    sink_kinds: {
      ...arrayOf(
        object({
          kind: string,
          label: string,
          description: string,
          enabled: boolean,
          fields: arrayOf(
            object(
              {
                name: string,
                label: string,
                type: enumOf(['text', 'textarea', 'number', 'select', 'checkbox', 'json', 'lines', 'map']),
                required: boolean,
                options: arrayOf(string),
                placeholder: string,
                help: string,
              },
              ['required', 'options', 'placeholder', 'help'],
            ),
          ),
          config_schema: { type: 'object', description: 'The JSON Schema of `sink.config` for this kind.' },
        }),
      ),
      description: 'The registered sink kinds with their form fields (the dashboard builds its job form from them).',
    },
  }),
);
