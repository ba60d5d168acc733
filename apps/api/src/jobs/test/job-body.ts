import type { CreateJobDto } from '../dto/job-body.dto';

/** The create body of an hourly webhook job named `name`, with `extra` over it. */
export const webhookJobBody = (name: string, extra: Partial<CreateJobDto> = {}) =>
  ({
    name,
    schedule: { expr: 'every 1 hour' },
    sink: { kind: 'webhook', config: { url: 'https://example.com/hook' } },
    ...extra,
  }) as CreateJobDto;
