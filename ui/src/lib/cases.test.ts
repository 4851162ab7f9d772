import { describe, expect, it } from 'vitest';
import { buildQuery, defaultFilters, isWorstPreset, pageBounds, PAGE_SIZE, parseBound, relevanceStep, worstCases } from './cases';

describe('buildQuery', () => {
  it('sends run order and no filters by default', () => {
    const built = buildQuery(defaultFilters(), 0, ['ragvue.answer_overall']);
    expect(built).toEqual({
      query: {
        order: 'position',
        sort_metric: null,
        descending: false,
        score_metric: null,
        min: null,
        max: null,
        pattern: null,
        errors_only: false,
        text: null,
        offset: 0,
        limit: PAGE_SIZE,
        columns: ['ragvue.answer_overall'],
      },
    });
  });

  it('asks for the metric it sorts or filters by as a column, so the row shows it', () => {
    const f = { ...defaultFilters(), order: 'metric' as const, sortMetric: 'ragvue.clarity', rangeMetric: 'ragvue.coherence', min: '0.2', max: '' };
    const built = buildQuery(f, 50, ['ragvue.answer_overall']);
    expect('query' in built && built.query.columns).toEqual(['ragvue.answer_overall', 'ragvue.clarity', 'ragvue.coherence']);
    expect('query' in built && [built.query.min, built.query.max, built.query.offset]).toEqual([0.2, 1, 50]);
  });

  it('says what to fix instead of sending a bad query', () => {
    expect(buildQuery({ ...defaultFilters(), order: 'metric' }, 0, [])).toEqual({ problem: 'Choose the metric to sort by.' });
    expect(buildQuery({ ...defaultFilters(), rangeMetric: 'm', min: 'abc' }, 0, [])).toHaveProperty('problem');
    expect(buildQuery({ ...defaultFilters(), rangeMetric: 'm', min: '0.9', max: '0.1' }, 0, [])).toEqual({
      problem: 'The lowest score is above the highest.',
    });
  });

  it('trims search text and drops it when blank', () => {
    const built = buildQuery({ ...defaultFilters(), text: '  warranty ' }, 0, []);
    expect('query' in built && built.query.text).toBe('warranty');
    const blank = buildQuery({ ...defaultFilters(), text: '   ' }, 0, []);
    expect('query' in blank && blank.query.text).toBeNull();
  });

  it('never sends a negative offset', () => {
    const built = buildQuery(defaultFilters(), -50, []);
    expect('query' in built && built.query.offset).toBe(0);
  });
});

describe('filters', () => {
  it('recognises the worst-cases preset and nothing else', () => {
    expect(isWorstPreset(worstCases())).toBe(true);
    expect(isWorstPreset({ ...worstCases(), errorsOnly: true })).toBe(false);
    expect(isWorstPreset(defaultFilters())).toBe(false);
  });

  it('parses bounds between 0 and 1, with a comma as decimal mark too', () => {
    expect(parseBound('')).toBeNull();
    expect(parseBound('0,5')).toBe(0.5);
    expect(parseBound('1')).toBe(1);
    expect(parseBound('1.5')).toBe('invalid');
    expect(parseBound('-0.1')).toBe('invalid');
  });

  it('gives 1-based page bounds', () => {
    expect(pageBounds(50, 50, 1234)).toEqual({ first: 51, last: 100, total: 1234, shown: '1,234' });
    expect(pageBounds(0, 0, 0)).toEqual({ first: 0, last: 0, total: 0, shown: '0' });
  });

  it('words a text search that stopped counting at the cap as "10,000+"', () => {
    expect(pageBounds(0, 50, 10000, true).shown).toBe('10,000+');
    expect(pageBounds(10000, 50, 10000, true).shown).toBe('10,050+');
  });

  it('maps relevance to five shading steps', () => {
    expect([0, 0.19, 0.2, 0.5, 0.79, 0.8, 1].map(relevanceStep)).toEqual([0, 0, 0, 2, 3, 3, 4]);
    expect(relevanceStep(null)).toBeNull();
  });
});
