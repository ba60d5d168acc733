import { useState } from 'preact/hooks';
import { getWorkspace, updateWorkspace, type WorkspaceDetail } from '../api';
import { ErrorNote, LiveNotice, useLoad } from '../components/common';
import { bound, describe, Field, fieldsOf, FormError, messageFor, SaveActions, TextField } from '../components/form';
import { formatTime } from '../format';

/**
 * The workspace's name, slug and temporal_workflow task queues (`PATCH /workspaces/{ws}`), sending
 * only what changed.
 */
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
  const [queues, setQueues] = useState(queueText(workspace.temporal_workflow_task_queues));
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields = fieldsOf(error);

  async function submit(event: Event) {
    event.preventDefault();
    setError(null);
    setNotice(null);
    const patch: { name?: string; slug?: string; temporal_workflow_task_queues?: string[] | null } = {};
    if (name !== saved.name) {
      patch.name = name;
    }
    if (slug !== saved.slug) {
      patch.slug = slug;
    }
    const patterns = queuePatterns(queues);
    if (JSON.stringify(patterns) !== JSON.stringify(saved.temporal_workflow_task_queues ?? null)) {
      patch.temporal_workflow_task_queues = patterns;
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
      setQueues(queueText(updated.temporal_workflow_task_queues));
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
        <TextField id="workspace-name" label="Workspace name" {...bound(fields, 'name', name, setName)} />
        <TextField
          id="workspace-slug"
          label="Slug"
          {...bound(fields, 'slug', slug, setSlug)}
          hint="Lowercase letters, digits and inner hyphens, unique on this server. Scripts may name the workspace by it (Svc-Workspace, operator commands): tell them when it changes."
        />
        <Field
          id="workspace-task-queues"
          label="Temporal workflow task queues"
          error={messageFor(fields, 'temporal_workflow_task_queues')}
          hint="One pattern per line (* matches any characters): the task queues this workspace's temporal_workflow jobs may start workflows on, within what the server allows. Empty: whatever the server allows. Jobs are checked on every save and every attempt."
        >
          <textarea
            id="workspace-task-queues"
            rows={3}
            value={queues}
            placeholder={'reports-*\netl'}
            onInput={(e) => setQueues((e.target as HTMLTextAreaElement).value)}
            {...describe(
              'workspace-task-queues',
              messageFor(fields, 'temporal_workflow_task_queues'),
              'workspace task queues',
            )}
          />
        </Field>
        <FormError error={error} shown={['name', 'slug', 'temporal_workflow_task_queues']} />
        <SaveActions label="Save workspace" busy={busy} />
      </form>
      <LiveNotice notice={notice} />
    </>
  );
}

/** The stored patterns as the textarea shows them, one per line. */
function queueText(patterns: string[] | null | undefined): string {
  return (patterns ?? []).join('\n');
}

/** The textarea's patterns, or null when it is empty (the server's list as is). */
function queuePatterns(text: string): string[] | null {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return patterns.length > 0 ? patterns : null;
}
