/**
 * Whether a worker polls a task queue, from `DescribeTaskQueue`'s pollers (their last access
 * time, the server's clock): one rule for `/readyz`, the worker's service-health probe and
 * `svc doctor`.
 */
import { optionalTsToMs, type Timestamp } from '@temporalio/common/lib/time';

/** A task queue whose newest poll is older than this has no worker polling it. */
export const POLLER_STALE_MS = 90_000;

interface PollerLike {
  lastAccessTime?: Timestamp | null;
}

/** The newest poll of any poller, in ms since the epoch; 0 when none polled. */
export function lastPollAt(pollers: readonly PollerLike[] | null | undefined): number {
  let last = 0;
  for (const poller of pollers ?? []) {
    last = Math.max(last, optionalTsToMs(poller.lastAccessTime) ?? 0);
  }
  return last;
}

/** Whether some worker polled within `POLLER_STALE_MS` of `now`. */
export function isPolled(pollers: readonly PollerLike[] | null | undefined, now: number = Date.now()): boolean {
  const last = lastPollAt(pollers);
  return last > 0 && now - last < POLLER_STALE_MS;
}
