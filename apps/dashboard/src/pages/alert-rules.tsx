/** The alert rules table and its form: which events of which jobs alert which channels. */
import { useRef, useState } from 'preact/hooks';
import {
  ALERT_EVENTS,
  type AlertChannel,
  type AlertEvent,
  type AlertRule,
  type AlertRuleInput,
  createAlertRule,
  deleteAlertRule,
  type Job,
  updateAlertRule,
} from '../api';
import { ErrorNote, ListTable, LiveNotice, RowAction, StatusBadge } from '../components/common';
import {
  bound,
  CheckboxGroup,
  fieldsOf,
  FormError,
  messageFor,
  SaveActions,
  TextField,
  useFocusOnMount,
  useSubmit,
} from '../components/form';

const EVENT_LABELS: Record<AlertEvent, string> = {
  'run.failed': 'a run failed',
  'run.sla_breached': 'a run missed its SLA',
  'job.auto_disabled': 'a job was switched off for failing',
  'job.recovered': 'a job recovered',
  'service.degraded': 'the service is degraded (Temporal, PostgreSQL, no worker, schedule lag)',
  'service.recovered': 'the service recovered',
};

export function Rules({
  rules,
  loadError,
  channels,
  jobs,
  reload,
}: {
  rules: AlertRule[] | undefined;
  loadError: unknown;
  channels: AlertChannel[];
  jobs: Array<Pick<Job, 'id' | 'name'>>;
  reload: () => void;
}) {
  const [editing, setEditing] = useState<AlertRule | null>(null);
  const [generation, setGeneration] = useState(0);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const channelName = (id: string) => channels.find((c) => c.id === id)?.name ?? id;
  const jobName = (id: string) => jobs.find((j) => j.id === id)?.name ?? id;

  function remove(rule: AlertRule) {
    if (confirm(`Delete the rule ${rule.name}?`)) {
      setError(null);
      deleteAlertRule(rule.id).then(
        () => {
          setNotice(`Deleted ${rule.name}.`);
          if (editing?.id === rule.id) {
            setEditing(null);
          }
          reload();
        },
        (err: unknown) => setError(err),
      );
    }
  }

  return (
    <div>
      <h2>Alert rules</h2>
      <p class="note">Which events of which jobs go to which channels, at most once per cooldown per job and event.</p>
      {channels.length === 0 && !editing ? (
        <p class="empty">Create a channel first: a rule sends to one or more channels.</p>
      ) : (
        <RuleForm
          key={`${editing?.id ?? 'new'}.${generation}`}
          rule={editing}
          channels={channels}
          jobs={jobs}
          onSaved={(rule, wasNew) => {
            setEditing(null);
            setGeneration((n) => n + 1);
            setNotice(`${wasNew ? 'Created' : 'Saved'} ${rule.name}.`);
            reload();
          }}
          onCancel={editing ? () => setEditing(null) : undefined}
        />
      )}
      <LiveNotice notice={notice} />
      <ErrorNote error={error ?? loadError} />
      {rules && (
        <ListTable
          empty={<p class="empty">No rules.</p>}
          label="Alert rules"
          testId="alert-rules"
          columns={['Name', 'Events', 'Channels', 'Jobs', 'Cooldown', 'State']}
          rows={rules}
          rowKey={(rule) => rule.id}
          cells={(rule) => (
            <>
              <td>{rule.name}</td>
              <td>{rule.events.join(', ')}</td>
              <td>{rule.channel_ids.map(channelName).join(', ') || 'none'}</td>
              <td>
                {rule.job_ids ? rule.job_ids.map(jobName).join(', ') : 'every job'}
                {rule.tags && ` tagged ${rule.tags.join(' or ')}`}
              </td>
              <td>{rule.cooldown}</td>
              <td>
                <StatusBadge value={rule.enabled ? 'enabled' : 'disabled'} />
              </td>
            </>
          )}
          actions={(rule) => (
            <div class="row-actions">
              <RowAction label="Edit" target={rule.name} onClick={() => setEditing(rule)} />
              <RowAction label="Delete" target={rule.name} danger onClick={() => remove(rule)} />
            </div>
          )}
        />
      )}
    </div>
  );
}

/** Comma- or space-separated tags; none is `null` (every job). */
function parseTags(text: string): string[] | null {
  const tags = [...new Set(text.split(/[,\s]+/).filter(Boolean))];
  return tags.length > 0 ? tags : null;
}

/** The rule body of the form; an empty cooldown on create is left out (the server's 15m). */
function ruleBody(form: RuleFormState): AlertRuleInput {
  return {
    name: form.name,
    enabled: form.enabled,
    events: form.events,
    channel_ids: form.channelIds,
    job_ids: form.jobIds.length > 0 ? form.jobIds : null,
    tags: parseTags(form.tags),
    ...(form.cooldown.trim() ? { cooldown: form.cooldown.trim() } : {}),
  };
}

interface RuleFormState {
  name: string;
  enabled: boolean;
  events: AlertEvent[];
  channelIds: string[];
  jobIds: string[];
  tags: string;
  cooldown: string;
}

function formOf(rule: AlertRule | null): RuleFormState {
  return {
    name: rule?.name ?? '',
    enabled: rule?.enabled ?? true,
    events: rule?.events ?? ['run.failed'],
    channelIds: rule?.channel_ids ?? [],
    jobIds: rule?.job_ids ?? [],
    tags: rule?.tags?.join(', ') ?? '',
    cooldown: rule?.cooldown ?? '',
  };
}

/** The fields of `after` that differ from `before`: an edit sends only what the user changed. */
function changedFields(before: AlertRuleInput, after: AlertRuleInput): Partial<AlertRuleInput> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(after)) {
    if (JSON.stringify(value) !== JSON.stringify(before[key as keyof AlertRuleInput])) {
      patch[key] = value;
    }
  }
  return patch as Partial<AlertRuleInput>;
}

function RuleForm({
  rule,
  channels,
  jobs,
  onSaved,
  onCancel,
}: {
  rule: AlertRule | null;
  channels: AlertChannel[];
  jobs: Array<Pick<Job, 'id' | 'name'>>;
  onSaved: (rule: AlertRule, wasNew: boolean) => void;
  onCancel?: () => void;
}) {
  const [form, setForm] = useState<RuleFormState>(() => formOf(rule));
  const { submit, error, busy } = useSubmit(async () => {
    if (rule) {
      const patch = changedFields(ruleBody(formOf(rule)), ruleBody(form));
      onSaved(Object.keys(patch).length > 0 ? await updateAlertRule(rule.id, patch) : rule, false);
    } else {
      onSaved(await createAlertRule(ruleBody(form)), true);
    }
  });
  const first = useRef<HTMLInputElement>(null);
  useFocusOnMount(rule ? first : { current: null });
  const fields = fieldsOf(error);
  const set = <K extends keyof RuleFormState>(key: K, value: RuleFormState[K]) => setForm({ ...form, [key]: value });
  // Jobs the rule names that are not among the first 200 listed still show, by id.
  const jobChoices = [
    ...jobs,
    ...form.jobIds.filter((id) => !jobs.some((j) => j.id === id)).map((id) => ({ id, name: id })),
  ];

  /** A fieldset of checkboxes with the API's error for `name` under it. */
  const checks = (
    name: string,
    legend: string,
    options: Array<{ value: string; label: string }>,
    selected: string[],
    onChange: (next: string[]) => void,
    hint?: string,
  ) => (
    <CheckboxGroup
      id={`rule-${name.replace(/_/g, '-')}`}
      className="choices"
      legend={legend}
      options={options}
      selected={selected}
      onChange={onChange}
      error={messageFor(fields, name)}
      hint={hint}
      empty="None yet."
    />
  );

  return (
    <form class="panel entity-form" onSubmit={submit} noValidate aria-labelledby="rule-form-title">
      <h3 id="rule-form-title">{rule ? `Edit rule “${rule.name}”` : 'New rule'}</h3>
      <TextField
        id="rule-name"
        label="Rule name"
        inputRef={first}
        {...bound(fields, 'name', form.name, (v) => set('name', v))}
      />
      <label class="check enabled">
        <input
          type="checkbox"
          checked={form.enabled}
          onChange={(e) => set('enabled', (e.target as HTMLInputElement).checked)}
        />
        Enabled
      </label>
      {checks(
        'events',
        'Events',
        ALERT_EVENTS.map((e) => ({ value: e, label: `${e} (${EVENT_LABELS[e]})` })),
        form.events,
        (next) => set('events', next as AlertEvent[]),
      )}
      {checks(
        'channel_ids',
        'Send to channels',
        channels.map((c) => ({ value: c.id, label: `${c.name} (${c.kind}${c.verified ? '' : ', unverified'})` })),
        form.channelIds,
        (next) => set('channelIds', next),
      )}
      {checks(
        'job_ids',
        'Only these jobs',
        jobChoices.map((j) => ({ value: j.id, label: j.name })),
        form.jobIds,
        (next) => set('jobIds', next),
        'None checked: every job.',
      )}
      <div class="row">
        <TextField
          id="rule-tags"
          label="Only jobs tagged"
          {...bound(fields, 'tags', form.tags, (v) => set('tags', v))}
          hint="Comma-separated; a job needs one of them. Empty: any tags."
        />
        <TextField
          id="rule-cooldown"
          label="Cooldown"
          {...bound(fields, 'cooldown', form.cooldown, (v) => set('cooldown', v))}
          placeholder="15m"
          hint="At most one alert per job and event in this window: 0s to 7d; empty on create: 15m."
        />
      </div>
      <FormError error={error} shown={['name', 'events', 'channel_ids', 'job_ids', 'tags', 'cooldown']} />
      <SaveActions label={rule ? 'Save rule' : 'Create rule'} busy={busy} onCancel={onCancel} />
    </form>
  );
}
