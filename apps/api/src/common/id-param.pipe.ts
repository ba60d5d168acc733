import { Injectable, PipeTransform } from '@nestjs/common';
import { type IdKind, isId, NotFoundError } from '@svc/common';

/** A malformed id can't name anything: answer 404 before touching the database. */
@Injectable()
export class IdParamPipe implements PipeTransform<string, string> {
  constructor(
    private readonly kind: IdKind,
    private readonly what: string,
  ) {}
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
