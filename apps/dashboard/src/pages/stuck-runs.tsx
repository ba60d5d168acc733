import { api, type Page, type RunSummary } from '../api';
import { ErrorNote, StatusBadge, TableWrap, useLoad, usePoll } from '../components/common';
import { formatMs, formatTime } from '../format';

const REASONS: Record<string, string> = {
  past_retry_budget: 'past its retry budget',
  no_heartbeat: 'no heartbeat',
};

/**
 * Runs whose workflow runs in Temporal but does not progress (`GET /api/v1/runs?stuck=true`), each
 * with what Temporal says it waits on, its Temporal UI page and the CLI command that shows the same
 * (docs/operations.md → Stuck runs). Refreshed every 5 seconds.
 */
export function StuckRunsPage() {
  const runs = useLoad(() => api<Page<RunSummary>>('GET', '/api/v1/runs?stuck=true'), []);
  usePoll(() => runs.reload(), 5000);
  return (
    <section>
      <div class="page-head">
        <h1>Stuck runs</h1>
      </div>
      <p class="muted">
        Open runs whose workflow is running in Temporal but not progressing: past timeout × attempts plus every backoff,
        or an attempt without a heartbeat for longer than its heartbeat timeout. Runs with no workflow at all are
        repaired by the worker on its own (stalled runs).
      </p>
      <ErrorNote error={runs.error} />
      {runs.data && runs.data.data.length === 0 && <p class="empty">No stuck runs.</p>}
      {runs.data && runs.data.data.length > 0 && (
        <TableWrap label="Stuck runs">
          <table data-testid="stuck-runs">
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Why</th>
                <th scope="col">Temporal says</th>
                <th scope="col">Look closer</th>
              </tr>
            </thead>
            <tbody>
              {runs.data.data.map((run) => (
                <StuckRow run={run} key={run.id} />
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function StuckRow({ run }: { run: RunSummary }) {
  const stuck = run.stuck;
  if (!stuck) {
    return null;
  }
  const pending = stuck.temporal.pending_activity;
  return (
    <tr>
      <td>
        <a href={`/runs/${run.id}`}>{run.id}</a>
        <br />
        <span class="muted">
          job <a href={`/jobs/${run.job_id}`}>{run.job_id}</a> · scheduled {formatTime(run.scheduled_at)}
        </span>
      </td>
      <td>
        <StatusBadge value={run.status} />
      </td>
      <td>
        {stuck.reasons.map((r) => REASONS[r] ?? r).join(', ')}
        {stuck.silent_for_ms !== null && <div class="muted">silent for {formatMs(stuck.silent_for_ms)}</div>}
        <div class="muted">deadline {formatTime(stuck.deadline)}</div>
      </td>
      <td>
        {pending ? (
          <>
            <code>{pending.activity_type}</code> {pending.state}, attempt {pending.attempt}
            <div class="muted">last heartbeat {formatTime(pending.last_heartbeat_at)}</div>
            {pending.last_failure && <div class="error">{pending.last_failure}</div>}
          </>
        ) : (
          'no pending activity'
        )}
      </td>
      <td>
        {stuck.temporal.ui_url && (
          <a href={stuck.temporal.ui_url} target="_blank" rel="noopener noreferrer">
            Open in Temporal
          </a>
        )}
        <div>
          <code>{stuck.temporal.describe_command}</code>
        </div>
      </td>
    </tr>
  );
}
