// Charts: SVGs drawn in Rust are shown through <img src="data:…">, which renders the
// picture without running anything in it; the trend line is computed here from numbers.

import type { TrendRun } from './types';

/** SVG text → a base64 data URL (UTF-8 safe). */
export function svgDataUrl(svg: string): string {
  const bytes = new TextEncoder().encode(svg);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return `data:image/svg+xml;base64,${btoa(binary)}`;
}

export interface TrendGeometry {
  /** One point per run that has the metric, in run order. */
  points: { x: number; y: number; runId: number; title: string; value: number }[];
  /** SVG polyline "x,y x,y …". */
  line: string;
  /** Where 0, 0.5 and 1 fall on the y axis. */
  ticks: { value: number; y: number }[];
}

/**
 * Positions of a metric's means across runs in a `width` × `height` plot with `pad`
 * around it. Scores live in [0, 1], so the axis is fixed: runs stay comparable.
 */
export function trendGeometry(runs: TrendRun[], metric: string, width: number, height: number, pad = 32): TrendGeometry {
  const withMetric = runs
    .map((r) => ({ r, mean: r.means.find(([id]) => id === metric)?.[1] }))
    .filter((x): x is { r: TrendRun; mean: number } => x.mean !== undefined);
  const innerW = width - 2 * pad;
  const innerH = height - 2 * pad;
  const y = (v: number) => pad + (1 - Math.min(1, Math.max(0, v))) * innerH;
  const step = withMetric.length > 1 ? innerW / (withMetric.length - 1) : 0;
  const points = withMetric.map(({ r, mean }, i) => ({
    x: withMetric.length > 1 ? pad + i * step : pad + innerW / 2,
    y: y(mean),
    runId: r.id,
    title: r.title,
    value: mean,
  }));
  return {
    points,
    line: points.map((p) => `${p.x.toFixed(1)},${p.y.toFixed(1)}`).join(' '),
    ticks: [0, 0.5, 1].map((value) => ({ value, y: y(value) })),
  };
}

/** Metrics that appear in at least two runs: the ones a trend can show. */
export function trendMetrics(runs: TrendRun[]): string[] {
  const counts = new Map<string, number>();
  for (const r of runs) for (const [m] of r.means) counts.set(m, (counts.get(m) ?? 0) + 1);
  return [...counts.entries()].filter(([, n]) => n >= 2).map(([m]) => m).sort();
}
