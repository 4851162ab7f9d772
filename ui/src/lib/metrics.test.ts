import { describe, expect, it } from 'vitest';
import { keepAvailable, pickerFamilies } from './metrics';
import type { Measurable, Family, Field, MetricSpec } from './types';

const metric = (id: string, needs: Field[], over: Partial<MetricSpec> = {}): MetricSpec => ({
  id,
  family: id.split('.')[0]! as Family,
  name: id.split('.')[1]!,
  needs,
  judge: false,
  lower_is_better: false,
  scope: 'item',
  synthesised: false,
  description: '',
  ...over,
});

const catalogue = [
  metric('ragvue.retrieval_relevance', ['question', 'contexts'], { judge: true }),
  metric('ragvue.strict_faithfulness', ['answer', 'contexts'], { judge: true }),
  metric('reference.token_f1', ['answer', 'ground_truth']),
  metric('citation.macro_f1', ['answer', 'citation_label'], { scope: 'dataset' }),
];

const reach: Measurable = {
  items: 10,
  metrics: [
    { metric: 'ragvue.retrieval_relevance', items: 10, absent: [] },
    { metric: 'ragvue.strict_faithfulness', items: 0, absent: [] },
    { metric: 'reference.token_f1', items: 0, absent: ['ground_truth'] },
    { metric: 'citation.macro_f1', items: 0, absent: ['citation_label'] },
  ],
};

describe('pickerFamilies', () => {
  it('groups by family in catalogue order and leaves out dataset-level metrics', () => {
    const families = pickerFamilies(catalogue, reach);
    expect(families.map((f) => f.family)).toEqual(['ragvue', 'reference']);
    expect(families[0]!.metrics.map((m) => m.metric.id)).toEqual(['ragvue.retrieval_relevance', 'ragvue.strict_faithfulness']);
  });

  it('greys out metrics no item supports and says why', () => {
    const [ragvue, reference] = pickerFamilies(catalogue, reach);
    expect(ragvue!.metrics[0]).toMatchObject({ available: true, items: 10, reason: null });
    expect(reference!.metrics[0]).toMatchObject({ available: false, reason: 'no item has GT' });
    expect(ragvue!.metrics[1]).toMatchObject({ available: false, reason: 'no item has A + C together' });
  });

  it('keeps everything selectable while the reach is still loading', () => {
    expect(pickerFamilies(catalogue, null).every((f) => f.metrics.every((m) => m.available))).toBe(true);
  });

  it('drops selected metrics the dataset cannot support', () => {
    const families = pickerFamilies(catalogue, reach);
    expect(keepAvailable(['reference.token_f1', 'ragvue.retrieval_relevance'], families)).toEqual(['ragvue.retrieval_relevance']);
  });
});
