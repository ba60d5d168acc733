import { useMemo, useState } from 'preact/hooks';
import { api, type Job, type JobHourlyStats, type Page, query } from '../api';
import { sparklineConfig, useChart } from '../charts';
import { ErrorNote, StatusBadge, TableWrap, useLoad } from '../components/common';
import { Pager, useCursorPages } from '../components/pager';
import { formatRelative, formatTime } from '../format';

type Series = Array<{ succeeded: number; failed: number; other: number }>;
type Buckets = Map<string, Series>;

/**
 * Runs of these jobs in the last 24 hours per hour (oldest first), counted by the API in SQL: one
 * request for the page's jobs, however many runs they had.
 */
async function runBuckets(jobIds: string[]): Promise<Buckets> {
  if (jobIds.length === 0) {
    return new Map();
  }
  const stats = await api<JobHourlyStats>(
    'GET',
    `/api/v1/stats/jobs/hourly${query({ window: '24h', job_id: jobIds.join(',') })}`,
  );
  return new Map(stats.data.map((job) => [job.job_id, job.buckets]));
}

function Sparkline({ series }: { series: Series | undefined }) {
  const data = series ?? Array.from({ length: 24 }, () => ({ succeeded: 0, failed: 0, other: 0 }));
  const config = useMemo(() => sparklineConfig(data), [JSON.stringify(data)]);
  const canvas = useChart(config);
  const ok = data.reduce((n, b) => n + b.succeeded, 0);
  const failed = data.reduce((n, b) => n + b.failed, 0);
  // Runs in flight count too (the API's `other`: running, deferred, or cancelled).
  const other = data.reduce((n, b) => n + b.other, 0);
  return (
    <canvas
      ref={canvas}
      width={120}
      height={28}
      role="img"
      aria-label={`Last 24 hours: ${ok} succeeded, ${failed} failed, ${other} in flight or cancelled`}
      class="sparkline"
    />
  );
}

/**
 * The job's run that tells how it is doing (the API's `latest_run`, issue 44): a run in flight
 * counts, with its attempt of the job's budget and when it tries again, and an SLA breach shows.
 */
function LastRun({ job }: { job: Job }) {
  const run = job.latest_run;
  if (!run) {
    return <StatusBadge value={job.last_run_status} />;
  }
  const open = run.status === 'running' || run.status === 'deferred';
  // attempts_count counts attempts started; a deferred run's next one is the one after them.
  const attempt = run.status === 'deferred' ? run.attempts_count + 1 : run.attempts_count;
  const retrying = open && attempt >= 2;
  return (
    <span class="last-run">
      <a href={`/runs/${run.id}`} title={formatTime(run.scheduled_at)}>
        <StatusBadge value={run.status} />
      </a>
      {retrying && (
        <span class="run-note">
          {' '}
          retrying, attempt {attempt} of {run.max_attempts}
          {run.next_attempt_at && (
            <>
              , next{' '}
              <time dateTime={run.next_attempt_at} title={formatTime(run.next_attempt_at)}>
                {formatRelative(run.next_attempt_at)}
              </time>
            </>
          )}
        </span>
      )}
      {run.sla_breached && (
        <>
          {' '}
          <span class="badge failed">SLA breached</span>
        </>
      )}
    </span>
  );
}

/** The workspace's jobs: state, schedule, next run, last status and a 24 h sparkline. */
export function JobsPage() {
  const [state, setState] = useState('');
  const [q, setQ] = useState('');
  const pages = useCursorPages();
  const { cursor } = pages;
  const jobs = useLoad(
    () => api<Page<Job>>('GET', `/api/v1/jobs${query({ state, q, cursor, limit: 50 })}`),
    [state, q, cursor],
  );
  const jobIds = jobs.data?.data.map((job) => job.id) ?? [];
  const buckets = useLoad(() => runBuckets(jobIds), [jobIds.join(',')]);

  return (
    <section>
      <div class="page-head">
        <h1>Jobs</h1>
        <a class="button primary" href="/jobs/new">
          New job
        </a>
      </div>
      <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
        <label>
          State
          <select
            value={state}
            onChange={(e) => {
              setState((e.target as HTMLSelectElement).value);
              pages.reset();
            }}
          >
            <option value="">any</option>
            {['active', 'paused', 'disabled', 'completed'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input
            type="search"
            value={q}
            placeholder="name or description"
            onInput={(e) => {
              setQ((e.target as HTMLInputElement).value);
              pages.reset();
            }}
          />
        </label>
      </form>
      <ErrorNote error={jobs.error} />
      {jobs.data && jobs.data.data.length === 0 && (
        <p class="empty">
          No jobs yet. <a href="/jobs/new">Create one</a>.
        </p>
      )}
      {jobs.data && jobs.data.data.length > 0 && (
        <TableWrap label="Jobs">
          <table class="jobs">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">State</th>
                <th scope="col">Schedule</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">24 h</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.data.map((job) => (
                <tr key={job.id}>
                  <td>
                    <a href={`/jobs/${job.id}`}>{job.name}</a>
                  </td>
                  <td>
                    <StatusBadge value={job.state} />
                  </td>
                  <td>{job.schedule.description}</td>
                  <td>
                    {job.next_run_at ? (
                      <time dateTime={job.next_run_at} title={formatTime(job.next_run_at)}>
                        {formatRelative(job.next_run_at)}
                      </time>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    <LastRun job={job} />
                  </td>
                  <td>
                    <Sparkline series={buckets.data?.get(job.id)} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <Pager pages={pages} nextCursor={jobs.data?.next_cursor} previousLabel="Previous page" nextLabel="Next page" />
    </section>
  );
}
