import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorNote, ListTable, LiveNotice, RowAction, useLoad, usePoll } from '../components/common';
import { TextField, useSubmit } from '../components/form';
import { formatTime } from '../format';

export const DESTINATIONS_PATH = '/settings/destinations';

interface Destination {
  destination: string;
  max_in_flight: number | null;
  per_minute: number | null;
  on_429: 'pause_destination' | null;
  in_flight: number;
  waiting: number;
  held_until: string | null;
  starts_last_minute: number;
}

/** `''` → null, else the number typed (the API answers 400 for 0 or less). */
const limit = (text: string) => (text.trim() === '' ? null : Number(text));

/**
 * Destination limits: what each limited destination has in flight, how many runs wait
 * for it and until when a `Retry-After` holds it, refreshed every 5 seconds; set, replace or remove
 * a destination's limits.
 */
export function DestinationsPage() {
  const list = useLoad(() => api<{ data: Destination[] }>('GET', '/api/v1/destinations'), []);
  usePoll(list.reload, 5_000);
  const [destination, setDestination] = useState('');
  const [maxInFlight, setMaxInFlight] = useState('');
  const [perMinute, setPerMinute] = useState('');
  const [pause, setPause] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const save = useSubmit(async () => {
    await api('PUT', `/api/v1/destinations/${encodeURIComponent(destination)}`, {
      max_in_flight: limit(maxInFlight),
      per_minute: limit(perMinute),
      on_429: pause ? 'pause_destination' : null,
    });
    setNotice(`Saved the limits of ${destination}; workers apply them within 5 seconds.`);
    setDestination('');
    setMaxInFlight('');
    setPerMinute('');
    setPause(false);
    list.reload();
  });
  const { error, setError } = save;

  function edit(row: Destination) {
    setDestination(row.destination);
    setMaxInFlight(row.max_in_flight === null ? '' : String(row.max_in_flight));
    setPerMinute(row.per_minute === null ? '' : String(row.per_minute));
    setPause(row.on_429 === 'pause_destination');
  }

  async function remove(row: Destination) {
    if (confirm(`Remove the limits of ${row.destination}? Its attempts are no longer counted.`)) {
      setError(null);
      await api('DELETE', `/api/v1/destinations/${encodeURIComponent(row.destination)}`).catch(setError);
      list.reload();
    }
  }

  return (
    <div>
      <h2>Destinations</h2>
      <p class="note">
        Limits shared by every job and worker of the workspace. A destination is a webhook URL’s <code>host:port</code>{' '}
        (<code>hooks.example.com:443</code>) or the name a job’s sink sets as <code>destination</code>. An attempt that
        must wait leaves its run deferred and spends no retry.
      </p>
      <form class="inline-form" onSubmit={save.submit} data-testid="destination-form">
        <TextField
          id="destination-name"
          label="Destination"
          value={destination}
          required
          placeholder="hooks.example.com:443"
          onValue={setDestination}
        />
        <TextField id="destination-max-in-flight" label="Max in flight" value={maxInFlight} onValue={setMaxInFlight} />
        <TextField id="destination-per-minute" label="Per minute" value={perMinute} onValue={setPerMinute} />
        <label class="check">
          <input type="checkbox" checked={pause} onChange={(e) => setPause((e.target as HTMLInputElement).checked)} />{' '}
          Hold every job on 429/503 with Retry-After
        </label>
        <button type="submit" class="primary">
          Save limits
        </button>
      </form>
      <LiveNotice notice={notice} />
      <ErrorNote error={error ?? list.error} />
      {list.data && (
        <ListTable
          empty={<p>No destination has limits: every attempt is sent at once.</p>}
          label="Destinations"
          testId="destinations"
          columns={['Destination', 'Max in flight', 'Per minute', 'On 429', 'In flight', 'Waiting', 'Held until']}
          rows={list.data.data}
          rowKey={(row) => row.destination}
          cells={(row) => (
            <>
              <td>
                <code>{row.destination}</code>
              </td>
              <td>{row.max_in_flight ?? '—'}</td>
              <td>{row.per_minute === null ? '—' : `${row.starts_last_minute} / ${row.per_minute}`}</td>
              <td>{row.on_429 === 'pause_destination' ? 'hold all jobs' : '—'}</td>
              <td>{row.in_flight}</td>
              <td>{row.waiting}</td>
              <td>{row.held_until ? formatTime(row.held_until) : '—'}</td>
            </>
          )}
          actions={(row) => (
            <>
              <RowAction label="Edit" target={row.destination} onClick={() => edit(row)} />
              <RowAction label="Remove" target={row.destination} danger onClick={() => void remove(row)} />
            </>
          )}
        />
      )}
    </div>
  );
}
