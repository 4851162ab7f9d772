import { describe, expect, it } from 'vitest';
import { svgDataUrl, trendGeometry, trendMetrics } from './charts';
import type { TrendRun } from './types';

const run = (id: number, means: [string, number][]): TrendRun => ({
  id,
  dataset_id: 1,
  label: null,
  version: null,
  notes: null,
  mode: 'manual',
  metrics: means.map(([metric]) => metric),
  judge: 'offline',
  config: {},
  status: 'done',
  message: null,
  item_count: 3,
  created_at: '2025-11-21T21:05:09Z',
  started_at: null,
  finished_at: null,
  title: `Run ${id}`,
  means,
});

describe('svgDataUrl', () => {
  it('encodes UTF-8 SVG text as a base64 data URL', () => {
    const url = svgDataUrl('<svg><text>é</text></svg>');
    expect(url.startsWith('data:image/svg+xml;base64,')).toBe(true);
    const decoded = new TextDecoder().decode(Uint8Array.from(atob(url.split(',')[1]!), (c) => c.charCodeAt(0)));
    expect(decoded).toBe('<svg><text>é</text></svg>');
  });
});

describe('trendGeometry', () => {
  it('spreads runs evenly and maps scores on a fixed 0–1 axis', () => {
    const g = trendGeometry([run(1, [['m', 0]]), run(2, [['m', 0.5]]), run(3, [['m', 1]])], 'm', 200, 100, 10);
    expect(g.points.map((p) => [p.x, p.y])).toEqual([
      [10, 90],
      [100, 50],
      [190, 10],
    ]);
    expect(g.line).toBe('10.0,90.0 100.0,50.0 190.0,10.0');
    expect(g.ticks).toEqual([
      { value: 0, y: 90 },
      { value: 0.5, y: 50 },
      { value: 1, y: 10 },
    ]);
  });

  it('skips runs without the metric and centres a single point', () => {
    const g = trendGeometry([run(1, [['m', 0.5]]), run(2, [['other', 1]])], 'm', 200, 100, 10);
    expect(g.points).toHaveLength(1);
    expect(g.points[0]!.x).toBe(100);
  });
});

describe('trendMetrics', () => {
  it('lists metrics measured in at least two runs', () => {
    expect(trendMetrics([run(1, [['a', 1], ['b', 1]]), run(2, [['a', 0.5]])])).toEqual(['a']);
  });
});
