/**
 * A job's settings: the writable fields of a job (the create body of `POST /api/v1/jobs`), in that
 * body's order. The API's PATCH merge (apps/api/src/jobs/job-patch.ts) and the jobs file of `svc`
 * (apps/cli/src/commands/jobs-file.ts) both read them from here.
 */
export const JOB_SETTING_FIELDS = [
  'name',
  'description',
  'tags',
  'schedule',
  'sink',
  'retry',
  'timeout',
  'sla_threshold',
  'misfire_policy',
  'overlap_policy',
  'auto_disable_threshold',
  'start_window',
  'max_concurrent_runs',
] as const;

export type JobSettingField = (typeof JOB_SETTING_FIELDS)[number];
