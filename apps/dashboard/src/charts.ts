import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LinearScale,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'preact/hooks';

// Only the parts used here are registered, so the bundle carries no more of Chart.js than that.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

export const COLORS = { succeeded: '#1a7f37', failed: '#cf222e', other: '#8c959f', accent: '#0969da' };

/** A canvas bound to a Chart.js chart, rebuilt when `config` changes. */
export function useChart(config: ChartConfiguration | null) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current || !config) {
      return;
    }
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
  }, [config]);
  return canvas;
}

/** 24 hourly stacked bars (succeeded, failed) without axes: the job list's sparkline. */
/** A job's 24 hours of runs; `other` (in flight: running or deferred; or cancelled) is stacked on top. */
export function sparklineConfig(
  buckets: Array<{ succeeded: number; failed: number; other?: number }>,
): ChartConfiguration {
  return {
    type: 'bar',
    data: {
      labels: buckets.map((_, i) => `${24 - i} h ago`),
      datasets: [
        { label: 'succeeded', data: buckets.map((b) => b.succeeded), backgroundColor: COLORS.succeeded, stack: 'runs' },
        { label: 'failed', data: buckets.map((b) => b.failed), backgroundColor: COLORS.failed, stack: 'runs' },
        { label: 'other', data: buckets.map((b) => b.other ?? 0), backgroundColor: COLORS.other, stack: 'runs' },
      ],
    },
    options: {
      responsive: false,
      animation: false,
      plugins: { legend: { display: false }, tooltip: { enabled: false } },
      scales: { x: { display: false, stacked: true }, y: { display: false, stacked: true, beginAtZero: true } },
      events: [],
    },
  };
}
