import { useState } from 'preact/hooks';
import { type AuditFilter, listAuditLog, query } from '../api';
import { ListTable, useLoad } from '../components/common';
import { bound, fieldsOf, FormError, TextField } from '../components/form';
import { Pager, useCursorPages } from '../components/pager';
import { formatTime } from '../format';
import { navigate, useLocation } from '../router';

export const AUDIT_LOG_PATH = '/settings/audit-log';

/** The actions the server writes (decisions.md → Audit actions), offered as suggestions. */
const ACTIONS = [
  'job.create',
  'job.update',
  'job.delete',
  'job.pause',
  'job.resume',
  'job.enable',
  'job.trigger',
  'job.complete',
  'job.auto_disable',
  'job.rotate_signing_secret',
  'run.retry',
  'run.cancel',
  'job.backfill',
  'backfill.cancel',
  'api_key.create',
  'api_key.revoke',
  'secret.update',
  'secret.delete',
  'alert_channel.create',
  'alert_channel.update',
  'alert_channel.delete',
  'alert_rule.create',
  'alert_rule.update',
  'alert_rule.delete',
  'workspace.update',
  'workspace.suspend',
  'workspace.unsuspend',
];

const FILTER_KEYS = ['action', 'actor', 'target', 'from', 'to'] as const;
type FilterKey = (typeof FILTER_KEYS)[number];
type Filters = Record<FilterKey, string>;

/** `2026-11-26T09:30` in the viewer's zone, for a `datetime-local` input, from an ISO instant. */
function toLocalInput(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) {
    return '';
  }
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** The ISO instant of a `datetime-local` value (the viewer's zone), or empty. */
function fromLocalInput(local: string): string {
  return local ? new Date(local).toISOString() : '';
}

/** A link to the log filtered by one more value (the current filters kept). */
function filterHref(current: Filters, key: FilterKey, value: string): string {
  return AUDIT_LOG_PATH + query({ ...current, [key]: value });
}

/**
 * The workspace's audit log (`GET /audit-log`), newest first: filters by action, actor, target and
 * time range (kept in the address, so a filtered view can be shared), cursor paging.
 */
export function AuditLogPage() {
  const { search } = useLocation();
  const applied = Object.fromEntries(FILTER_KEYS.map((key) => [key, search.get(key) ?? ''])) as Filters;
  // A new address (filters applied or a value clicked) starts over: form, cursors and results.
  return <AuditLog key={JSON.stringify(applied)} applied={applied} />;
}

function AuditLog({ applied }: { applied: Filters }) {
  const [form, setForm] = useState<Filters>(() => ({
    ...applied,
    from: applied.from && toLocalInput(applied.from),
    to: applied.to && toLocalInput(applied.to),
  }));
  const pages = useCursorPages();
  const { cursor } = pages;
  const filter: AuditFilter = { ...applied, cursor: cursor ?? undefined, limit: 50 };
  const entries = useLoad(() => listAuditLog(filter), [cursor]);
  const fields = fieldsOf(entries.error);

  function apply(event: Event) {
    event.preventDefault();
    navigate(
      AUDIT_LOG_PATH +
        query({
          ...form,
          action: form.action.trim(),
          actor: form.actor.trim(),
          target: form.target.trim(),
          from: fromLocalInput(form.from),
          to: fromLocalInput(form.to),
        }),
    );
  }
  const set = (key: FilterKey) => (value: string) => setForm({ ...form, [key]: value });
  /** The filter's text field, bound to the form and showing the API's error for it. */
  const filterField = (key: FilterKey, label: string, props: Partial<Parameters<typeof TextField>[0]>) => (
    <TextField id={`audit-${key}`} label={label} {...bound(fields, key, form[key], set(key))} {...props} />
  );
  const filtered = FILTER_KEYS.some((key) => applied[key]);

  return (
    <div>
      <h2>Audit log</h2>
      <p class="note">Who changed what, newest first; kept for 30 days by default. Filters match exactly.</p>
      <form class="filters audit-filters" role="search" aria-label="Audit log filters" onSubmit={apply} noValidate>
        {filterField('action', 'Action', { list: 'audit-actions', placeholder: 'job.update' })}
        <datalist id="audit-actions">
          {ACTIONS.map((action) => (
            <option key={action} value={action} />
          ))}
        </datalist>
        {filterField('actor', 'Actor', { placeholder: 'user:… key:… system' })}
        {filterField('target', 'Target', { placeholder: 'job_… or a secret’s name' })}
        {filterField('from', 'From', { type: 'datetime-local' })}
        {filterField('to', 'To (before)', { type: 'datetime-local' })}
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          {filtered && (
            <a class="button" href={AUDIT_LOG_PATH}>
              Clear filters
            </a>
          )}
        </div>
      </form>
      <FormError error={entries.error} shown={[...FILTER_KEYS]} />
      {entries.data && (
        <ListTable
          empty={<p class="empty">{filtered ? 'No entries match these filters.' : 'No entries yet.'}</p>}
          label="Audit log"
          testId="audit-log"
          columns={['When', 'Actor', 'Action', 'Target', 'Details']}
          rows={entries.data.data}
          rowKey={(entry) => entry.id}
          cells={(entry) => (
            <>
              <td>
                <time dateTime={entry.created_at}>{formatTime(entry.created_at)}</time>
              </td>
              <td>
                <a href={filterHref(applied, 'actor', entry.actor)} title="Only this actor">
                  {entry.actor}
                </a>
              </td>
              <td>
                <a href={filterHref(applied, 'action', entry.action)} title="Only this action">
                  {entry.action}
                </a>
              </td>
              <td>
                <a href={filterHref(applied, 'target', entry.target)} title="Only this target">
                  {entry.target}
                </a>
              </td>
              <td>
                <code class="details">{JSON.stringify(entry.details)}</code>
              </td>
            </>
          )}
        />
      )}
      <Pager
        pages={pages}
        nextCursor={entries.data?.next_cursor}
        previousLabel="Newer entries"
        nextLabel="Older entries"
      />
    </div>
  );
}
