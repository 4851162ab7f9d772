// Export helpers: the file name a save dialog suggests and the dialog's filter.

import type { ReportFormat } from './types';

export const EXTENSIONS: Record<ReportFormat, string> = { markdown: 'md', json: 'json', csv: 'csv', pdf: 'pdf' };
export const FORMAT_NAMES: Record<ReportFormat, string> = { markdown: 'Markdown', json: 'JSON', csv: 'CSV', pdf: 'PDF' };

/**
 * "ragnosis-baseline-v1.md": the run's label (or "run-12") made safe for any file
 * system: letters, digits, dot, dash and underscore only, no leading dot, at most 80.
 */
export function defaultFileName(run: { id: number; label: string | null }, format: ReportFormat): string {
  const base = (run.label ?? '').normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 80);
  return `ragnosis-${base === '' ? `run-${run.id}` : base}.${EXTENSIONS[format]}`;
}

/** True for a path the shell accepts: absolute (POSIX or Windows) with a file name. */
export function isAbsoluteFilePath(path: string): boolean {
  const p = path.trim();
  const absolute = p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\');
  return absolute && !/[\\/]$/.test(p);
}

/** "ragnosis-compare-v1-vs-v2.md": both runs' labels (or ids), safe as in `defaultFileName`. */
export function comparisonFileName(
  a: { id: number; label: string | null },
  b: { id: number; label: string | null },
  format: ReportFormat,
): string {
  const part = (run: { id: number; label: string | null }) => {
    const safe = (run.label ?? '').normalize('NFKD').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|-+$/g, '').slice(0, 40);
    return safe === '' ? `run-${run.id}` : safe;
  };
  return `ragnosis-compare-${part(a)}-vs-${part(b)}.${EXTENSIONS[format]}`;
}
