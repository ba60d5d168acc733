import { findTemplateReferences, SECRET_NAME_PATTERN } from '../templating';
import type { SinkRegistry } from './registry';

/** A `secret.NAME` mention anywhere in a text, template braces or not (unknown kinds). */
const ANY_MENTION = /secret\.([A-Za-z_][A-Za-z0-9_]{0,63})/g;

/**
 * Which workspace secrets a job's sink uses: the one answer for the job write (the secrets it
 * checks and locks), `DELETE /secrets/{name}` (409 naming the job) and an attempt (the secrets it
 * decrypts). For a known kind: every `{{secret.NAME}}` in the texts its `templateFields` declares,
 * plus whatever its `secretNames` adds. Sorted, unique.
 *
 * A kind this process does not know (an extension module dropped from `sinks.modules`) cannot be
 * asked, and its jobs run again once the module is back: every string of its config (keys too)
 * counts, and any `secret.NAME` mention locks NAME. Refusing a delete that might have been safe
 * is the safe side (the 409 names the job to edit or delete); so is a known kind whose methods
 * throw on a stored config.
 */
export function secretsUsedBy(registry: SinkRegistry | null, kind: string, config: unknown): string[] {
  const sink = registry?.get(kind);
  const names = new Set<string>();
  try {
    if (!sink) {
      throw new Error(`unknown sink kind ${kind}`);
    }
    for (const text of Object.values(sink.templateFields(config as never))) {
      for (const ref of findTemplateReferences(text)) {
        if (ref.kind === 'secret') {
          names.add(ref.name);
        }
      }
    }
    for (const name of sink.secretNames(config as never)) {
      names.add(name);
    }
  } catch {
    for (const text of allStrings(config, [])) {
      for (const match of text.matchAll(ANY_MENTION)) {
        names.add(match[1]);
      }
    }
  }
  return [...names].filter((name) => SECRET_NAME_PATTERN.test(name)).sort();
}

function allStrings(value: unknown, out: string[]): string[] {
  if (typeof value === 'string') {
    out.push(value);
  } else if (Array.isArray(value)) {
    value.forEach((item) => allStrings(item, out));
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      allStrings(item, out);
    }
  }
  return out;
}
