// Display formatting for values that come from the backend. Pure functions, so the
// tests pin them; components call these instead of formatting inline. Scores and shares
// follow the reports' rules (number-formats.json holds the cases both are tested on).

import { SCHEMA_LABEL } from './bindings/labels';
import type { Schema } from './types';

/** What a missing number reads as, in the window and the reports alike. */
export const MISSING = '–';

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
  if (schema === null || schema.trim() === '') return 'unknown';
  // As the Data screen's report names it; a name this build does not know stays as stored.
  return SCHEMA_LABEL[schema as Schema] ?? schema;
}

/**
 * A score cell. A metric that errored shows "error" and one that was skipped shows
 * "skipped": neither is ever shown as 0, because neither is a score.
 */
export function formatScore(score: number | null | undefined, status: string = 'ok'): string {
  if (status === 'error') return 'error';
  if (status === 'skipped') return 'skipped';
  if (score === null || score === undefined || !Number.isFinite(score)) return MISSING;
  return score.toFixed(3);
}

/**
 * 0.4213 → "42%"; a share that rounds to nothing but is not nothing reads "<1%", so a
 * real failure never reads "0%" (as in the reports); null → "–".
 */
export function formatShare(share: number | null | undefined): string {
  if (share === null || share === undefined || !Number.isFinite(share)) return MISSING;
  const rounded = Math.round(share * 100);
  return rounded === 0 && share > 0 ? '<1%' : `${rounded}%`;
}

/** A 95% interval "0.612 – 0.744", or "–" when there are too few scores for one. */
export function formatInterval(low: number | null | undefined, high: number | null | undefined): string {
  if (low === null || low === undefined || high === null || high === undefined) return MISSING;
  return `${low.toFixed(3)} – ${high.toFixed(3)}`;
}

/**
 * USD with cents; amounts under a cent read "< $0.01" rather than "$0.00" so a small
 * cost is not mistaken for none. Unknown (no price for the model) says so.
 */
export function formatCost(usd: number | null | undefined): string {
  if (usd === null || usd === undefined || !Number.isFinite(usd)) return 'unknown';
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return '< $0.01';
  return `$${usd.toFixed(2)}`;
}

/** A cost range "$0.12 – $0.40"; one figure when both ends round the same. */
export function formatCostRange(low: number | null | undefined, high: number | null | undefined): string {
  const a = formatCost(low);
  const b = formatCost(high);
  return a === b ? a : `${a} – ${b}`;
}

/** Seconds → "45 s", "3 min 05 s", "2 h 07 min". Under one second reads "< 1 s". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return MISSING;
  if (seconds < 1) return '< 1 s';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
}

/** 1234567 → "1.2 M", 12345 → "12.3 k", 999 → "999". */
export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)} M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(1)} k`;
  return String(n);
}

/** "ragvue.strict_faithfulness" → "strict faithfulness". */
export function metricLabel(id: string): string {
  const name = id.includes('.') ? id.slice(id.indexOf('.') + 1) : id;
  return name.replaceAll('_', ' ');
}

/** A run's name for people: its label, else "Run 12". */
export function runTitle(run: { id: number; label: string | null }): string {
  return run.label && run.label.trim() !== '' ? run.label : `Run ${run.id}`;
}
