import { IsOptional } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsPlainObject } from '../../common/validators';
import { OptionalBody } from '../../common/validation';

const OVERRIDES_CHECK =
  'fields of the job’s sink for this run only: webhook `{body?, headers?, vars?}`, temporal_workflow ' +
  '`{args?, memo?, search_attributes?}`; the sink with them applied passes the job’s own sink validation ' +
  '(templates, existing `{{secret.NAME}}`), errors named `overrides.<field>`';

/** A trigger's or manual retry's body (docs/api.md → Per-run overrides); no body is `{}`. */
@OptionalBody()
export class ManualRunDto {
  /** One-off changes of the job's sink for this run; recorded on the run, never stored in the job. */
  @IsOptional()
  @IsPlainObject()
  @JSONSchema({
    description:
      'One-off changes of the job’s sink for this run: webhook `body` (a body template), `headers` (merged by name), ' +
      '`vars` (values for `{{vars.NAME}}` in these overrides); temporal_workflow `args`, `memo`, `search_attributes` ' +
      '(objects merged key by key). Recorded on the run (`overrides`) and in the audit log, never stored in the job.',
    'x-server-check': OVERRIDES_CHECK,
  })
  overrides?: Record<string, unknown>;
}
