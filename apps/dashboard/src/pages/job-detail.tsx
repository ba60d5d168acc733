import { useState } from 'preact/hooks';
import { api, type Job, type Page, query, type Run, type SinkTestResult } from '../api';
import { ErrorNote, ListTable, ManagedNote, OneTimeSecret, StatusBadge, useLoad, usePoll } from '../components/common';
import { Pager, useCursorPages } from '../components/pager';
import { NextFireTimes } from '../components/schedule-field';
import { attemptsMade, disabledSentence, formatMs, formatTime, urlAtAGlance } from '../format';
import type { AppContext } from '../app-context';
import { navigate } from '../router';
import { BackfillDialog } from './job-backfill';

const RUNS_PAGE = 20;

/** One job: its schedule's next occurrences, actions, signing secret rotation and run history. */
export function JobDetailPage({ jobId, context }: { jobId: string; context: AppContext }) {
  const path = `/api/v1/jobs/${encodeURIComponent(jobId)}`;
  const job = useLoad(() => api<Job>('GET', path), [jobId]);
  // The job is read again every 5 s, so "Next fire times" (the API's next_runs) move on as runs fire.
  usePoll(() => job.reload(), 5000);
  // The last failed run's error, for the sentence that explains an auto-disable.
  const lastFailure = useLoad(
    async () =>
      job.data?.state === 'disabled'
        ? ((await api<Page<Run>>('GET', `${path}/runs${query({ status: 'failed', limit: 1 })}`)).data[0] ?? null)
        : null,
    [job.data?.state, job.data?.version],
  );
  const [actionError, setActionError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [testResult, setTestResult] = useState<SinkTestResult | null>(null);
  const [secret, setSecret] = useState<string | null>(() => {
    const created = sessionStorage.getItem(`svc.signing.${jobId}`);
    sessionStorage.removeItem(`svc.signing.${jobId}`);
    return created;
  });
  const [runsReload, setRunsReload] = useState(0);
  const [backfilling, setBackfilling] = useState(false);

  async function act(label: string, run: () => Promise<unknown>) {
    setBusy(true);
    setActionError(null);
    setNotice(null);
    try {
      await run();
      setNotice(label);
      job.reload();
      setRunsReload((n) => n + 1);
    } catch (err) {
      setActionError(err);
    } finally {
      setBusy(false);
    }
  }

  if (job.error) {
    return <ErrorNote error={job.error} />;
  }
  if (!job.data) {
    return <p>Loading…</p>;
  }
  const j = job.data;
  return (
    <section>
      <p class="crumbs">
        <a href="/">Jobs</a> / {j.name}
      </p>
      <div class="page-head">
        <h1>{j.name}</h1>
        <StatusBadge value={j.state} />
      </div>
      {j.key && (
        <p class="job-key">
          Key <code data-testid="job-key">{j.key}</code>
        </p>
      )}
      {j.managed_by && <ManagedNote owner={j.managed_by} />}
      {j.description && <p>{j.description}</p>}
      <div class="toolbar" role="toolbar" aria-label="Job actions">
        <a class="button" href={`/jobs/${j.id}/edit`}>
          Edit
        </a>
        {j.state === 'active' && (
          <button type="button" disabled={busy} onClick={() => void act('Paused', () => api('POST', `${path}/pause`))}>
            Pause
          </button>
        )}
        {j.state === 'paused' && (
          <button
            type="button"
            disabled={busy}
            onClick={() => void act('Resumed', () => api('POST', `${path}/resume`))}
          >
            Resume
          </button>
        )}
        <button
          type="button"
          disabled={busy || j.state === 'disabled' || j.state === 'completed'}
          onClick={() => void act('Triggered: the run appears below', () => api('POST', `${path}/trigger`))}
        >
          Trigger now
        </button>
        <button type="button" disabled={busy} aria-expanded={backfilling} onClick={() => setBackfilling(true)}>
          Backfill…
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            void act('Test request sent (no run recorded)', async () =>
              setTestResult(await api<SinkTestResult>('POST', `${path}/test`)),
            )
          }
        >
          Send test request
        </button>
        {j.sink.kind === 'webhook' && (
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void act('Signing secret rotated; the old one keeps signing for 24 hours', async () =>
                setSecret(
                  (await api<{ signing_secret: string }>('POST', `${path}/rotate-signing-secret`)).signing_secret,
                ),
              )
            }
          >
            Rotate signing secret
          </button>
        )}
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => {
            if (confirm(`Delete ${j.name}? Its run history stays until it ages out.`)) {
              void act('Deleted', async () => {
                await api('DELETE', path);
                navigate('/');
              });
            }
          }}
        >
          Delete
        </button>
      </div>
      <div aria-live="polite">
        {notice && <p class="notice">{notice}</p>}
        <ErrorNote error={actionError} />
      </div>
      {j.state === 'paused' && (j.paused_note || j.resume_at) && (
        <div class="panel paused-note" role="status" data-testid="paused-note">
          {j.paused_note && <p>Paused: {j.paused_note}</p>}
          {j.resume_at && <p>Resumes by itself at {formatTime(j.resume_at)} (a maintenance window).</p>}
        </div>
      )}
      {j.state === 'disabled' && (
        <div class="panel disabled-note" role="status" data-testid="disabled-note">
          <p>{disabledSentence(j.disabled_reason)}</p>
          {lastFailure.data?.last_error && (
            <p>
              Last error: <span class="error-text">{lastFailure.data.last_error}</span> (
              <a href={`/runs/${lastFailure.data.id}`}>run of {formatTime(lastFailure.data.scheduled_at)}</a>)
            </p>
          )}
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void act('Re-enabled: the job runs on its schedule again', () => api('POST', `${path}/enable`))
            }
          >
            Re-enable
          </button>
        </div>
      )}
      {backfilling && (
        <BackfillDialog job={j} onClose={() => setBackfilling(false)} onStarted={() => setRunsReload((n) => n + 1)} />
      )}
      {secret && <OneTimeSecret label="Signing secret" value={secret} onDone={() => setSecret(null)} />}
      {testResult && (
        <div class="panel" data-testid="test-result">
          <h2>Test request</h2>
          <dl>
            <dt>Outcome</dt>
            <dd>
              <StatusBadge value={testResult.outcome} />
            </dd>
            <dt>Status</dt>
            <dd>{testResult.status_code ?? '—'}</dd>
            <dt>Duration</dt>
            <dd>{formatMs(testResult.duration_ms)}</dd>
            <dt>Request</dt>
            <dd>
              <code>{testResult.request_summary}</code>
            </dd>
          </dl>
          {testResult.response_body && <pre>{testResult.response_body}</pre>}
        </div>
      )}
      <div class="grid">
        <div class="panel">
          <h2>Schedule</h2>
          <dl>
            <dt>Expression</dt>
            <dd>
              <code>{j.schedule.expr}</code>
            </dd>
            <dt>Meaning</dt>
            <dd>{j.schedule.description}</dd>
            <dt>Time zone</dt>
            <dd>{j.schedule.timezone}</dd>
            <dt>Next run</dt>
            <dd>{formatTime(j.next_run_at, j.schedule.timezone)}</dd>
          </dl>
          {j.state === 'active' && j.next_runs && j.next_runs.length > 0 && (
            <NextFireTimes
              next={j.next_runs}
              timezone={j.schedule.timezone}
              skipped={j.skipped_occurrences ?? []}
              busy={busy}
              onToggleSkip={(at, skip) => {
                const skipPath = `${path}/occurrences/${encodeURIComponent(at)}/skip`;
                if (skip) {
                  void act('Skip undone: the occurrence fires as scheduled.', () => api('DELETE', skipPath));
                  return;
                }
                const note = window.prompt('Skip this occurrence. Note (optional):', '');
                if (note !== null) {
                  void act('Occurrence skipped: its run will be recorded skipped with the note.', () =>
                    api('POST', skipPath, { note }),
                  );
                }
              }}
            />
          )}
          {j.state !== 'active' && <p class="muted">The job is {j.state}: no occurrences are scheduled.</p>}
        </div>
        <DeliveryPanel job={j} serverAutoDisable={context.config.job_defaults?.auto_disable_threshold} />
        <div class="panel">
          <h2>Last 24 hours</h2>
          {j.stats_24h && (
            <dl>
              <dt>Runs</dt>
              <dd>{j.stats_24h.runs}</dd>
              <dt>Succeeded</dt>
              <dd>{j.stats_24h.succeeded}</dd>
              <dt>Failed</dt>
              <dd>{j.stats_24h.failed}</dd>
              <dt>SLA breaches</dt>
              <dd>{j.stats_24h.sla_breached}</dd>
              <dt>p95 start lag</dt>
              <dd>{formatMs(j.stats_24h.p95_start_lag_ms)}</dd>
              <dt>Consecutive failures</dt>
              <dd>{j.consecutive_failures}</dd>
            </dl>
          )}
        </div>
      </div>
      <RunHistory jobId={j.id} maxAttempts={j.retry.max_attempts} reloadKey={runsReload} />
    </section>
  );
}

/** Where and how the job delivers, at a glance: target, retries, timeout and its policies. */
function DeliveryPanel({ job, serverAutoDisable }: { job: Job; serverAutoDisable: number | undefined }) {
  const config = job.sink.config;
  const r = job.retry;
  return (
    <div class="panel" data-testid="delivery">
      <h2>Delivery</h2>
      <dl>
        {job.sink.kind === 'webhook' ? (
          <>
            <dt>Target</dt>
            <dd title={String(config.url)}>
              <code>{String(config.method ?? 'POST')}</code> {urlAtAGlance(String(config.url))}
            </dd>
          </>
        ) : (
          <>
            <dt>Command</dt>
            <dd>
              <code>{((config.argv as string[] | undefined) ?? []).join(' ')}</code>
            </dd>
          </>
        )}
        <dt>Retries</dt>
        <dd>
          {r.max_attempts <= 1
            ? 'none: 1 attempt'
            : `up to ${r.max_attempts} attempts, ${r.backoff} backoff from ${r.initial_interval} to ${r.max_interval}`}
        </dd>
        <dt>Timeout</dt>
        <dd>{job.timeout} per attempt</dd>
        <dt>Overlap</dt>
        <dd>
          {job.overlap_policy.replace(/_/g, ' ')}
          {job.overlap_policy === 'allow' && job.max_concurrent_runs
            ? `, at most ${job.max_concurrent_runs} in flight`
            : ''}
        </dd>
        <dt>Start window</dt>
        <dd>
          {job.start_window
            ? `${job.start_window}: fires ${formatMs(job.start_offset_ms)} after each occurrence`
            : 'none: on time'}
        </dd>
        <dt>Misfire</dt>
        <dd>{job.misfire_policy.replace(/_/g, ' ')}</dd>
        <dt>Auto-disable</dt>
        <dd>
          {job.auto_disable_threshold === 0
            ? 'never'
            : job.auto_disable_threshold === 1
              ? 'after a failed run'
              : job.auto_disable_threshold
                ? `after ${job.auto_disable_threshold} failed runs in a row`
                : autoDisableDefault(serverAutoDisable)}
        </dd>
      </dl>
    </div>
  );
}

/** Runs of the job, newest first, with the API's filters and cursor paging; refreshed every 3 s. */
function RunHistory({ jobId, maxAttempts, reloadKey }: { jobId: string; maxAttempts: number; reloadKey: number }) {
  const [filters, setFilters] = useState({ status: '', trigger: '', from: '', to: '' });
  const pages = useCursorPages();
  const { cursor } = pages;
  const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);
  const runs = useLoad(
    () =>
      api<Page<Run>>(
        'GET',
        `/api/v1/jobs/${encodeURIComponent(jobId)}/runs${query({
          status: filters.status,
          trigger: filters.trigger,
          from: toIso(filters.from),
          to: toIso(filters.to),
          cursor,
          limit: RUNS_PAGE,
        })}`,
      ),
    [jobId, JSON.stringify(filters), cursor, reloadKey],
  );
  usePoll(() => cursor === null && runs.reload(), 3000);
  const set = (key: keyof typeof filters) => (event: Event) => {
    setFilters({ ...filters, [key]: (event.target as HTMLInputElement).value });
    pages.reset();
  };
  return (
    <section class="panel">
      <h2>Runs</h2>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Run filters">
        <label>
          Status
          <select value={filters.status} onChange={set('status')}>
            <option value="">any</option>
            {['running', 'deferred', 'succeeded', 'failed', 'skipped', 'cancelled'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Trigger
          <select value={filters.trigger} onChange={set('trigger')}>
            <option value="">any</option>
            {['schedule', 'manual', 'retry_manual', 'backfill'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="datetime-local" value={filters.from} onChange={set('from')} />
        </label>
        <label>
          To
          <input type="datetime-local" value={filters.to} onChange={set('to')} />
        </label>
      </form>
      <ErrorNote error={runs.error} />
      {runs.data && (
        <ListTable
          empty={<p class="empty">No runs match.</p>}
          label="Runs"
          className="runs"
          testId="runs"
          columns={['Scheduled', 'Status', 'Trigger', 'Attempts', 'Start lag', 'Duration']}
          rows={runs.data.data}
          rowKey={(run) => run.id}
          cells={(run) => (
            <>
              <td>
                <a href={`/runs/${run.id}`}>{formatTime(run.scheduled_at)}</a>
              </td>
              <td>
                <StatusBadge value={run.status} />
              </td>
              <td>{run.trigger}</td>
              <td>
                {attemptsMade(typeof run.attempts === 'number' ? run.attempts : run.attempts.length, maxAttempts)}
              </td>
              <td>{formatMs(run.start_lag_ms)}</td>
              <td>{formatMs(run.e2e_ms)}</td>
            </>
          )}
        />
      )}
      <Pager pages={pages} nextCursor={runs.data?.next_cursor} previousLabel="Newer runs" nextLabel="Older runs" />
    </section>
  );
}

/** A job left at the server default says what that is, from `/dashboard/config`. */
function autoDisableDefault(threshold: number | undefined): string {
  if (threshold === undefined) {
    return 'server default';
  }
  if (threshold === 0) {
    return 'server default: never';
  }
  return `server default: after ${threshold} failed run${threshold === 1 ? '' : 's'} in a row`;
}
