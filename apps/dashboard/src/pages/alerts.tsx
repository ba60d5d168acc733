import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  ALERT_EVENTS,
  type AlertChannel,
  type AlertChannelKind,
  type AlertEvent,
  type AlertRule,
  type AlertRuleInput,
  ApiError,
  CHANNEL_CONFIG_KEY,
  createAlertChannel,
  createAlertRule,
  deleteAlertChannel,
  deleteAlertRule,
  type Job,
  listAlertChannels,
  listAlertRules,
  listJobChoices,
  resendAlertChannelVerification,
  testAlertChannel,
  updateAlertChannel,
  updateAlertRule,
} from '../api';
import {
  ActionsHeader,
  ErrorNote,
  LiveNotice,
  OneTimeSecret,
  RowAction,
  StatusBadge,
  TableWrap,
  useLoad,
} from '../components/common';
import { CheckboxGroup, describe, fieldsOf, FormError, messageFor, TextField, useSubmit } from '../components/form';

const KINDS: Array<{ kind: AlertChannelKind; label: string; destination: string; type: 'email' | 'url' }> = [
  { kind: 'email', label: 'Email', destination: 'Email address', type: 'email' },
  { kind: 'webhook', label: 'Webhook (signed)', destination: 'Webhook URL', type: 'url' },
  { kind: 'slack', label: 'Slack incoming webhook', destination: 'Slack incoming-webhook URL', type: 'url' },
];
const kindOf = (kind: AlertChannelKind) => KINDS.find((k) => k.kind === kind)!;

const EVENT_LABELS: Record<AlertEvent, string> = {
  'run.failed': 'a run failed',
  'run.sla_breached': 'a run missed its SLA',
  'job.auto_disabled': 'a job was switched off for failing',
  'job.recovered': 'a job recovered',
  'service.degraded': 'the service is degraded (Temporal, PostgreSQL, no worker, schedule lag)',
  'service.recovered': 'the service recovered',
};

/** Puts the keyboard focus on `ref` when the form opens (an Edit button moves it here). */
function useFocusOnMount(ref: { current: HTMLElement | null }) {
  useLayoutEffect(() => ref.current?.focus(), []);
}

/**
 * Alert channels and rules (docs/alerts.md): create, edit, delete, send a test, resend an email
 * confirmation; a webhook channel's signing secret is shown once, as the API gives it.
 */
export function AlertsPage() {
  const channels = useLoad(listAlertChannels, []);
  const rules = useLoad(listAlertRules, []);
  const jobs = useLoad(listJobChoices, []);
  if (channels.error instanceof ApiError && channels.error.status === 404) {
    return <p class="muted">This server has no alerting.</p>;
  }
  return (
    <div>
      <Channels
        channels={channels.data?.data}
        loadError={channels.error}
        reload={() => {
          channels.reload();
          rules.reload();
        }}
      />
      <Rules
        rules={rules.data?.data}
        loadError={rules.error}
        channels={channels.data?.data ?? []}
        jobs={jobs.data?.data ?? []}
        reload={rules.reload}
      />
    </div>
  );
}

function Channels({
  channels,
  loadError,
  reload,
}: {
  channels: AlertChannel[] | undefined;
  loadError: unknown;
  reload: () => void;
}) {
  const [editing, setEditing] = useState<AlertChannel | null>(null);
  // Bumped after each save: the form starts empty again.
  const [generation, setGeneration] = useState(0);
  const [created, setCreated] = useState<AlertChannel | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function act(action: () => Promise<string>) {
    setError(null);
    setNotice(null);
    try {
      setNotice(await action());
    } catch (err) {
      setError(err);
    }
    reload();
  }

  const sendTest = (channel: AlertChannel) =>
    act(async () => {
      const result = await testAlertChannel(channel.id);
      return result.delivered
        ? `Test alert to “${channel.name}”: delivered.`
        : `Test alert to “${channel.name}” not delivered: ${result.error ?? 'no reason given'}`;
    });
  const resend = (channel: AlertChannel) =>
    act(async () => {
      const sent = await resendAlertChannelVerification(channel.id);
      return `A new confirmation link was mailed to ${sent.address}.`;
    });
  const remove = (channel: AlertChannel) => {
    if (confirm(`Delete the channel ${channel.name}? Rules stop sending to it.`)) {
      void act(async () => {
        await deleteAlertChannel(channel.id);
        if (editing?.id === channel.id) {
          setEditing(null);
        }
        return `Deleted ${channel.name}.`;
      });
    }
  };

  function saved(channel: AlertChannel, wasNew: boolean) {
    setEditing(null);
    setGeneration((n) => n + 1);
    setError(null);
    if (channel.signing_secret) {
      setCreated(channel);
    }
    setNotice(
      wasNew
        ? channel.kind === 'email' && !channel.verified
          ? `Created ${channel.name}: a confirmation link was mailed to ${channel.config.address}; alerts go there once it is followed.`
          : `Created ${channel.name}.`
        : `Saved ${channel.name}.${channel.kind === 'email' && !channel.verified ? ' The address is not verified yet.' : ''}`,
    );
    reload();
  }

  return (
    <div>
      <h2>Alert channels</h2>
      <p class="note">
        Where alerts go: an email address (confirmed by a mailed link first), a webhook signed with the channel’s own
        secret, or a Slack incoming webhook.
      </p>
      {created?.signing_secret && (
        <OneTimeSecret
          label={`Signing secret of “${created.name}”`}
          value={created.signing_secret}
          onDone={() => setCreated(null)}
        />
      )}
      <ChannelForm
        key={`${editing?.id ?? 'new'}.${generation}`}
        channel={editing}
        onSaved={saved}
        onCancel={editing ? () => setEditing(null) : undefined}
      />
      <LiveNotice notice={notice} />
      <ErrorNote error={error ?? loadError} />
      {channels && channels.length === 0 && <p class="empty">No channels.</p>}
      {channels && channels.length > 0 && (
        <TableWrap label="Alert channels">
          <table data-testid="alert-channels">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Destination</th>
                <th scope="col">State</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {channels.map((channel) => (
                <tr key={channel.id}>
                  <td>{channel.name}</td>
                  <td>{channel.kind}</td>
                  <td>
                    <code>{channel.config[CHANNEL_CONFIG_KEY[channel.kind]]}</code>
                  </td>
                  <td>
                    <StatusBadge value={channel.verified ? 'verified' : 'unverified'} />
                  </td>
                  <td>
                    <div class="row-actions">
                      <RowAction label="Edit" target={channel.name} onClick={() => setEditing(channel)} />
                      <RowAction
                        label="Send test"
                        target={`to ${channel.name}`}
                        onClick={() => void sendTest(channel)}
                      />
                      {channel.kind === 'email' && !channel.verified && (
                        <RowAction
                          label="Resend confirmation"
                          target={`to ${channel.name}`}
                          onClick={() => void resend(channel)}
                        />
                      )}
                      <RowAction label="Delete" target={channel.name} danger onClick={() => remove(channel)} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </div>
  );
}

/** Creates a channel, or edits `channel` (name and destination; the kind stays), sending only what changed. */
function ChannelForm({
  channel,
  onSaved,
  onCancel,
}: {
  channel: AlertChannel | null;
  onSaved: (channel: AlertChannel, wasNew: boolean) => void;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(channel?.name ?? '');
  const [kind, setKind] = useState<AlertChannelKind>(channel?.kind ?? 'webhook');
  // A Slack URL comes back masked: editing starts empty and an empty field keeps the stored one.
  const [destination, setDestination] = useState(
    channel && channel.kind !== 'slack' ? (channel.config[CHANNEL_CONFIG_KEY[channel.kind]] ?? '') : '',
  );
  const key = CHANNEL_CONFIG_KEY[kind];
  const { submit, error, busy } = useSubmit(async () => {
    if (channel) {
      const patch: { name?: string; config?: Record<string, string> } = {};
      if (name !== channel.name) {
        patch.name = name;
      }
      if (destination !== '' && destination !== channel.config[key]) {
        patch.config = { [key]: destination };
      }
      onSaved(Object.keys(patch).length > 0 ? await updateAlertChannel(channel.id, patch) : channel, false);
    } else {
      onSaved(await createAlertChannel({ name, kind, config: { [key]: destination } }), true);
    }
  });
  const first = useRef<HTMLInputElement>(null);
  useFocusOnMount(channel ? first : { current: null });
  const fields = fieldsOf(error);

  const destinationError = fields[`config.${key}`] ?? messageFor(fields, 'config');
  return (
    <form class="panel entity-form" onSubmit={submit} noValidate aria-labelledby="channel-form-title">
      <h3 id="channel-form-title">{channel ? `Edit channel “${channel.name}”` : 'New channel'}</h3>
      <div class="row">
        <TextField
          id="channel-name"
          label="Channel name"
          inputRef={first}
          value={name}
          onValue={setName}
          error={messageFor(fields, 'name')}
        />
        <div class="field">
          <label for="channel-kind">Kind</label>
          <select
            id="channel-kind"
            value={kind}
            disabled={Boolean(channel)}
            onChange={(e) => setKind((e.target as HTMLSelectElement).value as AlertChannelKind)}
            {...describe('channel-kind', messageFor(fields, 'kind'), channel ? 'kind' : undefined)}
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </select>
          {channel && (
            <p class="hint" id="channel-kind-hint">
              A channel keeps its kind; create another for a different one.
            </p>
          )}
          {messageFor(fields, 'kind') && (
            <p class="error" id="channel-kind-error">
              {messageFor(fields, 'kind')}
            </p>
          )}
        </div>
      </div>
      <TextField
        id="channel-destination"
        label={kindOf(kind).destination}
        type={kindOf(kind).type}
        value={destination}
        onValue={setDestination}
        error={destinationError}
        placeholder={
          channel?.kind === 'slack'
            ? channel.config.webhook_url
            : kind === 'email'
              ? 'ops@example.com'
              : 'https://example.com/alerts'
        }
        hint={
          channel?.kind === 'slack'
            ? 'The stored URL is a credential and not shown; leave empty to keep it.'
            : kind === 'email'
              ? 'A new address receives a confirmation link and gets alerts once it is followed.'
              : kind === 'webhook'
                ? 'Alerts are POSTed as JSON, signed with a secret shown once after creating.'
                : undefined
        }
      />
      <FormError error={error} shown={['name', 'kind', 'config']} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {channel ? 'Save channel' : 'Create channel'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function Rules({
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
      {rules && rules.length === 0 && <p class="empty">No rules.</p>}
      {rules && rules.length > 0 && (
        <TableWrap label="Alert rules">
          <table data-testid="alert-rules">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Events</th>
                <th scope="col">Channels</th>
                <th scope="col">Jobs</th>
                <th scope="col">Cooldown</th>
                <th scope="col">State</th>
                <ActionsHeader />
              </tr>
            </thead>
            <tbody>
              {rules.map((rule) => (
                <tr key={rule.id}>
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
                  <td>
                    <div class="row-actions">
                      <RowAction label="Edit" target={rule.name} onClick={() => setEditing(rule)} />
                      <RowAction label="Delete" target={rule.name} danger onClick={() => remove(rule)} />
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
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
        value={form.name}
        onValue={(v) => set('name', v)}
        error={messageFor(fields, 'name')}
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
          value={form.tags}
          onValue={(v) => set('tags', v)}
          error={messageFor(fields, 'tags')}
          hint="Comma-separated; a job needs one of them. Empty: any tags."
        />
        <TextField
          id="rule-cooldown"
          label="Cooldown"
          value={form.cooldown}
          onValue={(v) => set('cooldown', v)}
          error={messageFor(fields, 'cooldown')}
          placeholder="15m"
          hint="At most one alert per job and event in this window: 0s to 7d; empty on create: 15m."
        />
      </div>
      <FormError error={error} shown={['name', 'events', 'channel_ids', 'job_ids', 'tags', 'cooldown']} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {rule ? 'Save rule' : 'Create rule'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
