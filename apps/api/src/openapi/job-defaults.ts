import { JOB_DEFAULTS } from '../jobs/job-patch';
import type { JsonSchema } from '../common/openapi/schema';

type Properties = Record<string, JsonSchema>;

/**
 * Sets `default` on each named property of a component, when the document has it (one built from
 * some routes only may not); a property the schema lacks is a bug here.
 */
function setDefaults(components: Record<string, JsonSchema>, name: string, defaults: object): void {
  const properties = (components[name] as { properties?: Properties } | undefined)?.properties;
  if (!properties) {
    return;
  }
  for (const [field, value] of Object.entries(defaults)) {
    if (!properties[field]) {
      throw new Error(`OpenAPI: ${name} has no property ${field} for its default`);
    }
    properties[field] = { ...properties[field], default: value };
  }
}

/**
 * The create body's defaults as `default` keywords, from `JOB_DEFAULTS`, the one table a create
 * and a PATCH's `null` apply: the typed client (`CREATE_JOB_DEFAULTS`, libs/api-client) and so the
 * dashboard's new-job form read them from here. A sink's config schema states its own.
 */
export function applyJobDefaults(components: Record<string, JsonSchema>): void {
  const { schedule, retry, ...topLevel } = JOB_DEFAULTS;
  setDefaults(components, 'CreateJobDto', topLevel);
  setDefaults(components, 'ScheduleDto', schedule);
  setDefaults(components, 'RetryDto', retry);
}
