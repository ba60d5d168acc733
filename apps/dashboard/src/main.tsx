import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type DashboardConfig, type Features, type Me, setSession, whenSignedOut } from './api';
import type { AppContext } from './app-context';
import { ServiceBanner } from './components/service-banner';
import { JobDetailPage } from './pages/job-detail';
import { JobFormPage } from './pages/job-form';
import { JobsPage } from './pages/jobs';
import { LoginPage } from './pages/login';
import { RunDetailPage } from './pages/run-detail';
import { AUDIT_LOG_PATH } from './pages/audit-log';
import { ALERTS_PATH, SettingsPage } from './pages/settings';
import { StuckRunsPage } from './pages/stuck-runs';
import { navigate, onLinkClick, useLocation } from './router';
import './styles.css';

const WORKSPACE_KEY = 'svc.workspace';

function App() {
  const [features, setFeatures] = useState<Features | null>(null);
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [config, setConfig] = useState<DashboardConfig>({ temporal: null });
  const [workspaceId, setWorkspaceId] = useState<string | null>(null);
  const { path } = useLocation();

  async function load() {
    try {
      const current = await api<Me>('GET', '/api/v1/me');
      const saved = localStorage.getItem(WORKSPACE_KEY);
      const workspace = current.workspaces.find((w) => w.id === saved) ?? current.workspaces[0];
      setSession(current.csrf_token ?? null, workspace?.id ?? null);
      setWorkspaceId(workspace?.id ?? null);
      setConfig(await api<DashboardConfig>('GET', '/api/v1/dashboard/config'));
      setMe(current);
    } catch {
      setSession(null, null);
      setMe(null);
    }
  }

  useEffect(() => {
    whenSignedOut(() => {
      setSession(null, null);
      setMe(null);
    });
    void api<Features>('GET', '/api/v1/features').then(setFeatures, () => undefined);
    void load();
  }, []);

  if (me === undefined) {
    return <p class="loading">Loading…</p>;
  }
  if (me === null || !workspaceId) {
    return <LoginPage features={features} onSignedIn={() => void load()} />;
  }

  async function signOut() {
    await api('POST', '/api/v1/auth/logout').catch(() => undefined);
    setSession(null, null);
    setMe(null);
    navigate('/', true);
  }

  function switchWorkspace(id: string) {
    localStorage.setItem(WORKSPACE_KEY, id);
    setSession(me!.csrf_token ?? null, id);
    setWorkspaceId(id);
    navigate('/');
  }

  const context: AppContext = { me, workspaceId, config, reload: () => void load() };
  const section = path.startsWith(ALERTS_PATH)
    ? 'alerts'
    : path.startsWith(AUDIT_LOG_PATH)
      ? 'audit'
      : path.startsWith('/settings')
        ? 'settings'
        : path === '/runs/stuck'
          ? 'stuck'
          : 'jobs';
  return (
    <div class="shell" onClick={onLinkClick}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/">
          Scheduled jobs
        </a>
        <nav aria-label="Main">
          <a href="/" aria-current={section === 'jobs' ? 'page' : undefined}>
            Jobs
          </a>
          <a href="/runs/stuck" aria-current={section === 'stuck' ? 'page' : undefined}>
            Stuck runs
          </a>
          <a href={ALERTS_PATH} aria-current={section === 'alerts' ? 'page' : undefined}>
            Alerts
          </a>
          <a href={AUDIT_LOG_PATH} aria-current={section === 'audit' ? 'page' : undefined}>
            Audit log
          </a>
          <a href="/settings" aria-current={section === 'settings' ? 'page' : undefined}>
            Settings
          </a>
        </nav>
        <div class="account">
          {me.workspaces.length > 1 ? (
            <label>
              <span class="visually-hidden">Workspace</span>
              <select value={workspaceId} onChange={(e) => switchWorkspace((e.target as HTMLSelectElement).value)}>
                {me.workspaces.map((w) => (
                  <option value={w.id} key={w.id}>
                    {w.name}
                  </option>
                ))}
              </select>
            </label>
          ) : (
            <span class="workspace-name">{me.workspaces[0]?.name}</span>
          )}
          <span class="user" title={me.user?.email}>
            {me.user?.name}
          </span>
          <button type="button" class="link" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <ServiceBanner />
      <main id="main" tabIndex={-1} key={workspaceId}>
        <Routes path={path} context={context} />
      </main>
    </div>
  );
}

function Routes({ path, context }: { path: string; context: AppContext }) {
  let match: RegExpMatchArray | null;
  if (path === '/' || path === '/jobs') {
    return <JobsPage />;
  }
  if (path === '/jobs/new') {
    return <JobFormPage />;
  }
  if ((match = /^\/jobs\/([^/]+)\/edit$/.exec(path))) {
    return <JobFormPage jobId={decodeURIComponent(match[1])} />;
  }
  if ((match = /^\/jobs\/([^/]+)$/.exec(path))) {
    return <JobDetailPage jobId={decodeURIComponent(match[1])} context={context} />;
  }
  if (path === '/runs/stuck') {
    return <StuckRunsPage />;
  }
  if ((match = /^\/runs\/([^/]+)$/.exec(path))) {
    return <RunDetailPage runId={decodeURIComponent(match[1])} context={context} />;
  }
  if (path.startsWith('/settings')) {
    return <SettingsPage path={path} context={context} />;
  }
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page at this address. <a href="/">Back to the jobs</a>
      </p>
    </section>
  );
}

render(<App />, document.getElementById('app')!);
