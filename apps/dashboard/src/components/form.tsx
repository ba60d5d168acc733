import type { ComponentChildren, Ref } from 'preact';
import { useLayoutEffect, useState } from 'preact/hooks';
import { ApiError } from '../api';

/**
 * Form controls that show the API's errors by field (the error envelope's `fields`, keyed by
 * input path such as `config.url`), the way the job form does: under the control it belongs to,
 * with `aria-invalid` and `aria-describedby`, and anything without a control listed in one note.
 */

/** The envelope's `fields` of an error, or none. */
export function fieldsOf(error: unknown): Record<string, string> {
  return error instanceof ApiError ? (error.body.fields ?? {}) : {};
}

/** The message for `name` and any nested path under it (`tags` also shows `tags.0`). */
export function messageFor(fields: Record<string, string>, name: string): string | undefined {
  const messages = Object.entries(fields)
    .filter(([key]) => key === name || key.startsWith(`${name}.`))
    .map(([key, message]) => (key === name ? message : `${key.slice(name.length + 1)}: ${message}`));
  return messages.length > 0 ? messages.join('; ') : undefined;
}

/**
 * What a `TextField` binds to the API field `name`: its value, its setter and the error's message
 * for it (`<TextField id="…" label="…" {...bound(fields, 'name', name, setName)} />`).
 */
export function bound(fields: Record<string, string>, name: string, value: string, onValue: (value: string) => void) {
  return { value, onValue, error: messageFor(fields, name) };
}

/** A form's primary submit button (disabled while `busy`) and, when `onCancel` is given, a Cancel button. */
export function SaveActions({ label, busy, onCancel }: { label: string; busy: boolean; onCancel?: () => void }) {
  return (
    <div class="actions">
      <button type="submit" class="primary" disabled={busy}>
        {label}
      </button>
      {onCancel && (
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      )}
    </div>
  );
}

/** The described-by ids and invalid flag of a control with this `id` and error. */
export function describe(id: string, error: string | undefined, hint?: string) {
  const ids = [error ? `${id}-error` : '', hint ? `${id}-hint` : ''].filter(Boolean).join(' ');
  return { 'aria-invalid': error ? ('true' as const) : undefined, 'aria-describedby': ids || undefined };
}

/** A labelled control, its hint and its error; `control` gets `describe(id, error, hint)`. */
export function Field({
  id,
  label,
  error,
  hint,
  children,
}: {
  id: string;
  label: string;
  error?: string;
  hint?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      <HintAndError id={id} hint={hint} error={error} />
    </div>
  );
}

/** The hint and the error under a control, with the ids `describe` points at. */
function HintAndError({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      )}
    </>
  );
}

/** A text input in a `Field`, bound to `value`. */
export function TextField(props: {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: string;
  hint?: string;
  type?: 'text' | 'email' | 'url' | 'datetime-local';
  placeholder?: string;
  required?: boolean;
  pattern?: string;
  disabled?: boolean;
  list?: string;
  autoComplete?: string;
  inputRef?: Ref<HTMLInputElement>;
}) {
  return (
    <Field id={props.id} label={props.label} error={props.error} hint={props.hint}>
      <input
        id={props.id}
        ref={props.inputRef}
        type={props.type ?? 'text'}
        value={props.value}
        placeholder={props.placeholder}
        required={props.required}
        pattern={props.pattern}
        disabled={props.disabled}
        list={props.list}
        autoComplete={props.autoComplete}
        onInput={(e) => props.onValue((e.target as HTMLInputElement).value)}
        {...describe(props.id, props.error, props.hint)}
      />
    </Field>
  );
}

/**
 * The error's message, and the fields the form has no control for (`shown` are those it has), so
 * that nothing the API said is lost.
 */
export function FormError({ error, shown }: { error: unknown; shown: string[] }) {
  if (!error) {
    return null;
  }
  const fields = fieldsOf(error);
  const others = Object.entries(fields).filter(([key]) => !shown.some((s) => key === s || key.startsWith(`${s}.`)));
  const message = error instanceof ApiError ? error.body.message : String((error as Error).message ?? error);
  return (
    <div role="alert" class="error">
      <p>{message}</p>
      {others.length > 0 && (
        <ul>
          {others.map(([key, text]) => (
            <li key={key}>
              <code>{key}</code> {text}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** `list` with `value` checked (added last) or unchecked. */
export function toggle<T>(list: T[], value: T, on: boolean): T[] {
  return on ? [...list.filter((v) => v !== value), value] : list.filter((v) => v !== value);
}

/** A fieldset of checkboxes bound to `selected`, with its hint and error under it (by `id`). */
export function CheckboxGroup({
  id,
  className,
  legend,
  options,
  selected,
  onChange,
  error,
  hint,
  empty,
}: {
  id: string;
  className: string;
  legend: string;
  options: Array<{ value: string; label: string }>;
  selected: string[];
  onChange: (next: string[]) => void;
  error?: string;
  hint?: string;
  /** Shown when there is nothing to check. */
  empty?: string;
}) {
  return (
    <fieldset class={className} aria-describedby={describe(id, error, hint)['aria-describedby']}>
      <legend>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} class="check">
          <input
            type="checkbox"
            checked={selected.includes(option.value)}
            onChange={(e) => onChange(toggle(selected, option.value, (e.target as HTMLInputElement).checked))}
          />
          {option.label}
        </label>
      ))}
      {empty && options.length === 0 && <p class="muted">{empty}</p>}
      <HintAndError id={id} hint={hint} error={error} />
    </fieldset>
  );
}

/**
 * A form's submit: `save` runs with the previous error cleared and `busy` set (the submit button
 * is disabled meanwhile); what it throws becomes `error`, for `fieldsOf` and `FormError`.
 */
export function useSubmit(save: () => Promise<void>) {
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await save();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }
  return { submit: (event: Event) => void submit(event), error, setError, busy };
}

/** Puts the keyboard focus on `ref` when the form opens (an Edit button moves it here). */
export function useFocusOnMount(ref: { current: HTMLElement | null }) {
  useLayoutEffect(() => ref.current?.focus(), []);
}
