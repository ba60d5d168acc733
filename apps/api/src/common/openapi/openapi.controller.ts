import { Controller, Get, Header } from '@nestjs/common';
import { Public } from '../auth/auth.decorators';
import { ApiOperation } from './openapi.decorators';
import { OpenApiService } from './openapi.service';

/** The machine-readable description (spec → Versioning 5); public, like the schedule endpoints. */
@Public()
@Controller('api/v1')
export class OpenApiController {
  constructor(private readonly openapi: OpenApiService) {}

  @Get('openapi.yaml')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  @ApiOperation('This OpenAPI 3.1 document, as YAML', {
    // YAML is read into data like JSON is, so the schema describes the parsed document.
    200: { description: 'The document', schema: { type: 'object' }, contentType: 'application/yaml' },
  })
  yaml(): string {
    return this.openapi.yaml();
  }

  @Get('openapi.json')
  @ApiOperation('This OpenAPI 3.1 document, as JSON', {
    200: { description: 'The document', schema: { type: 'object' } },
  })
  json() {
    return this.openapi.json();
  }
}
