import { describe, expect, it } from 'vitest';
import { formatCount, formatImportedAt, formatSchema } from './format';
import cases from './number-formats.json';

describe('formatImportedAt', () => {
  it('shows the RFC 3339 timestamp the store writes as date and minutes in UTC', () => {
    expect(formatImportedAt('2025-11-21T21:05:09.123Z', 'UTC')).toBe('2025-11-21 21:05');
  });

  it('converts to the requested time zone, so users see their local time', () => {
    // 21:05 UTC is 22:05 in Berlin in November (CET, UTC+1).
    expect(formatImportedAt('2025-11-21T21:05:09.123Z', 'Europe/Berlin')).toBe('2025-11-21 22:05');
    // ... and the previous day in Los Angeles before 08:00 UTC.
    expect(formatImportedAt('2025-11-21T03:00:00Z', 'America/Los_Angeles')).toBe('2025-11-20 19:00');
  });

  it('uses a 24-hour clock, so midnight reads 00 rather than 24', () => {
    expect(formatImportedAt('2025-01-02T00:07:00Z', 'UTC')).toBe('2025-01-02 00:07');
  });

  it('returns an unparseable value unchanged rather than "Invalid Date"', () => {
    expect(formatImportedAt('yesterday', 'UTC')).toBe('yesterday');
    expect(formatImportedAt('', 'UTC')).toBe('');
  });
});

describe('formatCount', () => {
  it('groups thousands so large datasets are readable', () => {
    expect(formatCount(0)).toBe('0');
    expect(formatCount(24)).toBe('24');
    expect(formatCount(100000)).toBe('100,000');
  });
});

describe('formatSchema', () => {
  it('names a missing schema instead of leaving the cell blank', () => {
    expect(formatSchema(null)).toBe('unknown');
    expect(formatSchema(' ')).toBe('unknown');
    expect(formatSchema('RAGVUE')).toBe('RAGVUE');
  });
  it('names a stored schema as the report does, and keeps one it does not know', () => {
    expect(formatSchema('rag_citations')).toBe('RAG citations');
    expect(formatSchema('langsmith')).toBe('LangSmith runs');
    expect(formatSchema('from_a_newer_build')).toBe('from_a_newer_build');
  });
});

import { formatCost, formatCostRange, formatDuration, formatInterval, formatScore, formatShare, formatTokens, metricLabel, MISSING, runTitle } from './format';

describe('formatScore', () => {
  it('shows three decimals for a score', () => {
    expect(formatScore(0.73456)).toBe('0.735');
    expect(formatScore(0)).toBe('0.000');
  });

  it('never turns an error or a skip into 0, because neither is a score', () => {
    expect(formatScore(null, 'error')).toBe('error');
    expect(formatScore(0, 'error')).toBe('error');
    expect(formatScore(null, 'skipped')).toBe('skipped');
  });

  it('shows a dash for a missing score', () => {
    expect(formatScore(null)).toBe(MISSING);
    expect(formatScore(undefined)).toBe(MISSING);
    expect(formatScore(Number.NaN)).toBe(MISSING);
  });
});

describe('scores and shares read as in the reports', () => {
  it('follows the cases the Rust formatter is tested on', () => {
    expect(cases.missing).toBe(MISSING);
    for (const [value, shown] of cases.score) expect(formatScore(value as number | null)).toBe(shown);
    for (const [value, shown] of cases.percent) expect(formatShare(value as number)).toBe(shown);
  });
});

describe('formatShare and formatInterval', () => {
  it('rounds shares to whole percent', () => {
    expect(formatShare(0.4213)).toBe('42%');
    expect(formatShare(null)).toBe(MISSING);
  });

  it('needs both ends of an interval', () => {
    expect(formatInterval(0.6123, 0.7441)).toBe('0.612 – 0.744');
    expect(formatInterval(null, 0.7)).toBe(MISSING);
  });
});

describe('formatCost', () => {
  it('says unknown when the price is unknown rather than $0', () => {
    expect(formatCost(null)).toBe('unknown');
  });

  it('keeps a tiny cost visible', () => {
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.004)).toBe('< $0.01');
    expect(formatCost(1.239)).toBe('$1.24');
  });

  it('collapses a range whose ends read the same', () => {
    expect(formatCostRange(0, 0)).toBe('$0.00');
    expect(formatCostRange(0.12, 0.4)).toBe('$0.12 – $0.40');
    expect(formatCostRange(null, null)).toBe('unknown');
  });
});

describe('formatDuration', () => {
  it('reads seconds, minutes and hours', () => {
    expect(formatDuration(0.2)).toBe('< 1 s');
    expect(formatDuration(45)).toBe('45 s');
    expect(formatDuration(185)).toBe('3 min 05 s');
    expect(formatDuration(7620)).toBe('2 h 07 min');
  });

  it('shows a dash for nonsense', () => {
    expect(formatDuration(-1)).toBe(MISSING);
    expect(formatDuration(Number.POSITIVE_INFINITY)).toBe(MISSING);
  });
});

describe('labels', () => {
  it('turns metric ids into words', () => {
    expect(metricLabel('ragvue.strict_faithfulness')).toBe('strict faithfulness');
    expect(metricLabel('plain')).toBe('plain');
  });

  it('names a run by its label or its number', () => {
    expect(runTitle({ id: 3, label: 'baseline' })).toBe('baseline');
    expect(runTitle({ id: 3, label: '  ' })).toBe('Run 3');
    expect(runTitle({ id: 3, label: null })).toBe('Run 3');
  });

  it('abbreviates token counts', () => {
    expect(formatTokens(999)).toBe('999');
    expect(formatTokens(12_345)).toBe('12.3 k');
    expect(formatTokens(1_234_567)).toBe('1.2 M');
  });
});
