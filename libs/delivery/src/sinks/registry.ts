import type { AnySinkKind } from './sink-kind';

const KIND_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * The sink kinds this process knows, by `sink.kind`. The API (validation, OpenAPI), the worker
 * (attempts) and the Temporal displays read the same one; the Nest glue (libs/extensions) fills
 * it with every provider marked `@SinkKindProvider()`.
 */
export class SinkRegistry {
  private readonly kinds = new Map<string, AnySinkKind>();

  constructor(kinds: readonly AnySinkKind[] = []) {
    kinds.forEach((kind) => this.register(kind));
  }

  register(kind: AnySinkKind): void {
    if (!KIND_NAME.test(kind.kind)) {
      throw new Error(`sink kind "${kind.kind}": the name must match ${KIND_NAME.source}`);
    }
    const known = this.kinds.get(kind.kind);
    if (known && known !== kind) {
      throw new Error(`sink kind "${kind.kind}" is registered twice`);
    }
    this.kinds.set(kind.kind, kind);
  }

  get(kind: string): AnySinkKind | undefined {
    return this.kinds.get(kind);
  }

  /** Every kind, in registration order (built-ins first). */
  all(): AnySinkKind[] {
    return [...this.kinds.values()];
  }

  names(): string[] {
    return [...this.kinds.keys()];
  }
}

let processRegistry: SinkRegistry | null = null;

/**
 * The registry of this process, for code that describes a stored sink without a registry at hand
 * (Temporal displays). Set by the Nest glue once every kind is registered.
 */
export function setProcessSinkRegistry(registry: SinkRegistry): void {
  processRegistry = registry;
}

export function processSinkRegistry(): SinkRegistry | null {
  return processRegistry;
}
