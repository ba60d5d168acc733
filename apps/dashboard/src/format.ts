/** Date and duration display: absolute times in a given zone, and the viewer's own. */
export const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function formatTime(iso: string | null | undefined, timeZone = viewerZone): string {
  if (!iso) {
    return '—';
  }
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) {
    return '';
  }
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  const [value, unit] =
    abs < 60
      ? [seconds, 'second']
      : abs < 3600
        ? [Math.round(seconds / 60), 'minute']
        : abs < 86400
          ? [Math.round(seconds / 3600), 'hour']
          : [Math.round(seconds / 86400), 'day'];
  return new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(value, unit as Intl.RelativeTimeFormatUnit);
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) {
    return '—';
  }
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function timeZones(): string[] {
  const withSupported = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  return withSupported.supportedValuesOf?.('timeZone') ?? ['UTC'];
}

/**
 * An attempt as people count it: the API numbers attempts from 0 (`n`, the
 * `Svc-Attempt` header, as the spec says); the dashboard says "attempt 1 of 3" on every page.
 */
export function attemptLabel(n: number, maxAttempts: number | null | undefined): string {
  return maxAttempts ? `attempt ${n + 1} of ${maxAttempts}` : `attempt ${n + 1}`;
}

/** How many attempts a run made, against the job's budget: "2 of 3". */
export function attemptsMade(count: number, maxAttempts: number | null | undefined): string {
  return maxAttempts ? `${count} of ${maxAttempts}` : String(count);
}

/**
 * Why a job is disabled, as a sentence: the worker stores `auto_disabled: 3 consecutive failed
 * runs`; any other reason is shown as the API gives it.
 */
export function disabledSentence(reason: string | null): string {
  const auto = /^auto_disabled: (\d+) consecutive failed runs?$/.exec(reason ?? '');
  if (auto) {
    const runs = auto[1] === '1' ? 'a failed run' : `${auto[1]} failed runs in a row`;
    return `The job was disabled automatically after ${runs}, and no longer runs on its schedule.`;
  }
  return reason ? `The job is disabled: ${reason}.` : 'The job is disabled and no longer runs on its schedule.';
}

/** A delivery URL at a glance: host and path (the query may carry tokens, so it is left out). */
export function urlAtAGlance(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return url; // templates such as {{secret.HOST}} make it unparseable: show it as written
  }
}

/** The parts of `/readyz` the service banner reads (Schema<'Readiness'>). */
export interface ReadinessFacts {
  status: 'ready' | 'unavailable';
  dispatcher: string;
  writer_backpressure: boolean;
  database_writable: boolean;
  temporal: boolean;
  temporal_error: string | null;
  database_error?: string | null;
  /** What the workers' health probes see degraded (absent from an older server). */
  service_degraded?: ReadonlyArray<{ dependency: string; cause: string | null; since: string }>;
}

/** What the banner says of a dependency a worker's probe sees degraded. */
const WORKER_SEES: Record<string, string> = {
  temporal: 'A worker cannot reach Temporal',
  postgres: 'A worker cannot write to the database',
  worker_polling: 'No worker is polling the task queue',
  schedule_lag: 'Schedules are running late',
};

/**
 * What the dashboard's banner says while the service is degraded (one sentence per dependency
 * out, naming its cause), or nothing when `/readyz` says ready and no worker's probe sees a
 * dependency degraded. The API's own checks come first; a worker's view adds what they do not
 * already say (schedule lag; Temporal unreachable from the worker but not from the API).
 */
export function degradedSentences(readiness: ReadinessFacts): string[] {
  const workers = workerSentences(readiness);
  if (readiness.status === 'ready') {
    return workers;
  }
  const out: string[] = [];
  if (!readiness.database_writable) {
    out.push(
      `The database is unavailable${readiness.database_error ? ` (${readiness.database_error})` : ''}: changes cannot be saved.`,
    );
  }
  if (!readiness.temporal) {
    out.push(
      `Temporal is unreachable${readiness.temporal_error ? ` (${readiness.temporal_error})` : ''}: nothing is scheduled until it is back.`,
    );
  } else if (readiness.dispatcher !== 'active') {
    out.push('No worker is polling: scheduled runs wait until one is running.');
  }
  if (readiness.writer_backpressure) {
    out.push('Deliveries are running late: due runs are waiting for their first attempt.');
  }
  out.push(...workerSentences(readiness));
  return out.length > 0 ? out : ['The service is not ready.'];
}

function workerSentences(readiness: ReadinessFacts): string[] {
  const saidAlready: Record<string, boolean> = {
    temporal: !readiness.temporal,
    postgres: !readiness.database_writable,
    worker_polling: readiness.temporal && readiness.dispatcher !== 'active',
    schedule_lag: false,
  };
  return (readiness.service_degraded ?? [])
    .filter((d) => !saidAlready[d.dependency])
    .map(
      (d) =>
        `${WORKER_SEES[d.dependency] ?? `${d.dependency} is degraded`}${d.cause ? ` (${d.cause})` : ''}, since ${new Date(d.since).toISOString().slice(11, 16)} UTC.`,
    );
}
