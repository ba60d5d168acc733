import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, type Features, type Job, type SinkFormField } from '../api';
import { ErrorNote, ManagedNote } from '../components/common';
import { ScheduleField } from '../components/schedule-field';
import { timeZones, viewerZone } from '../format';
import {
  BACKOFFS,
  BUILT_IN_FORM_KINDS,
  createBody,
  emptyForm,
  type FormState,
  fromJob,
  HTTP_METHODS,
  MISFIRE_POLICIES,
  OVERLAP_POLICIES,
  patchBody,
  SCHEDULE_KINDS,
  sinkFieldErrors,
} from '../job-form-model';
import { navigate } from '../router';

type TextKey = { [K in keyof FormState]: FormState[K] extends string ? K : never }[keyof FormState];

/**
 * Create or edit a job: every setting the API has (job-form-model.ts). An edit sends only what
 * the user changed, so nothing the user did not touch is reset.
 */
export function JobFormPage({ jobId }: { jobId?: string }) {
  const [form, setForm] = useState<FormState>(() => emptyForm(viewerZone));
  const [loadedForm, setLoadedForm] = useState<FormState | null>(null);
  const [features, setFeatures] = useState<Features | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [fields, setFields] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [loaded, setLoaded] = useState(!jobId);
  // The owner of a job an apply declared: the form says its edits do not last.
  const [managedBy, setManagedBy] = useState<string | null>(null);

  useEffect(() => {
    // The features first: a job of an extension's sink kind is read through that kind's fields.
    const features = api<Features>('GET', '/api/v1/features').then(
      (loaded) => {
        setFeatures(loaded);
        return loaded;
      },
      () => null,
    );
    if (jobId) {
      Promise.all([api<Job>('GET', `/api/v1/jobs/${encodeURIComponent(jobId)}`), features]).then(([job, known]) => {
        const state = fromJob(job, known?.sink_kinds ?? []);
        setForm(state);
        setLoadedForm(state);
        setManagedBy(job.managed_by);
        setLoaded(true);
      }, setError);
    }
  }, [jobId]);

  const set = (key: TextKey) => (event: Event) => setForm({ ...form, [key]: (event.target as HTMLInputElement).value });

  const kinds = features?.sink_kinds ?? [];

  async function submit(event: Event) {
    event.preventDefault();
    // What the form can tell without the server (required fields, JSON) of an extension's kind.
    const local = sinkFieldErrors(form, kinds);
    if (Object.keys(local).length > 0) {
      setFields(local);
      return;
    }
    setBusy(true);
    setError(null);
    setFields({});
    try {
      let job: Job;
      if (jobId && loadedForm) {
        const patch = patchBody(loadedForm, form, kinds);
        job =
          Object.keys(patch).length === 0
            ? await api<Job>('GET', `/api/v1/jobs/${encodeURIComponent(jobId)}`)
            : await api<Job>('PATCH', `/api/v1/jobs/${encodeURIComponent(jobId)}`, patch);
      } else {
        job = await api<Job>('POST', '/api/v1/jobs', createBody(form, kinds));
      }
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

  const id = (name: string) => `job-${name.replace(/[^a-z0-9]+/gi, '-')}`;
  const fieldError = (name: string) =>
    fields[name] ? (
      <p class="error" id={`${id(name)}-error`}>
        {fields[name]}
      </p>
    ) : null;
  const described = (name: string, hint?: boolean) =>
    [fields[name] ? `${id(name)}-error` : '', hint ? `${id(name)}-hint` : ''].filter(Boolean).join(' ') || undefined;

  /** A labelled text input bound to `key`, with the API's error for `name` under it. */
  const input = (
    key: TextKey,
    name: string,
    label: string,
    options: { hint?: string; placeholder?: string; type?: 'text' | 'number' | 'url' } = {},
  ) => (
    <div class="field">
      <label for={id(name)}>{label}</label>
      <input
        id={id(name)}
        type={(options.type ?? 'text') as 'text'}
        value={form[key]}
        onInput={set(key)}
        placeholder={options.placeholder}
        aria-invalid={fields[name] ? 'true' : undefined}
        aria-describedby={described(name, Boolean(options.hint))}
      />
      {options.hint && (
        <p class="hint" id={`${id(name)}-hint`}>
          {options.hint}
        </p>
      )}
      {fieldError(name)}
    </div>
  );
  const select = (key: TextKey, name: string, label: string, values: string[]) => (
    <div class="field">
      <label for={id(name)}>{label}</label>
      <select id={id(name)} value={form[key]} onChange={set(key)} aria-describedby={described(name)}>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
      {fieldError(name)}
    </div>
  );
  const textarea = (key: TextKey, name: string, label: string, hint: string, placeholder?: string) => (
    <div class="field">
      <label for={id(name)}>{label}</label>
      <textarea
        id={id(name)}
        rows={3}
        value={form[key]}
        onInput={set(key)}
        placeholder={placeholder}
        aria-invalid={fields[name] ? 'true' : undefined}
        aria-describedby={described(name, true)}
      />
      <p class="hint" id={`${id(name)}-hint`}>
        {hint}
      </p>
      {fieldError(name)}
    </div>
  );
  const row = (children: ComponentChildren) => <div class="row">{children}</div>;
  // Other fields the API named that have no control of their own (e.g. `sink.config.headers.X-Key`).
  const shown =
    /^(name|description|tags|timeout|sla_threshold|misfire_policy|overlap_policy|auto_disable_threshold|start_window|max_concurrent_runs|schedule\.\w+|retry\.\w+|sink\.kind|sink\.config\.\w+)$/;
  const otherErrors = Object.entries(fields).filter(([name]) => !shown.test(name));

  if (!loaded) {
    return error ? <ErrorNote error={error} /> : <p>Loading…</p>;
  }
  const commandAllowed = features?.sinks.command === true || loadedForm?.sinkKind === 'command';
  // Every kind this server accepts (and the loaded job's own), built-ins first.
  const sinkKindOptions = [
    'webhook',
    ...(commandAllowed ? ['command'] : []),
    ...kinds
      .filter((k) => !BUILT_IN_FORM_KINDS.includes(k.kind) && (k.enabled || loadedForm?.sinkKind === k.kind))
      .map((k) => k.kind),
  ];
  const otherKind = kinds.find((k) => k.kind === form.sinkKind && !BUILT_IN_FORM_KINDS.includes(k.kind));
  const setSinkField = (name: string, value: string) =>
    setForm({ ...form, sinkFields: { ...form.sinkFields, [name]: value } });
  /** A field of an extension's kind (docs/extending.md), from its `fields` in /features. */
  const sinkField = (field: SinkFormField) => {
    const name = `sink.config.${field.name}`;
    const value = form.sinkFields[field.name] ?? '';
    const onInput = (event: Event) =>
      setSinkField(field.name, (event.target as HTMLInputElement | HTMLTextAreaElement).value);
    const common = {
      id: id(name),
      'aria-invalid': fields[name] ? ('true' as const) : undefined,
      'aria-describedby': described(name, Boolean(field.help)),
    };
    let control;
    if (field.type === 'select') {
      control = (
        <select {...common} value={value} onChange={onInput}>
          <option value="">(default)</option>
          {(field.options ?? []).map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
    } else if (field.type === 'checkbox') {
      control = (
        <input
          {...common}
          type="checkbox"
          checked={value === 'true'}
          onChange={(e) => setSinkField(field.name, String((e.target as HTMLInputElement).checked))}
        />
      );
    } else if (['textarea', 'json', 'lines', 'map'].includes(field.type)) {
      control = <textarea {...common} rows={3} value={value} onInput={onInput} placeholder={field.placeholder} />;
    } else {
      control = (
        <input
          {...common}
          type={(field.type === 'number' ? 'number' : 'text') as 'text'}
          value={value}
          onInput={onInput}
          placeholder={field.placeholder}
        />
      );
    }
    return (
      <div class="field" key={field.name}>
        <label for={id(name)}>
          {field.label}
          {field.required ? ' *' : ''}
        </label>
        {control}
        {field.help && (
          <p class="hint" id={`${id(name)}-hint`}>
            {field.help}
          </p>
        )}
        {fieldError(name)}
      </div>
    );
  };
  return (
    <section>
      <h1>{jobId ? `Edit ${loadedForm?.name ?? form.name}` : 'New job'}</h1>
      {managedBy && <ManagedNote owner={managedBy} />}
      <form class="job-form" onSubmit={(e) => void submit(e)} noValidate>
        {input('name', 'name', 'Name')}
        {input('description', 'description', 'Description')}
        {input('tags', 'tags', 'Tags', { placeholder: 'billing, nightly', hint: 'Comma-separated.' })}
        <fieldset>
          <legend>When</legend>
          <ScheduleField
            expr={form.expr}
            kind={form.kind}
            timezone={form.timezone}
            onExpr={(expr) => setForm({ ...form, expr })}
            serverError={fields['schedule.expr']}
          />
          {row(
            <>
              {select('kind', 'schedule.kind', 'Format', SCHEDULE_KINDS)}
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
            </>,
          )}
          {row(
            <>
              {input('startsAt', 'schedule.starts_at', 'Starts at', {
                placeholder: '2030-01-01T00:00:00Z',
                hint: 'RFC 3339; empty: now.',
              })}
              {input('endsAt', 'schedule.ends_at', 'Ends at', {
                placeholder: 'never',
                hint: 'RFC 3339; empty: never.',
              })}
              {input('count', 'schedule.count', 'Occurrences', { type: 'number', hint: 'Empty: no limit.' })}
            </>,
          )}
          {row(
            <>
              {select('misfirePolicy', 'misfire_policy', 'Misfire policy', MISFIRE_POLICIES)}
              {select('overlapPolicy', 'overlap_policy', 'Overlap policy', OVERLAP_POLICIES)}
            </>,
          )}
          {row(
            <>
              {input('startWindow', 'start_window', 'Start window', {
                hint: 'Fire at a fixed offset inside this window (e.g. 5m); empty: on time.',
              })}
              {input('maxConcurrentRuns', 'max_concurrent_runs', 'Max concurrent runs', {
                type: 'number',
                hint: 'Under allow; empty: unbounded.',
              })}
            </>,
          )}
        </fieldset>
        <fieldset>
          <legend>Limits</legend>
          {row(
            <>
              {input('timeout', 'timeout', 'Timeout', { hint: 'Per attempt, 1s to 120s.' })}
              {input('slaThreshold', 'sla_threshold', 'SLA threshold', { hint: 'Empty: the server default.' })}
              {input('autoDisableThreshold', 'auto_disable_threshold', 'Auto-disable after failures', {
                type: 'number',
                hint: '0 never; empty: the server default.',
              })}
            </>,
          )}
        </fieldset>
        <fieldset>
          <legend>Retry policy</legend>
          {row(
            <>
              {input('maxAttempts', 'retry.max_attempts', 'Max attempts', { type: 'number' })}
              {select('backoff', 'retry.backoff', 'Backoff', BACKOFFS)}
              {input('initialInterval', 'retry.initial_interval', 'Initial interval')}
              {input('maxInterval', 'retry.max_interval', 'Max interval')}
              {input('multiplier', 'retry.multiplier', 'Multiplier')}
              {input('jitter', 'retry.jitter', 'Jitter', { hint: 'Fraction of the delay, 0 to 1.' })}
            </>,
          )}
        </fieldset>
        <fieldset>
          <legend>Sink</legend>
          {select('sinkKind', 'sink.kind', 'Sink kind', sinkKindOptions)}
          {otherKind ? (
            <>
              <p class="hint">{otherKind.description}</p>
              {otherKind.fields.map(sinkField)}
            </>
          ) : form.sinkKind === 'command' ? (
            <>
              {textarea('argv', 'sink.config.argv', 'Command', 'One argument per line; no shell.', '/usr/bin/backup')}
              {textarea('env', 'sink.config.env', 'Environment', 'KEY=value lines.')}
              {row(
                <>
                  {input('cwd', 'sink.config.cwd', 'Working directory')}
                  {input('retryOnExitCodes', 'sink.config.retry_on_exit_codes', 'Retryable exit codes', {
                    hint: 'Comma-separated.',
                  })}
                </>,
              )}
            </>
          ) : (
            <>
              {input('url', 'sink.config.url', 'URL', {
                type: 'url',
                placeholder: 'https://example.com/hooks/nightly',
              })}
              {row(
                <>
                  {select('method', 'sink.config.method', 'Method', HTTP_METHODS)}
                  {input('successCodes', 'sink.config.success_codes', 'Success codes', {
                    hint: '2xx, or codes such as 200, 204.',
                  })}
                  {input('retryOn', 'sink.config.retry_on', 'Retry on', {
                    hint: 'Classes (5xx), codes, network, timeout.',
                  })}
                </>,
              )}
              <div class="field checkbox">
                <label>
                  <input
                    type="checkbox"
                    checked={form.followRedirects}
                    onChange={(e) => setForm({ ...form, followRedirects: (e.target as HTMLInputElement).checked })}
                  />{' '}
                  Follow redirects (at most 5)
                </label>
                {fieldError('sink.config.follow_redirects')}
              </div>
              {textarea(
                'headers',
                'sink.config.headers',
                'Headers',
                'Name: value lines; values may use {{secret.NAME}} and {{run.id}}.',
                'Authorization: Bearer {{secret.API_TOKEN}}',
              )}
              {textarea('body', 'sink.config.body', 'Body', 'Empty: the standard JSON payload.')}
            </>
          )}
        </fieldset>
        {otherErrors.length > 0 && (
          <ul class="error" data-testid="other-field-errors">
            {otherErrors.map(([name, message]) => (
              <li key={name}>
                <code>{name}</code>: {message}
              </li>
            ))}
          </ul>
        )}
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
