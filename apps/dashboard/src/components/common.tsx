import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, query } from '../api';

export function StatusBadge({ value }: { value: string | null | undefined }) {
  if (!value) {
    return <span class="badge muted">none</span>;
  }
  const hint = STATUS_HINTS[value];
  return (
    <span class={`badge ${value}`} title={hint} data-hint={hint}>
      {value.replace(/_/g, ' ')}
    </span>
  );
}

/** What a run state means, shown on hover (docs/api.md → Run states). */
const STATUS_HINTS: Record<string, string | undefined> = {
  running: 'Running: an attempt is being sent, or about to be.',
  deferred:
    'Deferred: waiting, not failed. An attempt failed and the next one is scheduled (retry backoff), or the run waits its turn behind the previous run (overlap policy queue). It can be cancelled.',
  cancelled: 'Cancelled: stopped by a cancel, a job deletion or overlap policy cancel_previous; not retried.',
  skipped: 'Skipped: not delivered (misfire or overlap policy).',
};

export function ErrorNote({ error }: { error: unknown }) {
  if (!error) {
    return null;
  }
  const text =
    error instanceof ApiError
      ? `${error.body.message}${
          error.body.fields
            ? ': ' +
              Object.entries(error.body.fields)
                .map(([k, v]) => `${k} ${v}`)
                .join('; ')
            : ''
        }`
      : String((error as Error).message ?? error);
  return (
    <p role="alert" class="error">
      {text}
    </p>
  );
}

/** Loads `load()` on mount and whenever `deps` change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((n) => n + 1) };
}

/** Calls `tick` every `ms` while the page is visible. */
export function usePoll(tick: () => void, ms: number) {
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') {
        tick();
      }
    }, ms);
    return () => clearInterval(timer);
  });
}

export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

/** A one-time secret (API key, signing secret): shown once with a copy button. */
export function OneTimeSecret({ label, value, onDone }: { label: string; value: string; onDone?: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="one-time" role="status">
      <p>
        <strong>{label}</strong> — copy it now: it is shown only this once.
      </p>
      <code class="secret" data-testid="one-time-secret">
        {value}
      </code>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(value).then(
              () => setCopied(true),
              () => setCopied(false),
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        {onDone && (
          <button type="button" onClick={onDone}>
            I have stored it
          </button>
        )}
      </div>
    </div>
  );
}

/** The header cell of a table's row-actions column (named for screen readers only). */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span class="visually-hidden">Actions</span>
    </th>
  );
}

/** A row's action button: `label` ("Delete"), with `target` ("the key's name") read to screen readers. */
export function RowAction({
  label,
  target,
  danger,
  onClick,
}: {
  label: string;
  target: string;
  danger?: boolean;
  onClick: () => void;
}) {
  return (
    <button type="button" class={danger ? 'danger' : undefined} onClick={onClick}>
      {label}
      <span class="visually-hidden"> {target}</span>
    </button>
  );
}

/** What the last action did, announced politely. */
export function LiveNotice({ notice }: { notice: string | null }) {
  return <div aria-live="polite">{notice && <p class="notice">{notice}</p>}</div>;
}

/**
 * A job an apply declared: its owner's next apply puts back whatever is edited here
 * (pausing and disabling stay: apply never resumes nor enables a job).
 */
export function ManagedNote({ owner }: { owner: string }) {
  return (
    <p class="panel managed-note" role="note" data-testid="managed-note">
      Managed by <a href={`/${query({ managed_by: owner })}`}>{owner}</a>: edits here are overwritten by the next apply.
    </p>
  );
}

/**
 * A list as a table: a header cell a column, a row an item, and, when `actions` is given,
 * a last column of the row's buttons (`RowAction`) under an `ActionsHeader`; with no rows, `empty`
 * (a page's "No …" line) stands instead of the table when given.
 */
export function ListTable<T>({
  label,
  className,
  testId,
  columns,
  rows,
  rowKey,
  cells,
  actions,
  empty,
}: {
  label: string;
  className?: string;
  testId?: string;
  columns: string[];
  rows: T[];
  rowKey: (row: T) => string;
  /** The row's cells (`<td>`s), before its actions. */
  cells: (row: T) => ComponentChildren;
  actions?: (row: T) => ComponentChildren;
  empty?: ComponentChildren;
}) {
  if (empty !== undefined && rows.length === 0) {
    return <>{empty}</>;
  }
  return (
    <TableWrap label={label}>
      <table class={className} data-testid={testId}>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {column}
              </th>
            ))}
            {actions && <ActionsHeader />}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {cells(row)}
              {actions && <td>{actions(row)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
