import { useMemo, useState } from 'preact/hooks';
import { api, type Job, type JobHourlyStats, type Page, query } from '../api';
import { sparklineConfig, useChart } from '../charts';
import { ErrorNote, StatusBadge, TableWrap, useLoad } from '../components/common';
import { Pager, useCursorPages } from '../components/pager';
import { formatRelative, formatTime } from '../format';
import { useLocation } from '../router';
import { BulkActions } from './jobs-bulk';

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
 * The job's run that tells how it is doing (the API's `latest_run`): a run in flight
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

/**
 * The workspace's jobs: key, owner, state, schedule, next run, last status and a 24 h sparkline.
 * `/?managed_by=<owner>` opens the list filtered by that owner (the link on a managed job's page).
 */
export function JobsPage() {
  const { search } = useLocation();
  const owner = search.get('managed_by') ?? '';
  // A new address (an owner link followed) starts over with that owner as the filter.
  return <JobList key={owner} initialOwner={owner} />;
}

function JobList({ initialOwner }: { initialOwner: string }) {
  const [state, setState] = useState('');
  const [q, setQ] = useState('');
  const [managedBy, setManagedBy] = useState(initialOwner);
  const pages = useCursorPages();
  const { cursor } = pages;
  // The jobs ticked for a bulk pause or resume (ids of this page).
  const [selected, setSelected] = useState<string[]>([]);
  const owner = managedBy.trim();
  const jobs = useLoad(
    () => api<Page<Job>>('GET', `/api/v1/jobs${query({ state, q, managed_by: owner, cursor, limit: 50 })}`),
    [state, q, owner, cursor],
  );
  const jobIds = jobs.data?.data.map((job) => job.id) ?? [];
  const buckets = useLoad(() => runBuckets(jobIds), [jobIds.join(',')]);
  // The owner filter matches exactly: the owners on this page are offered as you type.
  const owners = [...new Set((jobs.data?.data ?? []).map((job) => job.managed_by).filter((o) => o !== null))];
  const filtered = state !== '' || q !== '' || owner !== '';
  /** A filter's change handler: sets it from its control and goes back to the first page. */
  const onFilter = (setFilter: (value: string) => void) => (e: Event) => {
    setFilter((e.target as HTMLInputElement | HTMLSelectElement).value);
    pages.reset();
  };

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
          <select value={state} onChange={onFilter(setState)}>
            <option value="">any</option>
            {['active', 'paused', 'disabled', 'completed'].map((s) => (
              <option key={s}>{s}</option>
            ))}
          </select>
        </label>
        <label>
          Search
          <input type="search" size={26} value={q} placeholder="name, description or key" onInput={onFilter(setQ)} />
        </label>
        <label>
          Managed by
          <input
            type="search"
            list="job-owners"
            size={24}
            value={managedBy}
            placeholder="e.g. git:infra/jobs.yaml"
            onInput={onFilter(setManagedBy)}
          />
          <datalist id="job-owners">
            {owners.map((o) => (
              <option key={o} value={o} />
            ))}
          </datalist>
        </label>
      </form>
      <ErrorNote error={jobs.error} />
      {selected.length > 0 && (
        <BulkActions
          selected={selected}
          onDone={() => {
            setSelected([]);
            jobs.reload();
          }}
        />
      )}
      {jobs.data && jobs.data.data.length === 0 && !filtered && (
        <p class="empty">
          No jobs yet. <a href="/jobs/new">Create one</a>.
        </p>
      )}
      {jobs.data && jobs.data.data.length === 0 && filtered && <p class="empty">No jobs match.</p>}
      {jobs.data && jobs.data.data.length > 0 && (
        <TableWrap label="Jobs">
          <table class="jobs">
            <thead>
              <tr>
                <th scope="col">
                  <input
                    type="checkbox"
                    aria-label="Select every job of this page"
                    checked={jobIds.length > 0 && jobIds.every((id) => selected.includes(id))}
                    onChange={(e) => setSelected((e.target as HTMLInputElement).checked ? jobIds : [])}
                  />
                </th>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Managed by</th>
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
                    <input
                      type="checkbox"
                      aria-label={`Select ${job.name}`}
                      checked={selected.includes(job.id)}
                      onChange={(e) =>
                        setSelected((now) =>
                          (e.target as HTMLInputElement).checked ? [...now, job.id] : now.filter((id) => id !== job.id),
                        )
                      }
                    />
                  </td>
                  <td>
                    <a href={`/jobs/${job.id}`}>{job.name}</a>
                  </td>
                  <td>{job.key ? <code>{job.key}</code> : '—'}</td>
                  <td>
                    {job.managed_by ? (
                      <a href={`/${query({ managed_by: job.managed_by })}`} title="Show only the jobs of this owner">
                        {job.managed_by}
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td>
                    <StatusBadge value={job.state} />
                    {job.state === 'paused' && (job.paused_note || job.resume_at) && (
                      <span class="run-note" title={job.paused_note ?? undefined}>
                        {job.paused_note && <> {job.paused_note}</>}
                        {job.resume_at && (
                          <>
                            {' '}
                            until{' '}
                            <time dateTime={job.resume_at} title={formatTime(job.resume_at)}>
                              {formatRelative(job.resume_at)}
                            </time>
                          </>
                        )}
                      </span>
                    )}
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
