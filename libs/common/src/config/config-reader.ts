import { isIP } from 'node:net';
import { parseDuration } from '../durations';
import { getPath, type Raw } from './config-env';

/** Temporal namespace names as this service accepts them. */
export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
/** A task-queue pattern: a task-queue name in which `*` matches any run of characters. */
const TASK_QUEUE_GLOB = /^[A-Za-z0-9*][A-Za-z0-9._:/*-]{0,199}$/;

/**
 * Typed reads of config paths: a value of the wrong shape is recorded in `problems` and the
 * fallback used, so every bad key is reported at once.
 */
export class ConfigReader {
  readonly problems: string[] = [];

  constructor(private readonly raw: Raw) {}

  readonly get = (path: string): unknown => getPath(this.raw, path);
  readonly str = (path: string, fallback: string): string => {
    const v = this.get(path);
    if (v === undefined || v === null) {
      return fallback;
    }
    if (typeof v !== 'string' && typeof v !== 'number') {
      this.problems.push(`${path}: expected a string`);
      return fallback;
    }
    return String(v);
  };
  readonly int = (path: string, fallback: number, min = 0): number => {
    const v = this.get(path);
    if (v === undefined || v === null) {
      return fallback;
    }
    const n = typeof v === 'number' ? v : Number(v);
    if (!Number.isInteger(n) || n < min) {
      this.problems.push(`${path}: expected an integer >= ${min}`);
      return fallback;
    }
    return n;
  };
  readonly bool = (path: string, fallback: boolean): boolean => {
    const v = this.get(path);
    if (v === undefined || v === null) {
      return fallback;
    }
    if (typeof v === 'boolean') {
      return v;
    }
    if (v === 'true' || v === '1') {
      return true;
    }
    if (v === 'false' || v === '0') {
      return false;
    }
    this.problems.push(`${path}: expected true or false`);
    return fallback;
  };
  readonly duration = (path: string, fallback: number): number => {
    const v = this.get(path);
    if (v === undefined || v === null) {
      return fallback;
    }
    const ms = typeof v === 'string' ? parseDuration(v) : null;
    if (ms === null) {
      this.problems.push(`${path}: expected a duration such as 30s or 1h30m`);
      return fallback;
    }
    return ms;
  };
  /** A list of DNS servers: a YAML list, or a comma-separated string (environment). */
  readonly dnsServers = (path: string): string[] => {
    const v = this.get(path);
    if (v === undefined || v === null || v === '') {
      return [];
    }
    const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()) : v;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && isDnsServer(x))) {
      this.problems.push(`${path}: expected a list of DNS server addresses (ip, ip:port or [ipv6]:port)`);
      return [];
    }
    return list as string[];
  };
  /** A list of strings: an array, or one comma-separated string (environment variables). */
  readonly strings = (path: string, valid: (item: string) => boolean, expected: string): string[] => {
    const v = this.get(path);
    if (v === undefined || v === null || v === '') {
      return [];
    }
    const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()) : v;
    if (!Array.isArray(list) || !list.every((x) => typeof x === 'string' && valid(x))) {
      this.problems.push(`${path}: expected ${expected}`);
      return [];
    }
    return list as string[];
  };
  /**
   * Namespace → task-queue patterns: a YAML map of lists, or (environment) `ns=a,b*;ns2=c`.
   * A namespace listed with no pattern allows no queue.
   */
  readonly taskQueuePatterns = (path: string): Record<string, string[]> => {
    const v = this.get(path);
    if (v === undefined || v === null || v === '') {
      return {};
    }
    const entries =
      typeof v === 'string'
        ? v
            .split(';')
            .map((item) => item.trim())
            .filter((item) => item !== '')
            .map((item) => {
              const at = item.indexOf('=');
              return at < 0
                ? [item, null]
                : [
                    item.slice(0, at).trim(),
                    item
                      .slice(at + 1)
                      .split(',')
                      .map((x) => x.trim())
                      .filter((x) => x !== ''),
                  ];
            })
        : typeof v === 'object' && !Array.isArray(v)
          ? Object.entries(v as Raw)
          : null;
    const out: Record<string, string[]> = {};
    const valid =
      entries !== null &&
      entries.every(([namespace, patterns]) => {
        const list = typeof patterns === 'string' ? patterns.split(',').map((x) => x.trim()) : patterns;
        if (
          typeof namespace !== 'string' ||
          !NAMESPACE_NAME.test(namespace) ||
          !Array.isArray(list) ||
          !list.every((p) => typeof p === 'string' && TASK_QUEUE_GLOB.test(p))
        ) {
          return false;
        }
        out[namespace] = list as string[];
        return true;
      });
    if (!valid) {
      this.problems.push(
        `${path}: expected namespace → list of task-queue patterns (letters, digits, . _ : / - and *), e.g. SINKS_TEMPORAL_WORKFLOW_TASK_QUEUES='default=reports-*,etl'`,
      );
      return {};
    }
    return out;
  };
  readonly oneOf = <T extends string>(path: string, values: readonly T[], fallback: T): T => {
    const v = this.str(path, fallback);
    if (!(values as readonly string[]).includes(v)) {
      this.problems.push(`${path}: expected one of ${values.join(', ')}`);
      return fallback;
    }
    return v as T;
  };
}

/** `1.1.1.1`, `1.1.1.1:53`, `2606:4700:4700::1111` or `[2606:4700:4700::1111]:53`. */
function isDnsServer(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) {
    return isIP(bracketed[1]) === 6 && validPort(bracketed[2]);
  }
  if (isIP(text) !== 0) {
    return true;
  }
  const hostPort = /^([^:]+):(\d{1,5})$/.exec(text);
  return hostPort !== null && isIP(hostPort[1]) === 4 && validPort(hostPort[2]);
}

function validPort(port: string | undefined): boolean {
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}
