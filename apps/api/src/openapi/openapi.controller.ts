import { Controller, Get, Header, Res } from '@nestjs/common';
import { UnavailableError } from '@svc/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/auth.decorators';
import { type ApiDocsPage, loadApiDocs } from './api-docs';
import { ApiOperation } from '../common/openapi/openapi.decorators';
import { OpenApiService } from './openapi.service';

/** The machine-readable description (spec → Versioning 5); public, like the schedule endpoints. */
@Public()
@Controller('api/v1')
export class OpenApiController {
  private readonly docsPage: ApiDocsPage | null = loadApiDocs();

  constructor(private readonly openapi: OpenApiService) {}

  @Get('docs')
  @ApiOperation('The API reference: this document rendered as one HTML page (loads nothing from elsewhere)', {
    200: { description: 'The page', schema: { type: 'string' }, contentType: 'text/html' },
  })
  docs(@Res({ passthrough: true }) reply: FastifyReply): Buffer {
    if (!this.docsPage) {
      throw new UnavailableError('The API reference is not built: run npm run build.');
    }
    void reply.header('Content-Security-Policy', this.docsPage.csp);
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('Referrer-Policy', 'same-origin');
    void reply.header('Cache-Control', 'no-cache');
    void reply.type('text/html; charset=utf-8');
    return this.docsPage.html;
  }

  @Get('openapi.yaml')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @ApiOperation('This OpenAPI 3.1 document, as YAML', {
    // YAML is read into data like JSON is, so the schema describes the parsed document.
    200: { description: 'The document', schema: { type: 'object' }, contentType: 'application/yaml' },
  })
  yaml(): string {
    return this.openapi.yaml();
  }

  /** What editors and `svc apply` validate a jobs file with; public, like this document. */
  @Get('schemas/jobs-file.json')
  @ApiOperation('The JSON Schema of a jobs file (svc apply -f), generated from this document', {
    200: { description: 'A JSON Schema (draft 2020-12)', schema: { type: 'object' } },
  })
  jobsFileSchema() {
    return this.openapi.jobsFileSchema();
  }

  @Get('openapi.json')
  @ApiOperation('This OpenAPI 3.1 document, as JSON', {
    200: { description: 'The document', schema: { type: 'object' } },
  })
  json() {
    return this.openapi.json();
  }
}
