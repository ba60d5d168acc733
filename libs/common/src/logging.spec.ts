import {
  addLogFields,
  createLogger,
  type LogLevelName,
  pinoLevelOfNestLevels,
  REDACTED,
  REDACTED_CONTAINERS,
  REDACTED_KEYS,
  runWithLogFields,
} from './logging';
import { PinoNestLogger } from './nest-logger';

/** A logger whose lines land in `lines` (raw) for the test to parse. */
function capture(level: LogLevelName = 'trace') {
  const lines: string[] = [];
  const logger = createLogger({ name: 'test', level, destination: { write: (line: string) => lines.push(line) } });
  const parsed = () => lines.map((line) => JSON.parse(line) as Record<string, any>);
  return { logger, lines, parsed };
}

/** A distinct, recognisable value per field name. */
const secretFor = (key: string, where = 'top') => `s3cr3t-${where}-${key}`;

describe('logging (docs/operations.md → Logs)', () => {
  describe('redaction', () => {
    it('should censor the payload codec keys of a logged config (issue #20)', () => {
      const { logger, lines } = capture();
      const key = Buffer.from('payload codec test key number 1!').toString('base64');
      logger.info({ config: { temporal: { address: 'x:7233', codec: { keys: { k1: key } } } } }, 'config');
      expect(lines.join('')).not.toContain(key);
      expect(lines.join('')).toContain('x:7233');
    });

    it('should censor the Temporal connection (API key, TLS key) of a logged config (issue #20)', () => {
      const { logger, lines } = capture();
      const connection = { api_key: 'temporal-api-key-1', tls: { client_key: 'PRIVATE-KEY-BYTES' }, grpc_meta: {} };
      logger.info({ config: { temporal: { address: 'x:7233', connection } } }, 'config');
      expect(lines.join('')).not.toContain('temporal-api-key-1');
      expect(lines.join('')).not.toContain('PRIVATE-KEY-BYTES');
      expect(lines.join('')).toContain('x:7233');
    });

    it('should censor every sensitive field at the top of a line', () => {
      const { logger, lines, parsed } = capture();
      logger.info(Object.fromEntries(REDACTED_KEYS.map((key) => [key, secretFor(key)])), 'every sensitive field');
      const [line] = parsed();
      for (const key of REDACTED_KEYS) {
        expect([key, line[key]]).toEqual([key, REDACTED]);
      }
      for (const key of REDACTED_KEYS) {
        expect(lines[0]).not.toContain(secretFor(key));
      }
    });

    it('should censor them one and two levels down in every container (errors, sinks, jobs, requests …)', () => {
      const { logger, lines, parsed } = capture();
      const nested = (where: string) => Object.fromEntries(REDACTED_KEYS.map((key) => [key, secretFor(key, where)]));
      logger.warn(
        Object.fromEntries(
          REDACTED_CONTAINERS.map((container) => [
            container,
            { ...nested(`${container}-1`), inner: nested(`${container}-2`) },
          ]),
        ),
        'nested',
      );
      const [line] = parsed();
      for (const container of REDACTED_CONTAINERS) {
        for (const key of REDACTED_KEYS) {
          expect([container, key, line[container][key]]).toEqual([container, key, REDACTED]);
          expect([container, 'inner', key, line[container].inner[key]]).toEqual([container, 'inner', key, REDACTED]);
        }
      }
      expect(lines[0]).not.toContain('s3cr3t');

      // A container that is a list (`args`): its items are the next level down.
      logger.warn(Object.fromEntries(REDACTED_CONTAINERS.map((c) => [c, [nested(`${c}-item`)]])), 'lists');
      const lists = JSON.parse(lines[1]);
      for (const container of REDACTED_CONTAINERS) {
        for (const key of REDACTED_KEYS) {
          expect([container, 0, key, lists[container][0][key]]).toEqual([container, 0, key, REDACTED]);
        }
      }
      expect(lines[1]).not.toContain('s3cr3t');
    });

    it('should censor the shapes the service has: headers, sink config, signing secrets, errors', () => {
      const { logger, lines, parsed } = capture();
      const err = Object.assign(new Error('request failed'), {
        headers: { authorization: 'Bearer sjs_leakedKEY' },
        cause: { 'x-api-key': 'leaked-x-api-key' },
      });
      logger.error(
        {
          err,
          sink: { kind: 'webhook', config: { url: 'https://example.com/hook', headers: { 'X-Token': 'leaked-hdr' } } },
          job: { id: 'job_1', signingSecrets: [{ secret: 'whsec_leaked', expires_at: null }] },
          request: { method: 'POST', cookie: 'svc_session=leaked-cookie' },
          signing_secret: 'whsec_leaked2',
        },
        'delivery failed',
      );
      const [line] = parsed();
      expect(line.err).toMatchObject({ type: 'Error', message: 'request failed', headers: REDACTED });
      expect(line.err.cause).toEqual({ 'x-api-key': REDACTED });
      expect(line.sink).toEqual({ kind: 'webhook', config: { url: 'https://example.com/hook', headers: REDACTED } });
      expect(line.job).toEqual({ id: 'job_1', signingSecrets: REDACTED });
      expect(line.request).toEqual({ method: 'POST', cookie: REDACTED });
      expect(line.signing_secret).toBe(REDACTED);
      expect(lines[0]).not.toMatch(/leaked|whsec_/);
    });

    it('should leave ordinary fields alone', () => {
      const { logger, parsed } = capture();
      logger.info({ method: 'GET', route: '/api/v1/jobs/:id', status: 200, duration_ms: 3.5, job_id: 'job_1' }, 'x');
      expect(parsed()[0]).toMatchObject({
        level: 'info',
        name: 'test',
        method: 'GET',
        route: '/api/v1/jobs/:id',
        status: 200,
        duration_ms: 3.5,
        job_id: 'job_1',
        msg: 'x',
      });
      expect(new Date(parsed()[0].time).toISOString()).toBe(parsed()[0].time);
    });
  });

  describe('context fields', () => {
    it('should put the fields of the current request or activity on every line, learnt ones included', async () => {
      const { logger, parsed } = capture();
      logger.info('outside');
      await runWithLogFields({ request_id: 'req-1' }, async () => {
        logger.info('first');
        await Promise.resolve();
        addLogFields({ workspace_id: 'ws_1', attempt: 0 });
        logger.info({ request_id: 'explicit wins' }, 'second');
        logger.info('third');
      });
      addLogFields({ workspace_id: 'nowhere' }); // outside any context: no-op
      logger.info('after');
      const lines = parsed();
      expect(lines.map((l) => [l.msg, l.request_id, l.workspace_id, l.attempt])).toEqual([
        ['outside', undefined, undefined, undefined],
        ['first', 'req-1', undefined, undefined],
        ['second', 'explicit wins', 'ws_1', 0],
        ['third', 'req-1', 'ws_1', 0],
        ['after', undefined, undefined, undefined],
      ]);
    });

    it('should censor sensitive context fields too', () => {
      const { logger, lines } = capture();
      runWithLogFields({ request_id: 'r', token: 'ctx-token-value' }, () => logger.info('x'));
      expect(JSON.parse(lines[0]).token).toBe(REDACTED);
      expect(lines[0]).not.toContain('ctx-token-value');
    });
  });

  describe('PinoNestLogger', () => {
    it("should write Nest's calls as JSON lines with their context", () => {
      const { logger, parsed } = capture();
      const nest = new PinoNestLogger(logger);
      nest.log('Mapped {/api/v1/jobs, POST} route', 'RouterExplorer');
      nest.warn('plain warning');
      nest.error('Something broke', 'Error: Something broke\n    at x', 'ExceptionsHandler');
      nest.error('no stack', undefined, 'Worker');
      const err = new Error('db down');
      nest.error({ err, request_id: 'req-9', url: '/api/v1/jobs' }, err.stack, 'ErrorFilter');
      nest.debug('details', 'JobsService');
      nest.verbose('more details', 'JobsService');
      nest.fatal(new Error('fatal one'));
      const lines = parsed();
      expect(lines[0]).toMatchObject({
        level: 'info',
        context: 'RouterExplorer',
        msg: 'Mapped {/api/v1/jobs, POST} route',
      });
      expect(lines[1]).toMatchObject({ level: 'warn', msg: 'plain warning' });
      expect(lines[1].context).toBeUndefined();
      expect(lines[2]).toMatchObject({ level: 'error', context: 'ExceptionsHandler', msg: 'Something broke' });
      expect(lines[2].stack).toContain('at x');
      expect(lines[3]).toEqual(expect.objectContaining({ level: 'error', context: 'Worker', msg: 'no stack' }));
      expect(lines[3].params).toBeUndefined();
      expect(lines[4]).toMatchObject({ level: 'error', context: 'ErrorFilter', request_id: 'req-9', msg: 'db down' });
      expect(lines[4].err).toMatchObject({ type: 'Error', message: 'db down' });
      expect(lines[5]).toMatchObject({ level: 'debug', context: 'JobsService', msg: 'details' });
      expect(lines[6]).toMatchObject({ level: 'trace', context: 'JobsService', msg: 'more details' });
      expect(lines[7]).toMatchObject({ level: 'fatal', msg: 'fatal one', err: { message: 'fatal one' } });
    });

    it("should honour the logger's level and Nest's level lists", () => {
      const { logger, parsed } = capture('warn');
      const nest = new PinoNestLogger(logger);
      nest.log('not written');
      nest.warn('written');
      nest.setLogLevels(['error']);
      nest.warn('not written either');
      nest.error('written too');
      expect(parsed().map((l) => l.msg)).toEqual(['written', 'written too']);
    });
  });

  it('should map Nest level lists to the pino threshold that writes them all', () => {
    expect(pinoLevelOfNestLevels([])).toBe('silent');
    expect(pinoLevelOfNestLevels(['error'])).toBe('error');
    expect(pinoLevelOfNestLevels(['error', 'warn', 'log'])).toBe('info');
    expect(pinoLevelOfNestLevels(['log', 'error', 'warn', 'debug', 'verbose'])).toBe('trace');
  });
});
