import type { HttpAdapterHost, ModulesContainer } from '@nestjs/core';
import { defaultSinkRegistry } from '@svc/delivery';
import Fastify from 'fastify';
import { parse } from 'yaml';
import { kitConfig } from '../../../../test/kit';
import { trackRoutes } from '../common/openapi/fastify-routes';
import { OpenApiService } from './openapi.service';

/**
 * OpenApiService over a bare Fastify instance (openapi.spec.ts checks the document of the whole
 * assembled API): the document lists the routes this process registered (HEAD left out), is
 * built once and kept, its YAML is the same document, and its version and server are the
 * configuration's.
 */
describe('OpenApiService', () => {
  const serviceOver = (register: (fastify: ReturnType<typeof Fastify>) => void, config = kitConfig()) => {
    const fastify = Fastify();
    trackRoutes(fastify);
    register(fastify);
    const adapterHost = { httpAdapter: { getInstance: () => fastify } } as unknown as HttpAdapterHost;
    return new OpenApiService(adapterHost, new Map() as unknown as ModulesContainer, config, defaultSinkRegistry());
  };

  it('should list the routes registered on the server, each method once, HEAD left out', () => {
    const service = serviceOver((fastify) => {
      fastify.get('/api/v1/things/:id', { config: { openapi: { summary: 'Get a thing', tag: 'things' } } }, () => ({}));
      fastify.delete('/api/v1/things/:id', () => null);
    });
    const doc = service.json();
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/things/{id}']);
    expect(Object.keys(doc.paths['/api/v1/things/{id}']).sort()).toEqual(['delete', 'get']);
    expect(doc.paths['/api/v1/things/{id}'].get).toMatchObject({ summary: 'Get a thing', tags: ['things'] });
  });

  it('should build the document once and keep it (routes do not change while the server runs)', () => {
    let register!: () => void;
    const service = serviceOver((fastify) => {
      fastify.get('/first', () => ({}));
      register = () => fastify.get('/later', () => ({}));
    });
    const first = service.json();
    register();
    expect(service.json()).toBe(first);
    expect(Object.keys(first.paths)).toEqual(['/first']);
  });

  it('should answer the same document as YAML', () => {
    const service = serviceOver((fastify) => fastify.get('/api/v1/things', () => ({})));
    expect(parse(service.yaml())).toEqual(JSON.parse(JSON.stringify(service.json())));
    expect(service.yaml()).toBe(service.yaml());
  });

  it("should carry the configuration's version and public URL", () => {
    const config = kitConfig({ public_url: 'https://jobs.example.com' });
    const doc = serviceOver((fastify) => fastify.get('/x', () => ({})), config).json();
    expect((doc.info as { version: string }).version).toBe(config.version);
    expect(doc.servers).toEqual([expect.objectContaining({ url: 'https://jobs.example.com' })]);
  });
});
