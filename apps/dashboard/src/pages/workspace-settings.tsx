import { useState } from 'preact/hooks';
import { getWorkspace, updateWorkspace, type WorkspaceDetail } from '../api';
import { ErrorNote, LiveNotice, useLoad } from '../components/common';
import { fieldsOf, FormError, messageFor, TextField } from '../components/form';
import { formatTime } from '../format';

/** The workspace's name and slug (`PATCH /workspaces/{ws}`), sending only what changed. */
export function WorkspaceSettings({ workspaceId, onChanged }: { workspaceId: string; onChanged: () => void }) {
  const workspace = useLoad(() => getWorkspace(workspaceId), [workspaceId]);
  return (
    <div>
      <h2>Workspace</h2>
      <ErrorNote error={workspace.error} />
      {workspace.data && <WorkspaceForm key={workspace.data.id} workspace={workspace.data} onChanged={onChanged} />}
    </div>
  );
}

function WorkspaceForm({ workspace, onChanged }: { workspace: WorkspaceDetail; onChanged: () => void }) {
  const [saved, setSaved] = useState(workspace);
  const [name, setName] = useState(workspace.name);
  const [slug, setSlug] = useState(workspace.slug);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = fieldsOf(error);

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    setNotice(null);
    const patch: { name?: string; slug?: string } = {};
    if (name !== saved.name) {
      patch.name = name;
    }
    if (slug !== saved.slug) {
      patch.slug = slug;
    }
    if (Object.keys(patch).length === 0) {
      setNotice('Nothing changed.');
      return;
    }
    setBusy(true);
    try {
      const updated = await updateWorkspace(saved.id, patch);
      setSaved(updated);
      setName(updated.name);
      setSlug(updated.slug);
      setNotice(`Saved: ${updated.name} (${updated.slug}).`);
      onChanged();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <dl class="panel">
        <dt>ID</dt>
        <dd>
          <code>{saved.id}</code>
        </dd>
        <dt>Plan</dt>
        <dd>{saved.plan}</dd>
        <dt>Created</dt>
        <dd>{formatTime(saved.created_at)}</dd>
      </dl>
      <form class="entity-form" onSubmit={(e) => void submit(e)} noValidate aria-label="Workspace settings">
        <TextField
          id="workspace-name"
          label="Workspace name"
          value={name}
          onValue={setName}
          error={messageFor(fields, 'name')}
        />
        <TextField
          id="workspace-slug"
          label="Slug"
          value={slug}
          onValue={setSlug}
          error={messageFor(fields, 'slug')}
          hint="Lowercase letters, digits and inner hyphens, unique on this server. Scripts may name the workspace by it (Svc-Workspace, operator commands): tell them when it changes."
        />
        <FormError error={error} shown={['name', 'slug']} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Save workspace
          </button>
        </div>
      </form>
      <LiveNotice notice={notice} />
    </>
  );
}
