// Server-side renders result components with hostile data: every value from a dataset or
// a judge must come out as text (escaped), never as markup, and errors never read as 0.
import { describe, expect, it } from 'vitest';
import { render } from 'svelte/server';
import AdvicePanel from './AdvicePanel.svelte';
import DiagnosisPanel from './DiagnosisPanel.svelte';
import ExperimentsPanel from './ExperimentsPanel.svelte';
import ReportSummary from './ReportSummary.svelte';
import ErrorAlert from './ErrorAlert.svelte';
import MetricTable from './MetricTable.svelte';
import RunTable from './RunTable.svelte';
import type { ExperimentCheck, RunInsights, Diagnosis, MetricLine, ReportSummary as Summary, RunInfo, TaxonomyCounts } from '../types';

const HOSTILE = '<img src=x onerror=window.__pwned=1><script>window.__pwned=1</script>';

const row = (over: Partial<MetricLine>): MetricLine => ({
  id: 'ragvue.strict_faithfulness',
  description: 'Every claim of the answer is backed by the passages.',
  judged: true,
  stage: 'grounding',
  band: 'needs_attention',
  histogram: [0, 0, 0, 1, 4, 4, 1, 0, 0, 0],
  metric: 'ragvue.strict_faithfulness',
  n: 10,
  skipped: 0,
  errors: 0,
  mean: 0.5,
  std: 0.1,
  median: 0.5,
  p25: 0.4,
  p75: 0.6,
  min: 0,
  max: 1,
  share_failing: 0.3,
  ci95_low: 0.43,
  ci95_high: 0.57,
  lower_is_better: false,
  skip_reasons: [],
  insight: null,
  ...over,
});

describe('MetricTable', () => {
  it('shows a metric whose every item errored as "no score", not as 0', () => {
    const { body } = render(MetricTable, {
      props: { rows: [row({ n: 0, errors: 24, mean: null, std: null, median: null, p25: null, p75: null, ci95_low: null, ci95_high: null, share_failing: null })], offline: true, judged: new Set(['ragvue.strict_faithfulness']) },
    });
    expect(body).toContain('no score');
    expect(body).not.toContain('0.000');
    expect(body).toContain('offline judge');
  });

  it('shows the interval and quartiles', () => {
    const { body } = render(MetricTable, { props: { rows: [row({})], offline: false, judged: new Set<string>() } });
    expect(body).toContain('0.430 – 0.570');
    expect(body).toContain('30%');
    expect(body).not.toContain('offline judge');
  });
});

describe('Insights and advice', () => {
  it('shows a metric insight under its row, as text', () => {
    const { body } = render(MetricTable, {
      props: { rows: [row({ insight: `Faithfulness is low. ${HOSTILE}` })], offline: false, judged: new Set<string>() },
    });
    expect(body).toContain('data-testid="metric-insight"');
    expect(body).toContain('Faithfulness is low.');
    expect(body).not.toContain(HOSTILE);
  });

  it('lists every taxonomy category with its count, and no action list of its own', () => {
    const advice: RunInsights = {
      source: 'templates',
      judge: 'offline',
      insights: [],
      error: null,
      note: 'Written from fixed templates',
      strong: ['ragvue.clarity'],
      actions: [{ impact: 'medium', metric: 'ragalyst.answer_correctness', title: 'Bring answers in line', whats_wrong: 'w', why: 'y', example_question: HOSTILE, how_to_fix: 'h' }],
    };
    const taxonomy: TaxonomyCounts = { items: 3, counts: [['not_extracted', 2], ['other', 1]] };
    const { body } = render(AdvicePanel, { props: { advice, taxonomy } });
    // The action items are the diagnosis's: one list, shown by the diagnosis panel.
    expect(body).not.toContain('medium impact');
    expect(body).toContain('not extracted');
    expect(body).toContain('Of 3 items');
    expect(body).not.toContain(HOSTILE);
  });
});

describe('ReportSummary', () => {
  it('shows the report headline, stage verdicts and first stage as text', () => {
    const summary: Summary = {
      headline: [`Grounding needs work ${HOSTILE}.`, 'Retrieval is good.'],
      trust: [],
      stages: [
        { stage: 'Retrieval', question: 'Did the search find it?', score: '0.82', band: 'good', band_key: 'good', metrics: 'm' },
        { stage: 'Grounding', question: HOSTILE, score: '0.41', band: 'critical', band_key: 'critical', metrics: 'm' },
      ],
      primary: `Grounding — ${HOSTILE}.`,
      top_actions: [],
    };
    const { body } = render(ReportSummary, { props: { summary } });
    expect(body).toContain('Grounding needs work &lt;img');
    expect(body).toContain('Retrieval is good.');
    expect(body).toMatch(/class="badge bad[^"]*">critical<\/span>/);
    expect(body).toMatch(/class="badge good[^"]*">good<\/span>/);
    expect(body).toContain('0.41');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('<script>');
  });
});

describe('DiagnosisPanel', () => {
  it('renders an action item quoting a hostile question as text', () => {
    const diagnosis: Diagnosis = {
      primary_stage: 'retrieval_to_generation',
      items_checked: 10,
      items_with_patterns: 4,
      patterns: [{ pattern: 'context_ignored', letter: 'B', name: 'context ignored', stage: 'retrieval_to_generation', description: 'd', count: 4, share: 0.4, examples: [{ item_id: 1, scores: [], supporting: [] }] }],
      actions: [{ pattern: 'context_ignored', impact: 'high', title: 'Fix retrieval', whats_wrong: 'w', why: 'y', how_to_fix: 'h', example: { item_id: 1, question: HOSTILE, scores: [] }, count: 4, share: 0.4 }],
      unchecked: [],
      unsure: 2,
      unsure_items: [{ item_id: 7, reason: HOSTILE }],
      corrected_by_labels: 1,
    };
    const { body } = render(DiagnosisPanel, { props: { diagnosis, onpattern: () => {}, oncase: () => {} } });
    // Stages are named as the reports name them, not by their serialised names.
    expect(body).toContain('Fix first: <strong>retrieval → generation</strong>');
    expect(body).toContain('<td>retrieval → generation</td>');
    expect(body).not.toContain('retrieval_to_generation');
    expect(body).toContain('2 items need a look</strong>');
    expect(body).toContain('Corrected by your labels: 1 item.');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('<script>');
    expect(body).toContain('&lt;img src=x onerror=window.__pwned=1>&lt;script>');
    expect(body).not.toContain('Not checked');
  });

  it('names the patterns a run could not check', () => {
    const diagnosis: Diagnosis = {
      primary_stage: null,
      items_checked: 8,
      items_with_patterns: 0,
      patterns: [],
      actions: [],
      unchecked: ['retrieval_miss', 'hallucination'],
      unsure: 0,
      unsure_items: [],
      corrected_by_labels: 0,
    };
    const { body } = render(DiagnosisPanel, { props: { diagnosis, onpattern: () => {}, oncase: () => {} } });
    expect(body).toContain('Not checked (their metrics were not scored): A (retrieval miss), C (hallucination).');
  });
});

describe('RunTable', () => {
  const run: RunInfo = {
    id: 4,
    dataset_id: 1,
    dataset_name: HOSTILE,
    label: HOSTILE,
    version: null,
    notes: null,
    mode: 'agentic',
    judge: 'offline',
    offline: true,
    status: 'running',
    message: null,
    item_count: 24,
    metrics: [],
    config: {},
    created_at: '2025-11-21T21:05:09.123Z',
    started_at: null,
    finished_at: null,
    active: false,
    resumable: true,
    shown_status: 'interrupted',
    totals: { calls: 0, cache_hits: 0, failures: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0, seconds: 0 },
    retrieval_overall: null,
    answer_overall: 0.5,
    waiting_batches: null,
  };

  it('marks a run left running by a closed app as interrupted and offers Resume', () => {
    const { body } = render(RunTable, { props: { runs: [run], onopen: () => {}, onresume: () => {}, timeZone: 'UTC' } });
    expect(body).toContain('interrupted');
    expect(body).toContain('data-testid="resume-run"');
    expect(body).not.toContain('<script>');
    expect(body).not.toContain('waiting-batches');
  });

  it('says where the batches of a run in batch mode stand', () => {
    const waiting = { ...run, waiting_batches: '1 batch at openai: 1200 of 2000 requests answered, in progress' };
    const { body } = render(RunTable, { props: { runs: [waiting], onopen: () => {}, onresume: () => {}, timeZone: 'UTC' } });
    expect(body).toContain('data-testid="waiting-batches"');
    expect(body).toContain('1200 of 2000 requests answered');
  });
});

describe('ErrorAlert', () => {
  it('opens a bad reply for inspection, as text', () => {
    const { body } = render(ErrorAlert, {
      props: { error: { code: 'judge.bad_reply', message: 'not JSON', detail: HOSTILE } },
    });
    expect(body).toContain('Inspect the reply');
    expect(body).toContain('data-testid="offer-inspect_reply"');
    expect(body).not.toContain('<script>');
    expect(body).toContain('&lt;script>');
  });

  it('offers to enter the key again for a refused key, and the wait for a rate limit', () => {
    const auth = render(ErrorAlert, { props: { error: { code: 'judge.auth', message: 'refused' }, onfixkey: () => {} } }).body;
    expect(auth).toContain('data-testid="fix-key"');
    const limited = render(ErrorAlert, {
      props: { error: { code: 'judge.rate_limited', message: 'slow', retry_after_secs: 12, retry_helps: true } },
    }).body;
    expect(limited).toContain('Try again in 12 s');
    expect(limited).not.toContain('fix-key');
  });
});

describe('ExperimentsPanel', () => {
  const check = (): ExperimentCheck => ({
    experiment: {
      id: 1,
      run_id: 1,
      pattern: 'subtle_distortion',
      action_title: 'Keep qualifiers, numbers and dates exactly as written',
      change: `keep numbers ${HOSTILE}`,
      targets: ['t-02', HOSTILE],
      created_at: '2026-11-28T12:00:00Z',
    },
    pattern_label: 'F (subtle distortion)',
    checked_on: { id: 2, label: 'v2', version: null, dataset: 'town-v2', judge: 'offline', items: 8, title: 'Run 2 (v2)' },
    targets: [
      { label: 't-02', item_id_before: 2, item_id_after: 10, outcome: 'fixed', outcome_label: 'fixed', before: 'F (subtle distortion)', after: 'no problem found' },
      { label: HOSTILE, item_id_before: 4, item_id_after: 12, outcome: 'worse', outcome_label: 'worse', before: 'F (subtle distortion)', after: 'H (incomplete)' },
    ],
    fixed: 1,
    still_failing: 0,
    worse: 1,
    worse_elsewhere: [{ label: 't-05', item_id_a: 5, item_id_b: 13, before: 'no problem found', after: 'F (subtle distortion)' }],
    judged_differently: [],
    sentence: `"keep numbers ${HOSTILE}" for F (subtle distortion), checked on Run 2 (v2): 1 of 2 items fixed`,
  });

  it('shows each target with its outcome and the items broken elsewhere, all as text', () => {
    const { body } = render(ExperimentsPanel, { props: { runId: 2, experiments: [check()], oncase: () => {} } });
    expect(body).toContain('1 of 2 items fixed');
    expect(body.match(/data-testid="experiment-outcome"/g)).toHaveLength(2);
    expect(body).toContain('>fixed<');
    expect(body).toContain('>worse<');
    expect(body).toContain('worse, not targeted');
    expect(body).toContain('t-05');
    expect(body).not.toContain('<img');
    expect(body).not.toContain('<script>window');
  });

  it('links the items of the run shown and only names them in a history', () => {
    const onRun = render(ExperimentsPanel, { props: { runId: 2, experiments: [check()], oncase: () => {} } }).body;
    const inHistory = render(ExperimentsPanel, { props: { runId: null, experiments: [check()], oncase: () => {} } }).body;
    expect(onRun.match(/<button/g)?.length).toBe(3);
    expect(inHistory).not.toContain('<button');
  });
});
