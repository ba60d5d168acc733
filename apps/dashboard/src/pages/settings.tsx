import type { ChartConfiguration } from 'chart.js';
import { Fragment } from 'preact';
import { useMemo, useState } from 'preact/hooks';
import { api, type Page } from '../api';
import { COLORS, useChart } from '../charts';
import { ErrorNote, ListTable, LiveNotice, OneTimeSecret, RowAction, StatusBadge, useLoad } from '../components/common';
import { CheckboxGroup, Field, TextField, useSubmit } from '../components/form';
import { formatMs, formatTime } from '../format';
import type { AppContext } from '../app-context';
import { AlertsPage } from './alerts';
import { AUDIT_LOG_PATH, AuditLogPage } from './audit-log';
import { CALENDARS_PATH, CalendarsPage } from './calendars';
import { DESTINATIONS_PATH, DestinationsPage } from './destinations';
import { WorkspaceSettings } from './workspace-settings';

export const WORKSPACE_PATH = '/settings/workspace';
export const ALERTS_PATH = '/settings/alerts';

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  key?: string;
}

interface Secret {
  name: string;
  created_at: string;
  updated_at: string;
}

const TABS = [
  { path: '/settings', label: 'API keys' },
  { path: '/settings/secrets', label: 'Secrets' },
  { path: WORKSPACE_PATH, label: 'Workspace' },
  { path: ALERTS_PATH, label: 'Alerts' },
  { path: DESTINATIONS_PATH, label: 'Destinations' },
  { path: CALENDARS_PATH, label: 'Calendars' },
  { path: AUDIT_LOG_PATH, label: 'Audit log' },
  { path: '/settings/usage', label: 'Usage and stats' },
];

/**
 * Settings: API keys, secrets, the workspace's name and slug, alert channels and rules, destination
 * limits, calendars, the audit log, usage and stats. All under `/settings/…`, the paths the API serves the page at.
 */
export function SettingsPage({ path, context }: { path: string; context: AppContext }) {
  const role = context.me.workspaces.find((w) => w.id === context.workspaceId)?.role;
  return (
    <section>
      <h1>Settings</h1>
      <nav class="tabs" aria-label="Settings">
        {TABS.map((tab) => (
          <a key={tab.path} href={tab.path} aria-current={path === tab.path ? 'page' : undefined}>
            {tab.label}
          </a>
        ))}
      </nav>
      {role === 'member' && path !== '/settings/usage' && (
        <p class="notice">
          Members cannot manage keys, secrets, alerts or the workspace, nor read the audit log; ask an owner or admin.
        </p>
      )}
      {path === '/settings' && <ApiKeys />}
      {path === '/settings/secrets' && <Secrets />}
      {path === WORKSPACE_PATH && <WorkspaceSettings workspaceId={context.workspaceId} onChanged={context.reload} />}
      {path === ALERTS_PATH && <AlertsPage />}
      {path === DESTINATIONS_PATH && <DestinationsPage />}
      {path === CALENDARS_PATH && <CalendarsPage />}
      {path === AUDIT_LOG_PATH && <AuditLogPage />}
      {path === '/settings/usage' && <UsageAndStats />}
      {!TABS.some((tab) => tab.path === path) && <p>There is no such settings page.</p>}
    </section>
  );
}

const SCOPES = ['*', 'jobs:read', 'jobs:write', 'runs:read'];

function ApiKeys() {
  const keys = useLoad(() => api<Page<ApiKey>>('GET', '/api/v1/api-keys?limit=200'), []);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['*']);
  const [created, setCreated] = useState<ApiKey | null>(null);
  const create = useSubmit(async () => {
    setCreated(await api<ApiKey>('POST', '/api/v1/api-keys', { name, scopes }));
    setName('');
    keys.reload();
  });
  const { error, setError } = create;

  async function revoke(key: ApiKey) {
    if (confirm(`Revoke ${key.name} (${key.prefix}…)? It stops working at once.`)) {
      await api('DELETE', `/api/v1/api-keys/${key.id}`).catch(setError);
      keys.reload();
    }
  }

  return (
    <div>
      <h2>API keys</h2>
      {created?.key && (
        <OneTimeSecret label={`API key “${created.name}”`} value={created.key} onDone={() => setCreated(null)} />
      )}
      <form class="inline-form" onSubmit={create.submit}>
        <TextField id="key-name" label="Name" value={name} required onValue={setName} />
        <CheckboxGroup
          id="key-scopes"
          className="scopes"
          legend="Scopes"
          options={SCOPES.map((scope) => ({ value: scope, label: scope === '*' ? '* (everything)' : scope }))}
          selected={scopes}
          onChange={setScopes}
        />
        <button type="submit" class="primary">
          Create key
        </button>
      </form>
      <ErrorNote error={error ?? keys.error} />
      {keys.data && (
        <ListTable
          label="API keys"
          testId="api-keys"
          columns={['Name', 'Prefix', 'Scopes', 'Last used', 'State']}
          rows={keys.data.data}
          rowKey={(key) => key.id}
          cells={(key) => (
            <>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td>{key.scopes.join(', ')}</td>
              <td>{formatTime(key.last_used_at)}</td>
              <td>{key.revoked_at ? <StatusBadge value="revoked" /> : <StatusBadge value="active" />}</td>
            </>
          )}
          actions={(key) =>
            !key.revoked_at && <RowAction label="Revoke" target={key.name} danger onClick={() => void revoke(key)} />
          }
        />
      )}
    </div>
  );
}

function Secrets() {
  const secrets = useLoad(() => api<Page<Secret>>('GET', '/api/v1/secrets?limit=200'), []);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const save = useSubmit(async () => {
    await api('PUT', `/api/v1/secrets/${encodeURIComponent(name)}`, { value });
    setNotice(`Saved ${name}. Use it as {{secret.${name}}} in headers or body.`);
    setName('');
    setValue('');
    secrets.reload();
  });
  const { error, setError } = save;

  async function remove(secret: Secret) {
    if (confirm(`Delete the secret ${secret.name}?`)) {
      setError(null);
      await api('DELETE', `/api/v1/secrets/${encodeURIComponent(secret.name)}`).catch(setError);
      secrets.reload();
    }
  }

  return (
    <div>
      <h2>Secrets</h2>
      <p class="note">
        Values are write-only: stored encrypted, never shown again. Saving an existing name replaces it.
      </p>
      <form class="inline-form" onSubmit={save.submit}>
        <TextField
          id="secret-name"
          label="Name"
          value={name}
          required
          pattern="[A-Za-z_][A-Za-z0-9_]{0,63}"
          onValue={setName}
        />
        <Field id="secret-value" label="Value">
          <input
            id="secret-value"
            type="password"
            autoComplete="off"
            value={value}
            required
            onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          />
        </Field>
        <button type="submit" class="primary">
          Save secret
        </button>
      </form>
      <LiveNotice notice={notice} />
      <ErrorNote error={error ?? secrets.error} />
      {secrets.data && (
        <ListTable
          label="Secrets"
          columns={['Name', 'Updated']}
          rows={secrets.data.data}
          rowKey={(secret) => secret.name}
          cells={(secret) => (
            <>
              <td>
                <code>{secret.name}</code>
              </td>
              <td>{formatTime(secret.updated_at)}</td>
            </>
          )}
          actions={(secret) => (
            <RowAction label="Delete" target={secret.name} danger onClick={() => void remove(secret)} />
          )}
        />
      )}
    </div>
  );
}

interface Usage {
  month: string;
  runs: number;
  limit: number;
  over_quota_policy: string;
  reset_at: string;
}

interface Stats {
  window: string;
  jobs: Record<string, number>;
  runs: { total: number; succeeded: number; failed: number; sla_breached: number };
  start_lag_ms: { p50: number | null; p95: number | null; p99: number | null };
  failing_jobs: Array<{ id: string; name: string; consecutive_failures: number }>;
}

function barConfig(labels: string[], values: number[], colors: string[], label: string): ChartConfiguration {
  return {
    type: 'bar',
    data: { labels, datasets: [{ label, data: values, backgroundColor: colors }] },
    options: {
      animation: false,
      maintainAspectRatio: false,
      plugins: { legend: { display: false } },
      scales: { y: { beginAtZero: true } },
    },
  };
}

function UsageAndStats() {
  const [statsWindow, setStatsWindow] = useState('24h');
  const usage = useLoad(() => api<Usage>('GET', '/api/v1/usage'), []);
  const stats = useLoad(() => api<Stats>('GET', `/api/v1/stats/overview?window=${statsWindow}`), [statsWindow]);
  const s = stats.data;
  const statusChart = useMemo(
    () =>
      s
        ? barConfig(
            ['succeeded', 'failed', 'other'],
            [s.runs.succeeded, s.runs.failed, Math.max(0, s.runs.total - s.runs.succeeded - s.runs.failed)],
            [COLORS.succeeded, COLORS.failed, COLORS.other],
            'runs',
          )
        : null,
    [s],
  );
  const lagChart = useMemo(
    () =>
      s
        ? barConfig(
            ['p50', 'p95', 'p99'],
            [s.start_lag_ms.p50 ?? 0, s.start_lag_ms.p95 ?? 0, s.start_lag_ms.p99 ?? 0],
            [COLORS.accent, COLORS.accent, COLORS.accent],
            'start lag (ms)',
          )
        : null,
    [s],
  );
  const statusCanvas = useChart(statusChart);
  const lagCanvas = useChart(lagChart);
  const u = usage.data;
  return (
    <div>
      <h2>Usage</h2>
      <ErrorNote error={usage.error} />
      {u && (
        <div class="panel">
          <p>
            <strong>{u.runs.toLocaleString()}</strong> runs in {u.month}
            {u.limit > 0 ? ` of ${u.limit.toLocaleString()} (${u.over_quota_policy} when over)` : ' (no monthly limit)'}
          </p>
          {u.limit > 0 && <progress max={u.limit} value={u.runs} aria-label="Monthly runs used" />}
          <p class="muted">Resets {formatTime(u.reset_at)}</p>
        </div>
      )}
      <h2>Stats</h2>
      <label>
        Window{' '}
        <select value={statsWindow} onChange={(e) => setStatsWindow((e.target as HTMLSelectElement).value)}>
          {['1h', '24h', '7d', '30d'].map((w) => (
            <option key={w}>{w}</option>
          ))}
        </select>
      </label>
      <ErrorNote error={stats.error} />
      {s && (
        <div class="grid">
          <figure class="panel chart">
            <figcaption>
              Runs per status: {s.runs.succeeded} succeeded, {s.runs.failed} failed of {s.runs.total};{' '}
              {s.runs.sla_breached} SLA breaches
            </figcaption>
            <div class="chart-box">
              <canvas ref={statusCanvas} role="img" aria-label="Runs per status" />
            </div>
          </figure>
          <figure class="panel chart">
            <figcaption>
              Start lag: p50 {formatMs(s.start_lag_ms.p50)}, p95 {formatMs(s.start_lag_ms.p95)}, p99{' '}
              {formatMs(s.start_lag_ms.p99)}
            </figcaption>
            <div class="chart-box">
              <canvas ref={lagCanvas} role="img" aria-label="Start lag percentiles" />
            </div>
          </figure>
          <div class="panel">
            <h3>Jobs</h3>
            <dl>
              {Object.entries(s.jobs).map(([state, count]) => (
                <Fragment key={state}>
                  <dt>{state}</dt>
                  <dd>{count}</dd>
                </Fragment>
              ))}
            </dl>
            {s.failing_jobs.length > 0 && (
              <>
                <h3>Failing jobs</h3>
                <ul>
                  {s.failing_jobs.map((j) => (
                    <li key={j.id}>
                      <a href={`/jobs/${j.id}`}>{j.name}</a>: {j.consecutive_failures} failures in a row
                    </li>
                  ))}
                </ul>
              </>
            )}
          </div>
        </div>
      )}
    </div>
  );
}
