import { describe, expect, it } from 'vitest';
import { applyEvent, etaSeconds, fraction, initialProgress } from './progress';
import type { JobEvent } from './types';

const T0 = 1_700_000_000_000;

function fold(events: [number, JobEvent][]) {
  return events.reduce((p, [at, e]) => applyEvent(p, e, at), initialProgress(7, T0));
}

describe('run progress', () => {
  it('counts items, calls, cache hits, failures and cost from the events', () => {
    const p = fold([
      [T0, { kind: 'started', stage: 'evaluating', total: 100 }],
      [T0 + 1000, { kind: 'advanced', done: 10, total: 100 }],
      [T0 + 1000, { kind: 'totals', calls: 40, cache_hits: 5, failures: 1, cost_usd: 0.02 }],
    ]);
    expect([p.done, p.total, p.calls, p.cacheHits, p.failures, p.costUsd]).toEqual([10, 100, 40, 5, 1, 0.02]);
    expect(fraction(p)).toBe(0.1);
  });

  it('has no ETA before the rate can be measured', () => {
    const started = fold([[T0, { kind: 'started', stage: 'evaluating', total: 100 }]]);
    expect(etaSeconds(started, T0 + 5000)).toBeNull();
    const once = applyEvent(started, { kind: 'advanced', done: 10, total: 100 }, T0 + 1000);
    expect(etaSeconds(once, T0 + 1000)).toBeNull();
  });

  it('estimates the time left from the rate since the first count', () => {
    // 10 → 30 items in 4 s: 5 items/s; 70 left → 14 s.
    const p = fold([
      [T0, { kind: 'started', stage: 'evaluating', total: 100 }],
      [T0 + 1000, { kind: 'advanced', done: 10, total: 100 }],
      [T0 + 5000, { kind: 'advanced', done: 30, total: 100 }],
    ]);
    expect(etaSeconds(p, T0 + 5000)).toBeCloseTo(14, 5);
  });

  it('measures a resumed run from where it restarted, not from zero', () => {
    // The first count already includes 900 items an earlier execution finished.
    const p = fold([
      [T0, { kind: 'started', stage: 'evaluating', total: 1000 }],
      [T0 + 500, { kind: 'advanced', done: 900, total: 1000 }],
      [T0 + 2500, { kind: 'advanced', done: 950, total: 1000 }],
    ]);
    // 50 items in 2 s → 25/s; 50 left → 2 s (not 0.3 s, which counting from 0 would say).
    expect(etaSeconds(p, T0 + 2500)).toBeCloseTo(2, 5);
  });

  it('keeps the latest notice and stops estimating once ended', () => {
    let p = fold([
      [T0, { kind: 'started', stage: 'evaluating', total: 4 }],
      [T0 + 10, { kind: 'notice', message: 'rate limited: waiting 12 s' }],
    ]);
    expect(p.notice).toBe('rate limited: waiting 12 s');
    p = applyEvent(p, { kind: 'advanced', done: 1, total: 4 }, T0 + 100);
    p = applyEvent(p, { kind: 'advanced', done: 2, total: 4 }, T0 + 200);
    p = applyEvent(p, { kind: 'ended', run_id: 7, status: 'cancelled', message: 'cancelled by the user' }, T0 + 300);
    expect(p.ended).toEqual({ status: 'cancelled', message: 'cancelled by the user' });
    expect(etaSeconds(p, T0 + 400)).toBeNull();
  });

  it('has no fraction while the total is unknown', () => {
    expect(fraction(initialProgress(1, T0))).toBeNull();
  });

  it('marks the statistics stage and the end of the run', () => {
    let p = fold([[T0, { kind: 'started', stage: 'statistics', total: null }]]);
    expect(p.stage).toBe('statistics');
    p = applyEvent(p, { kind: 'finished', stage: 'run' }, T0);
    expect(p.stage).toBe('finished');
  });
});
