import type { DestinationsRepository, LeaseAnswer } from '@svc/persistence';

/** How long a worker trusts its list of a workspace's limited destinations. */
export const DESTINATION_CACHE_TTL_MS = 5_000;
/** A lease outlives the request's timeout by this much (bookkeeping; then it stops counting). */
export const LEASE_MARGIN_MS = 30_000;
/** A `Retry-After` holds a destination for at most this long. */
export const MAX_HOLD_MS = 3_600_000;
/** While in-flight leases are full, ask again after this much plus up to as much jitter. */
export const LIMIT_POLL_MS = 1_000;

export interface DestinationGateDeps {
  destinations: Pick<DestinationsRepository, 'configured' | 'acquire' | 'release'>;
  now?: () => number;
  random?: () => number;
  ttlMs?: number;
}

/**
 * The worker's side of destination limits (docs/delivery.md → Destination limits). Which
 * destinations of a workspace have limits is read once per `ttlMs` per workspace and shared by
 * every attempt of this worker (concurrent readers share one query), so an attempt to a
 * destination without limits costs at most that lookup. For a limited one the lease itself is
 * taken and given back in PostgreSQL, where every worker counts.
 */
export class DestinationGate {
  private readonly cache = new Map<string, { at: number; names: Promise<Set<string>> }>();
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly ttlMs: number;

  constructor(private readonly deps: DestinationGateDeps) {
    this.now = deps.now ?? Date.now;
    this.random = deps.random ?? Math.random;
    this.ttlMs = deps.ttlMs ?? DESTINATION_CACHE_TTL_MS;
  }

  /** Whether the workspace limits this destination (cached; a failed read is not kept). */
  async limited(workspaceId: string, destination: string): Promise<boolean> {
    const now = this.now();
    let entry = this.cache.get(workspaceId);
    if (!entry || now - entry.at > this.ttlMs) {
      const names = this.deps.destinations.configured(workspaceId).then((list) => new Set(list));
      entry = { at: now, names };
      this.cache.set(workspaceId, entry);
      names.catch(() => {
        if (this.cache.get(workspaceId) === entry) {
          this.cache.delete(workspaceId);
        }
      });
      if (this.cache.size > 10_000) {
        // Bounded: the oldest workspace entries go first (Map keeps insertion order).
        this.cache.delete(this.cache.keys().next().value!);
      }
    }
    return (await entry.names).has(destination);
  }

  /** Takes the lease of attempt `key` for as long as a request of `timeoutMs` may last. */
  acquire(workspaceId: string, destination: string, key: string, timeoutMs: number): Promise<LeaseAnswer> {
    return this.deps.destinations.acquire(
      workspaceId,
      destination,
      key,
      timeoutMs + LEASE_MARGIN_MS,
      LIMIT_POLL_MS + Math.round(this.random() * LIMIT_POLL_MS),
    );
  }

  /** Gives the lease back; a `Retry-After` (ms) holds the destination under `on_429: pause_destination`. */
  release(workspaceId: string, destination: string, key: string, retryAfterMs: number | null): Promise<Date | null> {
    const hold = retryAfterMs === null ? null : Math.min(MAX_HOLD_MS, Math.max(0, retryAfterMs));
    return this.deps.destinations.release(workspaceId, destination, key, hold);
  }

  /** Forgets the workspace's list (a limit written by this process applies at once). */
  forget(workspaceId: string): void {
    this.cache.delete(workspaceId);
  }
}
