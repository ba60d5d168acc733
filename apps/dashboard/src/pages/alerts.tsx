import { ApiError, listAlertChannels, listAlertRules, listJobChoices } from '../api';
import { useLoad } from '../components/common';
import { Channels } from './alert-channels';
import { Rules } from './alert-rules';

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
