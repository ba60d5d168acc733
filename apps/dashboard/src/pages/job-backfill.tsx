import { useEffect, useState } from 'preact/hooks';
import { api, type Backfill, type BackfillAccepted, type Job } from '../api';
import { LiveNotice, usePoll } from '../components/common';
import { bound, Field, fieldsOf, FormError, messageFor, TextField, useSubmit } from '../components/form';
import { formatTime } from '../format';

/** A `datetime-local` value (the viewer's time) as the instant the API takes; '' when empty or unreadable. */
function instant(local: string): string {
  const at = new Date(local);
  return local && !Number.isNaN(at.getTime()) ? at.toISOString() : '';
}

/**
 * The job page's backfill dialog: a range, a mode and whether succeeded occurrences run
 * again; the occurrences it covers are counted by a dry run as the range changes (in the job's
 * time zone, by the server), then one click starts it and its progress shows here, cancelable.
 */
export function BackfillDialog({ job, onClose, onStarted }: { job: Job; onClose: () => void; onStarted: () => void }) {
  const path = `/api/v1/jobs/${encodeURIComponent(job.id)}/backfill`;
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [mode, setMode] = useState<'sequential' | 'parallel'>('sequential');
  const [maxRuns, setMaxRuns] = useState('5');
  const [skipSucceeded, setSkipSucceeded] = useState(true);
  const [count, setCount] = useState<BackfillAccepted | null>(null);
  const [countError, setCountError] = useState<unknown>(null);
  const [backfill, setBackfill] = useState<Backfill | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const body = () => ({
    from: instant(from),
    to: instant(to),
    mode,
    ...(mode === 'parallel' ? { max_runs: Number(maxRuns) } : {}),
    skip_succeeded: skipSucceeded,
  });

  // The dry-run count follows the range (a moment after the last keystroke).
  useEffect(() => {
    setCount(null);
    setCountError(null);
    if (!instant(from) || !instant(to)) {
      return;
    }
    const timer = setTimeout(() => {
      api<BackfillAccepted>('POST', path, { from: instant(from), to: instant(to), dry_run: true }).then(
        setCount,
        setCountError,
      );
    }, 300);
    return () => clearTimeout(timer);
  }, [from, to]);

  usePoll(() => {
    if (backfill && backfill.status === 'running') {
      void api<Backfill>('GET', `/api/v1/backfills/${backfill.id}`).then(setBackfill);
    }
  }, 2000);

  const { submit, error, busy } = useSubmit(async () => {
    const accepted = await api<BackfillAccepted>('POST', path, body());
    setNotice(`Backfill ${accepted.backfill_id} started: ${accepted.occurrences} occurrences`);
    setBackfill(await api<Backfill>('GET', `/api/v1/backfills/${accepted.backfill_id}`));
    onStarted();
  });
  const fields = fieldsOf(error ?? countError);
  const cancel = async () => {
    if (backfill) {
      setBackfill(await api<Backfill>('POST', `/api/v1/backfills/${backfill.id}/cancel`));
      setNotice('Cancel asked: occurrences not started yet will not start');
    }
  };

  return (
    <div class="panel backfill-dialog" role="dialog" aria-labelledby="backfill-title" data-testid="backfill-dialog">
      <h2 id="backfill-title">Backfill</h2>
      <p class="hint">
        Run the occurrences of a past range again, each with its own scheduled time, as the schedule computes them in{' '}
        {job.schedule.timezone}.
      </p>
      <form onSubmit={submit}>
        <TextField id="backfill-from" label="From" type="datetime-local" {...bound(fields, 'from', from, setFrom)} />
        <TextField
          id="backfill-to"
          label="To (not included)"
          type="datetime-local"
          {...bound(fields, 'to', to, setTo)}
        />
        <Field id="backfill-mode" label="Mode">
          <select
            id="backfill-mode"
            value={mode}
            onChange={(e) => setMode((e.target as HTMLSelectElement).value as 'sequential' | 'parallel')}
          >
            <option value="sequential">sequential: one at a time</option>
            <option value="parallel">parallel</option>
          </select>
        </Field>
        {mode === 'parallel' && (
          <Field id="backfill-max-runs" label="Runs at once" error={messageFor(fields, 'max_runs')}>
            <input
              id="backfill-max-runs"
              type="number"
              min={1}
              max={50}
              value={maxRuns}
              onInput={(e) => setMaxRuns((e.target as HTMLInputElement).value)}
            />
          </Field>
        )}
        <div class="field">
          <label>
            <input
              type="checkbox"
              checked={skipSucceeded}
              onChange={(e) => setSkipSucceeded((e.target as HTMLInputElement).checked)}
            />{' '}
            Skip occurrences that already succeeded
          </label>
        </div>
        <p data-testid="backfill-count" aria-live="polite">
          {count
            ? `${count.occurrences} occurrence${count.occurrences === 1 ? '' : 's'}` +
              (count.first && count.last
                ? ` from ${formatTime(count.first, job.schedule.timezone)} to ${formatTime(count.last, job.schedule.timezone)}`
                : '')
            : instant(from) && instant(to) && !countError
              ? 'Counting…'
              : 'Choose a range to count its occurrences.'}
        </p>
        <div class="actions">
          <button type="submit" disabled={busy || !count || count.occurrences === 0 || backfill?.status === 'running'}>
            Start backfill
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
        <FormError error={error ?? countError} shown={['from', 'to', 'max_runs']} />
      </form>
      {backfill && (
        <div data-testid="backfill-progress" role="status">
          <p>
            {backfill.status}: {backfill.counts.succeeded} succeeded, {backfill.counts.failed} failed,{' '}
            {backfill.counts.running} running, {backfill.counts.pending} pending, {backfill.counts.skipped_succeeded}{' '}
            skipped (already succeeded), {backfill.counts.canceled} canceled of {backfill.counts.total}
          </p>
          {backfill.status === 'running' && (
            <button type="button" onClick={() => void cancel()}>
              Cancel backfill
            </button>
          )}
        </div>
      )}
      <LiveNotice notice={notice} />
    </div>
  );
}
