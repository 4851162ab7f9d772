// Display formatting for values that come from the backend. Pure functions, so the
// tests pin them; components call these instead of formatting inline.

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * "2025-11-21T21:05:09.123Z" → "2025-11-21 22:05" in the given (default: the user's)
 * time zone. An unparseable value is returned unchanged, so nothing is hidden.
 */
export function formatImportedAt(iso: string, timeZone?: string): string {
  const date = new Date(iso);
  if (iso.trim() === '' || Number.isNaN(date.getTime())) return iso;
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((p) => p.type === type)?.value ?? 0);
  return `${part('year')}-${pad(part('month'))}-${pad(part('day'))} ${pad(part('hour'))}:${pad(part('minute'))}`;
}

const countFormat = new Intl.NumberFormat('en-US');

/** 12345 → "12,345". */
export function formatCount(n: number): string {
  return countFormat.format(n);
}

/** A missing schema reads as "unknown" rather than an empty cell. */
export function formatSchema(schema: string | null): string {
  return schema === null || schema.trim() === '' ? 'unknown' : schema;
}
