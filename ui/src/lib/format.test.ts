import { describe, expect, it } from 'vitest';
import { formatCount, formatImportedAt, formatSchema } from './format';

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
});
