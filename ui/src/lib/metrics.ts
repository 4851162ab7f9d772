// The manual metric picker's model: the catalogue grouped by family, each metric marked
// available or not for the dataset at hand (from the shell's `dataset_reach`).

import { FIELD_BADGE } from './bindings/labels';
import type { Measurable, MetricSpec } from './types';

export const FAMILY_LABELS: Record<string, string> = {
  ragvue: 'RAGVUE (retrieval, grounding, answer quality)',
  ragxplain: 'RAGXplain',
  ragchecker: 'RAGChecker (claim-level)',
  citation: 'Citation accuracy',
  ragalyst: 'RAGalyst',
  reference: 'Reference answer and ranking',
  criteria: 'Your criteria (Settings → Your criteria)',
};

export interface PickerMetric {
  metric: MetricSpec;
  /** Items the metric can score; null while unknown. */
  items: number | null;
  /** False when no item carries what it needs: shown greyed out and not selectable. */
  available: boolean;
  /** Why not, for the greyed-out line ("no item has GT"). */
  reason: string | null;
}

export interface PickerFamily {
  family: string;
  label: string;
  metrics: PickerMetric[];
}

export function pickerFamilies(catalogue: MetricSpec[], reach: Measurable | null): PickerFamily[] {
  const families: PickerFamily[] = [];
  for (const metric of catalogue) {
    // Dataset-level metrics come with their family's item metrics; not picked alone.
    if (metric.scope === 'dataset') continue;
    let family = families.find((f) => f.family === metric.family);
    if (!family) {
      family = { family: metric.family, label: FAMILY_LABELS[metric.family] ?? metric.family, metrics: [] };
      families.push(family);
    }
    const r = reach?.metrics.find((m) => m.metric === metric.id) ?? null;
    const items = r ? r.items : null;
    const available = items === null || items > 0;
    const reason =
      r && !available
        ? r.absent.length > 0
          ? `no item has ${r.absent.map((f) => FIELD_BADGE[f]).join(', ')}`
          : `no item has ${metric.needs.map((f) => FIELD_BADGE[f]).join(' + ')} together`
        : null;
    family.metrics.push({ metric, items, available, reason });
  }
  return families;
}

/** The selection without metrics the dataset cannot support (e.g. after a dataset change). */
export function keepAvailable(selected: string[], families: PickerFamily[]): string[] {
  const ok = new Set(families.flatMap((f) => f.metrics.filter((m) => m.available).map((m) => m.metric.id)));
  return selected.filter((id) => ok.has(id));
}
