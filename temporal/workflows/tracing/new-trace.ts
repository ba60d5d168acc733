/**
 * Starts a new trace inside workflow code (a scheduled occurrence is its own trace, not a part of
 * the job workflow's long-lived one). Without the tracing interceptors in the bundle (tracing
 * off) `fn` just runs: this module holds no OpenTelemetry code of its own, so the untraced bundle
 * pays nothing for it.
 */
import type { Attributes } from '@opentelemetry/api';

export type NewTrace = <T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  /** Attributes known only from the result, set on the span before it ends. */
  attributesOf?: (result: T) => Attributes,
) => Promise<T>;

let implementation: NewTrace | undefined;

/** Called by the tracing interceptor module when it is part of the bundle. */
export function setNewTrace(fn: NewTrace): void {
  implementation = fn;
}

/** Runs `fn` as the root span `name` of a new trace (linked to the current one), or plainly when tracing is off. */
export function inNewTrace<T>(
  name: string,
  attributes: Attributes,
  fn: () => Promise<T>,
  attributesOf?: (result: T) => Attributes,
): Promise<T> {
  return implementation ? implementation(name, attributes, fn, attributesOf) : fn();
}
