import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import {
  type PendingServiceAlert,
  SERVICE_DEPENDENCIES,
  type ServiceAlertJournal,
  type ServiceDegradation,
  type ServiceDependency,
} from '@svc/common/service-health';

/** The transitions not yet recorded, one JSON object a line, oldest first. */
export const SERVICE_ALERTS_FILE = 'service-alerts.jsonl';
/** The degradations this worker has told and not yet seen recover. */
export const SERVICE_HEALTH_FILE = 'service-health.json';
/** The pid of the worker process that owns the folder. */
export const STATE_LOCK_FILE = 'worker.pid';

export interface JournalContents {
  alerts: PendingServiceAlert[];
  degradations: ServiceDegradation[];
  /** Lines that could not be read (a write cut short by a crash); left out. */
  unreadable: number;
}

/**
 * The worker's service-health state on disk (docs/alerts.md → Service events), in its state
 * folder (`worker.state_dir`): the transitions waiting to be recorded as alert events, appended
 * and fsynced before anything is tried with them, rewritten (a new file, fsynced, renamed over)
 * when some were recorded; and the degradations told and not yet recovered, so a worker killed
 * during an outage — PostgreSQL's above all, when nothing can be recorded — tells it, and its end,
 * once started again. Recording is idempotent by the transition's id, so a crash between the
 * insert and the rewrite records nothing twice.
 *
 * One worker process per folder: `open` takes it (a pid file) unless a live process holds it,
 * then the journal stays off and the transitions wait in memory only, as a warning says.
 */
export class ServiceHealthJournal implements ServiceAlertJournal {
  private enabled = false;
  private failureTold = false;

  constructor(
    private readonly dir: string,
    private readonly warn: (message: string) => void,
    private readonly pid = process.pid,
  ) {}

  get active(): boolean {
    return this.enabled;
  }

  /** Takes the folder and reads what an earlier process left; null (journal off) when it cannot. */
  open(): JournalContents | null {
    try {
      mkdirSync(this.dir, { recursive: true });
      const owner = this.owner();
      if (owner !== null && owner !== this.pid && processAlive(owner)) {
        this.warn(
          `service alerts: ${this.dir} is used by worker pid ${owner}; transitions seen while PostgreSQL is out are kept in memory only (give each worker its own worker.state_dir)`,
        );
        return null;
      }
      writeDurably(join(this.dir, STATE_LOCK_FILE), `${this.pid}\n`);
      const contents = this.read();
      this.enabled = true;
      return contents;
    } catch (err) {
      this.failed(err);
      return null;
    }
  }

  append(alert: PendingServiceAlert): void {
    this.write(() => {
      const fd = openSync(join(this.dir, SERVICE_ALERTS_FILE), 'a');
      try {
        writeSync(fd, `${JSON.stringify(alert)}\n`);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    });
  }

  replace(alerts: readonly PendingServiceAlert[]): void {
    this.write(() =>
      writeDurably(join(this.dir, SERVICE_ALERTS_FILE), alerts.map((alert) => `${JSON.stringify(alert)}\n`).join('')),
    );
  }

  saveDegradations(degradations: readonly ServiceDegradation[]): void {
    this.write(() => writeDurably(join(this.dir, SERVICE_HEALTH_FILE), `${JSON.stringify(degradations)}\n`));
  }

  /** Lets the folder go (a clean stop); what waits stays for the next start. */
  close(): void {
    if (this.enabled && this.owner() === this.pid) {
      rmSync(join(this.dir, STATE_LOCK_FILE), { force: true });
    }
    this.enabled = false;
  }

  private write(action: () => void): void {
    if (!this.enabled) {
      return;
    }
    try {
      action();
      this.failureTold = false;
    } catch (err) {
      this.failed(err);
    }
  }

  private failed(err: unknown): void {
    if (!this.failureTold) {
      this.warn(
        `service alerts: cannot keep transitions in ${this.dir} (${(err as Error).message}); they wait in memory only`,
      );
    }
    this.failureTold = true;
  }

  private owner(): number | null {
    const text = readIfExists(join(this.dir, STATE_LOCK_FILE));
    const pid = text === null ? NaN : Number(text.trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  }

  private read(): JournalContents {
    let unreadable = 0;
    const alerts: PendingServiceAlert[] = [];
    for (const line of (readIfExists(join(this.dir, SERVICE_ALERTS_FILE)) ?? '').split('\n')) {
      if (line.trim() === '') {
        continue;
      }
      const alert = parseAlert(line);
      if (alert) {
        alerts.push(alert);
      } else {
        unreadable += 1;
      }
    }
    let degradations: ServiceDegradation[] = [];
    const health = readIfExists(join(this.dir, SERVICE_HEALTH_FILE));
    if (health !== null) {
      try {
        degradations = (JSON.parse(health) as unknown[]).flatMap((d) => parseDegradation(d) ?? []);
      } catch {
        unreadable += 1;
      }
    }
    return { alerts, degradations, unreadable };
  }
}

/** Writes a file whole: a new file, fsynced, renamed over the old one, and the folder fsynced. */
function writeDurably(path: string, text: string): void {
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, text);
  const fd = openSync(temporary, 'r+');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, path);
  const dir = openSync(join(path, '..'), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

function readIfExists(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      return null;
    }
    throw err;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isDependency = (value: unknown): value is ServiceDependency =>
  (SERVICE_DEPENDENCIES as readonly unknown[]).includes(value);

function date(value: unknown): Date | null {
  const parsed = typeof value === 'string' ? new Date(value) : null;
  return parsed && !Number.isNaN(parsed.getTime()) ? parsed : null;
}

function parseAlert(line: string): PendingServiceAlert | null {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  const [beganAt, degradedAt, at] = [date(raw.beganAt), date(raw.degradedAt), date(raw.at)];
  const endedAt = raw.endedAt === null ? null : date(raw.endedAt);
  if (
    typeof raw.id !== 'string' ||
    (raw.type !== 'service.degraded' && raw.type !== 'service.recovered') ||
    !isDependency(raw.dependency) ||
    !beganAt ||
    !degradedAt ||
    !at ||
    (raw.endedAt !== null && !endedAt)
  ) {
    return null;
  }
  const cause = typeof raw.cause === 'string' ? raw.cause : null;
  return { id: raw.id, type: raw.type, dependency: raw.dependency, cause, beganAt, degradedAt, endedAt, at };
}

function parseDegradation(value: unknown): ServiceDegradation | null {
  const raw = (value ?? {}) as Record<string, unknown>;
  const [since, degradedAt] = [date(raw.since), date(raw.degradedAt)];
  if (!isDependency(raw.dependency) || !since || !degradedAt) {
    return null;
  }
  return { dependency: raw.dependency, since, degradedAt, cause: typeof raw.cause === 'string' ? raw.cause : null };
}
