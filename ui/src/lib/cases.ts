// The case list's filter bar as state, and the query it sends. Parsing and checking of
// what the user typed happens here (tested), so the component only binds inputs.

import type { CaseQueryInput, Cursor } from './types';
import { formatCount } from './format';

export type CaseOrder = 'position' | 'worst' | 'metric';

export interface CaseFilters {
  order: CaseOrder;
  /** With order "metric". */
  sortMetric: string;
  descending: boolean;
  /** Metric of the score-range filter; '' = no range filter. */
  rangeMetric: string;
  /** As typed; '' = open end. */
  min: string;
  max: string;
  /** Pattern letter; '' = any. */
  pattern: string;
  errorsOnly: boolean;
  text: string;
}

export const PAGE_SIZE = 50;

export function defaultFilters(): CaseFilters {
  return { order: 'position', sortMetric: '', descending: false, rangeMetric: '', min: '', max: '', pattern: '', errorsOnly: false, text: '' };
}

/** The "worst cases" preset: every filter cleared, lowest mean score first. */
export function worstCases(): CaseFilters {
  return { ...defaultFilters(), order: 'worst' };
}

export function isWorstPreset(f: CaseFilters): boolean {
  const w = worstCases();
  return (Object.keys(w) as (keyof CaseFilters)[]).every((k) => f[k] === w[k]);
}

/** A bound as typed: '' is open, a number in [0, 1] is kept, anything else is an error. */
export function parseBound(text: string): number | null | 'invalid' {
  const t = text.trim().replace(',', '.');
  if (t === '') return null;
  const n = Number(t);
  if (!Number.isFinite(n) || n < 0 || n > 1) return 'invalid';
  return n;
}

/**
 * The query for one page, or a sentence saying what to fix in the filter bar.
 * `columns` are the metrics whose cells each row should carry.
 */
export function buildQuery(
  f: CaseFilters,
  offset: number,
  columns: string[],
  after: Cursor | null = null,
): { query: CaseQueryInput } | { problem: string } {
  const query: CaseQueryInput = {
    order: f.order,
    sort_metric: null,
    descending: f.descending,
    score_metric: null,
    min: null,
    max: null,
    pattern: f.pattern === '' ? null : f.pattern,
    errors_only: f.errorsOnly,
    text: f.text.trim() === '' ? null : f.text.trim(),
    offset: Math.max(0, offset),
    limit: PAGE_SIZE,
    columns: [...columns],
  };
  // A later page starts after the last row of the page before: the same cost at any depth.
  if (after !== null) query.after = after;
  if (f.order === 'metric') {
    if (f.sortMetric === '') return { problem: 'Choose the metric to sort by.' };
    query.sort_metric = f.sortMetric;
    if (!query.columns.includes(f.sortMetric)) query.columns.push(f.sortMetric);
  }
  if (f.rangeMetric !== '') {
    const min = parseBound(f.min);
    const max = parseBound(f.max);
    if (min === 'invalid' || max === 'invalid') return { problem: 'Score bounds are numbers between 0 and 1.' };
    if (min !== null && max !== null && min > max) return { problem: 'The lowest score is above the highest.' };
    query.score_metric = f.rangeMetric;
    query.min = min ?? 0;
    query.max = max ?? 1;
    if (!query.columns.includes(f.rangeMetric)) query.columns.push(f.rangeMetric);
  }
  return { query };
}

/** "Cases 51–100 of 1,234" style bounds: 1-based first and last row of a page, and the
 * total as the list words it ("10,000+" when a text search stopped counting there). */
export function pageBounds(
  offset: number,
  rows: number,
  total: number,
  capped = false,
): { first: number; last: number; total: number; shown: string } {
  const first = rows === 0 ? 0 : offset + 1;
  const last = rows === 0 ? 0 : offset + rows;
  // Paged past the cap, the rows seen so far are the better lower bound.
  const known = Math.max(total, last);
  return { first, last, total, shown: `${formatCount(known)}${capped ? '+' : ''}` };
}

/** Relevance in [0, 1] → one of five shading steps (0 = irrelevant … 4 = contains the answer). */
export function relevanceStep(relevance: number | null): number | null {
  if (relevance === null || !Number.isFinite(relevance)) return null;
  return Math.min(4, Math.max(0, Math.floor(relevance * 5 - 1e-9)));
}
