/** The alert channels table and its form: where alerts go (email, signed webhook, Slack). */
import { useRef, useState } from 'preact/hooks';
import {
  type AlertChannel,
  type AlertChannelKind,
  CHANNEL_CONFIG_KEY,
  createAlertChannel,
  deleteAlertChannel,
  resendAlertChannelVerification,
  testAlertChannel,
  updateAlertChannel,
} from '../api';
import { ErrorNote, ListTable, LiveNotice, OneTimeSecret, RowAction, StatusBadge } from '../components/common';
import {
  bound,
  describe,
  fieldsOf,
  FormError,
  messageFor,
  SaveActions,
  TextField,
  useFocusOnMount,
  useSubmit,
} from '../components/form';

const KINDS: Array<{ kind: AlertChannelKind; label: string; destination: string; type: 'email' | 'url' }> = [
  { kind: 'email', label: 'Email', destination: 'Email address', type: 'email' },
  { kind: 'webhook', label: 'Webhook (signed)', destination: 'Webhook URL', type: 'url' },
  { kind: 'slack', label: 'Slack incoming webhook', destination: 'Slack incoming-webhook URL', type: 'url' },
];
const kindOf = (kind: AlertChannelKind) => KINDS.find((k) => k.kind === kind)!;

export function Channels({
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
      {channels && (
        <ListTable
          empty={<p class="empty">No channels.</p>}
          label="Alert channels"
          testId="alert-channels"
          columns={['Name', 'Kind', 'Destination', 'State']}
          rows={channels}
          rowKey={(channel) => channel.id}
          cells={(channel) => (
            <>
              <td>{channel.name}</td>
              <td>{channel.kind}</td>
              <td>
                <code>{channel.config[CHANNEL_CONFIG_KEY[channel.kind]]}</code>
              </td>
              <td>
                <StatusBadge value={channel.verified ? 'verified' : 'unverified'} />
              </td>
            </>
          )}
          actions={(channel) => (
            <div class="row-actions">
              <RowAction label="Edit" target={channel.name} onClick={() => setEditing(channel)} />
              <RowAction label="Send test" target={`to ${channel.name}`} onClick={() => void sendTest(channel)} />
              {channel.kind === 'email' && !channel.verified && (
                <RowAction
                  label="Resend confirmation"
                  target={`to ${channel.name}`}
                  onClick={() => void resend(channel)}
                />
              )}
              <RowAction label="Delete" target={channel.name} danger onClick={() => remove(channel)} />
            </div>
          )}
        />
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
        <TextField id="channel-name" label="Channel name" inputRef={first} {...bound(fields, 'name', name, setName)} />
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
      <SaveActions label={channel ? 'Save channel' : 'Create channel'} busy={busy} onCancel={onCancel} />
    </form>
  );
}
