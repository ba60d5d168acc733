/** Date and duration display: absolute times in a given zone, and the viewer's own. */
export const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function formatTime(iso: string | null | undefined, timeZone = viewerZone): string {
  if (!iso) {
    return '—';
  }
  return new Intl.DateTimeFormat('en-GB', {
    timeZone,
    year: 'numeric',
    month: 'short',
    day: '2-digit',
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    timeZoneName: 'short',
  }).format(new Date(iso));
}

export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) {
    return '';
  }
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  const abs = Math.abs(seconds);
  const [value, unit] =
    abs < 60
      ? [seconds, 'second']
      : abs < 3600
        ? [Math.round(seconds / 60), 'minute']
        : abs < 86400
          ? [Math.round(seconds / 3600), 'hour']
          : [Math.round(seconds / 86400), 'day'];
  return new Intl.RelativeTimeFormat('en', { numeric: 'auto' }).format(value, unit as Intl.RelativeTimeFormatUnit);
}

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) {
    return '—';
  }
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

export function timeZones(): string[] {
  const withSupported = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  return withSupported.supportedValuesOf?.('timeZone') ?? ['UTC'];
}
