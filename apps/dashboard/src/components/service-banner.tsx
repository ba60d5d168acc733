import { useEffect, useState } from 'preact/hooks';
import { readiness } from '../api';
import { degradedSentences } from '../format';

const READINESS_POLL_MS = 30_000;

/**
 * Above every page while the service is degraded (`/readyz`, read every 30 s: not ready, or a
 * worker's health probe sees a dependency degraded): which dependency is out and its cause
 * (docs/dashboard.md → Service banner).
 */
export function ServiceBanner() {
  const [sentences, setSentences] = useState<string[]>([]);
  useEffect(() => {
    let stopped = false;
    const check = async () => {
      let next: string[];
      try {
        next = degradedSentences(await readiness());
      } catch {
        next = ['The service does not answer.'];
      }
      if (!stopped) {
        setSentences(next);
      }
    };
    void check();
    const timer = setInterval(() => void check(), READINESS_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, []);
  if (sentences.length === 0) {
    return null;
  }
  return (
    <div class="service-banner" role="status" data-testid="service-banner">
      {sentences.map((sentence) => (
        <p key={sentence}>{sentence}</p>
      ))}
    </div>
  );
}
