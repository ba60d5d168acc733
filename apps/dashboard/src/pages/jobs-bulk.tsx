import { useState } from 'preact/hooks';
import { api } from '../api';
import { LiveNotice } from '../components/common';
import { bound, fieldsOf, FormError, TextField, useSubmit } from '../components/form';

/** What `POST /jobs/bulk` answers with `202`: the operation. */
interface Accepted {
  id: string;
  matched: number;
}

/**
 * The jobs list's bulk bar: pause the selected jobs with a note and, optionally, the end
 * of a maintenance window (they resume by themselves then), or resume them. One operation per
 * click; the list reloads once the operation had a moment.
 */
export function BulkActions({ selected, onDone }: { selected: string[]; onDone: () => void }) {
  const [note, setNote] = useState('');
  const [resumeAt, setResumeAt] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const [action, setAction] = useState<'pause' | 'resume'>('pause');
  const { submit, error, busy } = useSubmit(async () => {
    const pausing = action === 'pause';
    const accepted = await api<Accepted>('POST', '/api/v1/jobs/bulk', {
      action,
      filter: { ids: selected },
      ...(note.trim() ? { note: note.trim() } : {}),
      // datetime-local is the browser's local time; the API takes an instant.
      ...(pausing && resumeAt ? { resume_at: new Date(resumeAt).toISOString() } : {}),
    });
    setNotice(`${pausing ? 'Pausing' : 'Resuming'} ${accepted.matched} jobs (operation ${accepted.id})`);
    setTimeout(onDone, 1500);
  });
  const fields = fieldsOf(error);
  return (
    <form class="panel bulk-actions" data-testid="bulk-actions" onSubmit={submit}>
      <p>{selected.length} selected</p>
      <TextField
        id="bulk-note"
        label="Note"
        {...bound(fields, 'note', note, setNote)}
        placeholder="why, e.g. receiver maintenance CHG-1234"
      />
      <TextField
        id="bulk-resume-at"
        label="Resume at (optional)"
        type="datetime-local"
        {...bound(fields, 'resume_at', resumeAt, setResumeAt)}
        hint="A maintenance window: the paused jobs resume by themselves then."
      />
      <div class="actions">
        <button type="submit" disabled={busy} onClick={() => setAction('pause')}>
          Pause selected
        </button>
        <button type="submit" disabled={busy} onClick={() => setAction('resume')}>
          Resume selected
        </button>
      </div>
      <FormError error={error} shown={['note', 'resume_at']} />
      <LiveNotice notice={notice} />
    </form>
  );
}
