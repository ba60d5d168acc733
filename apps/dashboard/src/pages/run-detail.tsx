import { useState } from 'preact/hooks';
import { api, ApiError, type Attempt, type Job, type Run } from '../api';
import { ErrorNote, ListTable, StatusBadge, useLoad, usePoll } from '../components/common';
import { attemptLabel, formatMs, formatTime } from '../format';
import type { AppContext } from '../app-context';
import { navigate } from '../router';

const TERMINAL = new Set(['succeeded', 'failed', 'skipped', 'cancelled']);

/** The Temporal Web UI page of the run's workflow (workflow id = run id). */
export function temporalLink(config: AppContext['config'], runId: string): string | null {
  const temporal = config.temporal;
  if (!temporal) {
    return null;
  }
  return `${temporal.ui_url.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(temporal.namespace)}/workflows/${encodeURIComponent(runId)}`;
}

/** One run with every attempt (status, timing, request summary, response body). */
export function RunDetailPage({ runId, context }: { runId: string; context: AppContext }) {
  const run = useLoad(() => api<Run>('GET', `/api/v1/runs/${encodeURIComponent(runId)}`), [runId]);
  usePoll(() => run.data && !TERMINAL.has(run.data.status) && run.reload(), 2000);
  // The job names the breadcrumb and gives the attempt budget; a deleted job leaves its id.
  const job = useLoad(async () => {
    if (!run.data) {
      return null;
    }
    try {
      return await api<Job>('GET', `/api/v1/jobs/${encodeURIComponent(run.data.job_id)}`);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        return null;
      }
      throw err;
    }
  }, [run.data?.job_id]);
  const [retryError, setRetryError] = useState<unknown>(null);
  const [retrying, setRetrying] = useState(false);
  if (run.error) {
    return <ErrorNote error={run.error} />;
  }
  if (!run.data) {
    return <p>Loading…</p>;
  }
  const r = run.data;
  const attempts = Array.isArray(r.attempts) ? r.attempts : [];
  const link = temporalLink(context.config, r.id);
  const maxAttempts = job.data?.retry.max_attempts ?? null;
  const last = attempts[attempts.length - 1];
  // A retryable failure on the last attempt the budget allowed: say that none was left.
  const budgetSpent =
    r.status === 'failed' && last?.outcome === 'retryable' && maxAttempts !== null && last.n + 1 >= maxAttempts;

  async function cancel() {
    if (!confirm(`Cancel run ${r.id}? The attempt in flight is abandoned and no further attempt is made.`)) {
      return;
    }
    setRetrying(true);
    setRetryError(null);
    try {
      await api<Run>('POST', `/api/v1/runs/${encodeURIComponent(r.id)}/cancel`);
      run.reload();
    } catch (err) {
      setRetryError(err);
    } finally {
      setRetrying(false);
    }
  }

  async function retry() {
    setRetrying(true);
    setRetryError(null);
    try {
      const created = await api<Run>('POST', `/api/v1/runs/${encodeURIComponent(r.id)}/retry`);
      navigate(`/runs/${created.id}`);
    } catch (err) {
      setRetryError(err);
    } finally {
      setRetrying(false);
    }
  }

  return (
    <section>
      <p class="crumbs">
        <a href="/">Jobs</a> /{' '}
        <a href={`/jobs/${r.job_id}`} data-testid="job-crumb">
          {job.data ? job.data.name : job.loading ? '…' : `${r.job_id} (deleted)`}
        </a>{' '}
        / run
      </p>
      <div class="page-head">
        <h1>Run {r.id}</h1>
        <StatusBadge value={r.status} />
      </div>
      {r.status === 'failed' && (
        <div class="toolbar" role="toolbar" aria-label="Run actions">
          <button type="button" disabled={retrying} onClick={() => void retry()}>
            Retry
          </button>
          <span class="muted">
            Runs the job again for this occurrence, with its current settings (once per occurrence).
          </span>
        </div>
      )}
      {(r.status === 'running' || r.status === 'deferred') && (
        <div class="toolbar" role="toolbar" aria-label="Run actions">
          <button type="button" class="danger" disabled={retrying} onClick={() => void cancel()}>
            Cancel run
          </button>
          <span class="muted">
            Stops this run: the attempt in flight is abandoned, no retry follows, the run ends cancelled.
          </span>
        </div>
      )}
      <div aria-live="polite">
        <ErrorNote error={retryError} />
      </div>
      {link ? (
        <p>
          <a class="button" href={link} target="_blank" rel="noopener noreferrer" data-testid="temporal-link">
            Open the workflow in Temporal
          </a>
        </p>
      ) : (
        <p class="muted">Set temporal.ui_url to link runs to the Temporal Web UI.</p>
      )}
      <div class="panel">
        <dl>
          <dt>Scheduled</dt>
          <dd>{formatTime(r.scheduled_at)}</dd>
          <dt>Trigger</dt>
          <dd>
            {r.trigger}
            {r.retry_of && (
              <>
                {' '}
                of <a href={`/runs/${r.retry_of}`}>the failed run</a>
              </>
            )}
          </dd>
          <dt>Started</dt>
          <dd>{formatTime(r.started_at)}</dd>
          <dt>Finished</dt>
          <dd>{formatTime(r.finished_at)}</dd>
          {r.next_attempt_at && (
            <>
              <dt>Next attempt</dt>
              <dd>{formatTime(r.next_attempt_at)}</dd>
            </>
          )}
          <dt>Start lag</dt>
          <dd>{formatMs(r.start_lag_ms)}</dd>
          <dt>End to end</dt>
          <dd>{formatMs(r.e2e_ms)}</dd>
          <dt>SLA breached</dt>
          <dd>{r.sla_breached ? 'yes' : 'no'}</dd>
          {r.last_error && (
            <>
              <dt>Last error</dt>
              <dd>{r.last_error}</dd>
            </>
          )}
          {budgetSpent && (
            <>
              <dt>Retries</dt>
              <dd data-testid="no-attempt-left">
                The last failure could have been retried, but no attempt was left ({maxAttempts} of {maxAttempts} used).
              </dd>
            </>
          )}
          {r.overrides && (
            <>
              <dt>Overrides</dt>
              <dd data-testid="run-overrides">
                <span class="hint">This run only; the job keeps its own sink.</span>
                <pre>{JSON.stringify(r.overrides, null, 2)}</pre>
              </dd>
            </>
          )}
          {r.skip_reason && (
            <>
              <dt>Skipped because</dt>
              <dd>{r.skip_reason}</dd>
            </>
          )}
          {r.skip_note && (
            <>
              <dt>Skip note</dt>
              <dd data-testid="skip-note">{r.skip_note}</dd>
            </>
          )}
          {r.started_workflow && (
            <>
              <dt>Workflow started</dt>
              <dd data-testid="started-workflow">
                {r.started_workflow.ui_url ? (
                  <a href={r.started_workflow.ui_url} target="_blank" rel="noreferrer">
                    {r.started_workflow.workflow_id}
                  </a>
                ) : (
                  <code>{r.started_workflow.workflow_id}</code>
                )}{' '}
                <span class="hint">
                  run {r.started_workflow.run_id} in {r.started_workflow.namespace}
                </span>
              </dd>
            </>
          )}
        </dl>
      </div>
      <h2>Attempts</h2>
      <ListTable
        empty={<p class="empty">No attempt yet.</p>}
        label="Attempts"
        className="attempts"
        testId="attempts"
        columns={['Attempt', 'Outcome', 'Status', 'Started', 'Duration', 'Request']}
        rows={attempts}
        rowKey={(a) => String(a.n)}
        cells={(a) => <AttemptCells attempt={a} maxAttempts={maxAttempts} />}
      />
      {attempts
        .filter((a) => a.response_body || a.error)
        .map((a) => (
          <details class="panel" key={`body-${a.n}`}>
            <summary>{capitalize(attemptLabel(a.n, maxAttempts))}: error and response body</summary>
            {a.error && <p class="error">{a.error}</p>}
            {a.response_body && <pre>{a.response_body}</pre>}
          </details>
        ))}
    </section>
  );
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function AttemptCells({ attempt, maxAttempts }: { attempt: Attempt; maxAttempts: number | null }) {
  return (
    <>
      <td>{attemptLabel(attempt.n, maxAttempts).replace(/^attempt /, '')}</td>
      <td>
        <StatusBadge value={attempt.outcome ?? 'in flight'} />
      </td>
      <td>{attempt.status_code ?? '—'}</td>
      <td>{formatTime(attempt.started_at)}</td>
      <td>{formatMs(attempt.duration_ms)}</td>
      <td>
        <code>{attempt.request_summary}</code>
      </td>
    </>
  );
}
