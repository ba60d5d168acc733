import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Job } from '../api';
import { ErrorNote } from '../components/common';
import { ScheduleField } from '../components/schedule-field';
import { timeZones, viewerZone } from '../format';
import { navigate } from '../router';

interface FormState {
  name: string;
  description: string;
  tags: string;
  expr: string;
  kind: string;
  timezone: string;
  url: string;
  method: string;
  headers: string;
  body: string;
  maxAttempts: string;
  timeout: string;
}

const EMPTY: FormState = {
  name: '',
  description: '',
  tags: '',
  expr: '',
  kind: 'auto',
  timezone: viewerZone,
  url: '',
  method: 'POST',
  headers: '',
  body: '',
  maxAttempts: '3',
  timeout: '30s',
};

function fromJob(job: Job): FormState {
  const config = job.sink.config as { url?: string; method?: string; headers?: Record<string, string>; body?: string };
  return {
    name: job.name,
    description: job.description ?? '',
    tags: job.tags.join(', '),
    expr: job.schedule.expr,
    kind: 'auto',
    timezone: job.schedule.timezone,
    url: config.url ?? '',
    method: config.method ?? 'POST',
    headers: Object.entries(config.headers ?? {})
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
    body: config.body ?? '',
    maxAttempts: String(job.retry.max_attempts),
    timeout: job.timeout,
  };
}

/** `Name: value` lines → a header map. */
function parseHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(':');
    if (at > 0) {
      headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
  }
  return headers;
}

/** Create or edit a webhook job. */
export function JobFormPage({ jobId }: { jobId?: string }) {
  const [form, setForm] = useState<FormState>(EMPTY);
  const [error, setError] = useState<unknown>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [loaded, setLoaded] = useState(!jobId);

  useEffect(() => {
    if (jobId) {
      api<Job>('GET', `/api/v1/jobs/${encodeURIComponent(jobId)}`).then((job) => {
        setForm(fromJob(job));
        setLoaded(true);
      }, setError);
    }
  }, [jobId]);

  const set = (key: keyof FormState) => (event: Event) =>
    setForm({ ...form, [key]: (event.target as HTMLInputElement).value });

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setFields({});
    const body = {
      name: form.name,
      description: form.description,
      tags: form.tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      schedule: { expr: form.expr, kind: form.kind, timezone: form.timezone },
      sink: {
        kind: 'webhook',
        config: {
          url: form.url,
          method: form.method,
          headers: parseHeaders(form.headers),
          ...(form.body ? { body: form.body } : {}),
        },
      },
      retry: { max_attempts: Number(form.maxAttempts) },
      timeout: form.timeout,
    };
    try {
      const job = jobId
        ? await api<Job>('PATCH', `/api/v1/jobs/${encodeURIComponent(jobId)}`, body)
        : await api<Job>('POST', '/api/v1/jobs', body);
      if (job.signing_secret) {
        sessionStorage.setItem(`svc.signing.${job.id}`, job.signing_secret);
      }
      navigate(`/jobs/${job.id}`);
    } catch (err) {
      setError(err);
      if (err instanceof ApiError && err.body.fields) {
        setFields(err.body.fields);
      }
    } finally {
      setBusy(false);
    }
  }

  const fieldError = (name: string) =>
    fields[name] ? (
      <p class="error" id={`${name}-error`}>
        {fields[name]}
      </p>
    ) : null;
  const described = (name: string) => (fields[name] ? `${name}-error` : undefined);

  if (!loaded) {
    return error ? <ErrorNote error={error} /> : <p>Loading…</p>;
  }
  return (
    <section>
      <h1>{jobId ? `Edit ${form.name}` : 'New job'}</h1>
      <form class="job-form" onSubmit={(e) => void submit(e)} noValidate>
        <div class="field">
          <label for="job-name">Name</label>
          <input id="job-name" value={form.name} required onInput={set('name')} aria-describedby={described('name')} />
          {fieldError('name')}
        </div>
        <div class="field">
          <label for="job-description">Description</label>
          <input id="job-description" value={form.description} onInput={set('description')} />
        </div>
        <div class="field">
          <label for="job-tags">Tags</label>
          <input id="job-tags" value={form.tags} onInput={set('tags')} placeholder="billing, nightly" />
        </div>
        <fieldset>
          <legend>When</legend>
          <ScheduleField
            expr={form.expr}
            kind={form.kind}
            timezone={form.timezone}
            onExpr={(expr) => setForm({ ...form, expr })}
            serverError={fields['schedule.expr']}
          />
          <div class="row">
            <div class="field">
              <label for="job-kind">Format</label>
              <select id="job-kind" value={form.kind} onChange={set('kind')}>
                {['auto', 'natural', 'quartz', 'cron', 'rrule'].map((k) => (
                  <option key={k}>{k}</option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="job-timezone">Time zone</label>
              <input
                id="job-timezone"
                list="time-zones"
                value={form.timezone}
                onInput={set('timezone')}
                aria-describedby={described('schedule.timezone')}
              />
              <datalist id="time-zones">
                {timeZones().map((z) => (
                  <option key={z} value={z} />
                ))}
              </datalist>
              {fieldError('schedule.timezone')}
            </div>
          </div>
        </fieldset>
        <fieldset>
          <legend>Webhook</legend>
          <div class="field">
            <label for="job-url">URL</label>
            <input
              id="job-url"
              type="url"
              value={form.url}
              required
              onInput={set('url')}
              placeholder="https://example.com/hooks/nightly"
              aria-describedby={described('sink.config.url')}
            />
            {fieldError('sink.config.url')}
          </div>
          <div class="row">
            <div class="field">
              <label for="job-method">Method</label>
              <select id="job-method" value={form.method} onChange={set('method')}>
                {['POST', 'GET', 'PUT', 'PATCH', 'DELETE'].map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </div>
            <div class="field">
              <label for="job-attempts">Max attempts</label>
              <input
                id="job-attempts"
                type="number"
                min={1}
                max={20}
                value={form.maxAttempts}
                onInput={set('maxAttempts')}
              />
              {fieldError('retry.max_attempts')}
            </div>
            <div class="field">
              <label for="job-timeout">Timeout</label>
              <input id="job-timeout" value={form.timeout} onInput={set('timeout')} />
              {fieldError('timeout')}
            </div>
          </div>
          <div class="field">
            <label for="job-headers">Headers</label>
            <textarea
              id="job-headers"
              rows={3}
              value={form.headers}
              onInput={set('headers')}
              placeholder={'Authorization: Bearer {{secret.API_TOKEN}}'}
            />
            {fieldError('sink.config.headers')}
          </div>
          <div class="field">
            <label for="job-body">Body</label>
            <textarea
              id="job-body"
              rows={3}
              value={form.body}
              onInput={set('body')}
              placeholder="Empty: the standard JSON payload"
            />
            {fieldError('sink.config.body')}
          </div>
        </fieldset>
        <ErrorNote error={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {jobId ? 'Save changes' : 'Create job'}
          </button>
          <a class="button" href={jobId ? `/jobs/${jobId}` : '/'}>
            Cancel
          </a>
        </div>
      </form>
    </section>
  );
}
