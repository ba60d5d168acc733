import { Injectable, PipeTransform } from '@nestjs/common';
import { NotFoundError } from '@svc/common';
import { ID_PREFIXES, type IdKind, isId } from '@svc/workflow-contract/ids';

/** A malformed id can't name anything: answer 404 before touching the database. */
@Injectable()
export class IdParamPipe implements PipeTransform<string, string> {
  /** The parameter in the OpenAPI document: the id format this pipe lets through. */
  readonly jsonSchema: { type: 'string'; pattern: string };

  constructor(
    private readonly kind: IdKind,
    private readonly what: string,
  ) {
    this.jsonSchema = { type: 'string', pattern: `^${ID_PREFIXES[kind]}_[0-9A-HJKMNP-TV-Z]{26}$` };
  }
  transform(value: string): string {
    if (!isId(this.kind, value)) {
      throw new NotFoundError(this.what);
    }
    return value;
  }
}

export const JobIdPipe = new IdParamPipe('job', 'Job');
export const RunIdPipe = new IdParamPipe('run', 'Run');
export const ApiKeyIdPipe = new IdParamPipe('apiKey', 'API key');
export const WorkspaceIdPipe = new IdParamPipe('workspace', 'Workspace');
export const OperationIdPipe = new IdParamPipe('operation', 'Operation');
export const BackfillIdPipe = new IdParamPipe('backfill', 'Backfill');
