import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const invoke = vi.fn();
const isTauri = vi.fn(() => true);
class Channel {
  onmessage: (m: unknown) => void = () => {};
}
vi.mock('@tauri-apps/api/core', () => ({ invoke, isTauri, Channel }));

const { askRun, cancelRun, exportRun, getCase, importExample, importFile, listCases, listDatasets, saveCriterion, startRun, tryCriterion } = await import('./api');
const { NO_BACKEND_CODE } = await import('./errors');

const example = {
  id: 1,
  name: 'ragnosis-example.jsonl',
  item_count: 24,
  schema: 'custom',
  imported_at: '2025-11-21T21:05:09.123Z',
  source_path: null,
};

beforeEach(() => {
  invoke.mockReset();
  isTauri.mockReturnValue(true);
});
afterEach(() => vi.clearAllMocks());

describe('api', () => {
  it('calls list_datasets with no arguments, as the shell command takes none', async () => {
    invoke.mockResolvedValue([example]);
    await expect(listDatasets()).resolves.toEqual([example]);
    expect(invoke).toHaveBeenCalledWith('list_datasets', undefined);
  });

  it('calls import_example with no arguments and returns the dataset with its report', async () => {
    invoke.mockResolvedValue({ dataset: example, report: null });
    await expect(importExample()).resolves.toEqual({ dataset: example, report: null });
    expect(invoke).toHaveBeenCalledWith('import_example', undefined);
  });

  it('names arguments in camelCase, as Tauri maps them to the commands\' snake_case parameters', async () => {
    invoke.mockResolvedValue(null);
    await importFile('/tmp/a.jsonl');
    expect(invoke).toHaveBeenLastCalledWith('import_file', { path: '/tmp/a.jsonl' });
    await getCase(3, 17);
    expect(invoke).toHaveBeenLastCalledWith('get_case', { runId: 3, itemId: 17 });
    await askRun(3, 'What should I fix first?');
    expect(invoke).toHaveBeenLastCalledWith('ask_run', { runId: 3, question: 'What should I fix first?', item: null, judge: null });
    await askRun(3, 'Why?', 't-13', 'gpt');
    expect(invoke).toHaveBeenLastCalledWith('ask_run', { runId: 3, question: 'Why?', item: 't-13', judge: 'gpt' });
    await cancelRun(3);
    expect(invoke).toHaveBeenLastCalledWith('cancel_run', { runId: 3 });
    await exportRun(3, '/tmp/r.md', 'markdown');
    expect(invoke).toHaveBeenLastCalledWith('export_run', { runId: 3, path: '/tmp/r.md', format: 'markdown' });
    const query = { order: 'worst', sort_metric: null, descending: false, score_metric: null, min: null, max: null, pattern: null, errors_only: false, text: null, offset: 0, limit: 50, columns: [] };
    await listCases(3, query);
    expect(invoke).toHaveBeenLastCalledWith('list_cases', { runId: 3, query });
  });

  it('sends a criterion as the definition the core reads, and tries it on a dataset with a judge', async () => {
    invoke.mockResolvedValue(null);
    const definition = { name: 'tone', question: 'Polite?', scale: 'pass_fail', reads: ['answer'], direction: 'higher_is_better', anchors: [], examples: [] } as const;
    await saveCriterion({ ...definition, reads: [...definition.reads], anchors: [], examples: [] });
    expect(invoke).toHaveBeenLastCalledWith('save_criterion', { definition: { ...definition, reads: ['answer'], anchors: [], examples: [] } });
    await tryCriterion({ ...definition, reads: ['answer'], anchors: [], examples: [] }, 4, 'sim');
    expect(invoke).toHaveBeenLastCalledWith('try_criterion', { definition: { ...definition, reads: ['answer'], anchors: [], examples: [] }, datasetId: 4, judge: 'sim' });
  });

  it('starts a run with a channel that hands every progress event to the caller', async () => {
    invoke.mockResolvedValue(12);
    const seen: unknown[] = [];
    const request = { dataset_id: 1, mode: 'agentic', metrics: [], judge: 'offline', label: null, version: null, notes: null, limit: null, sample: null, seed: 0, budget_usd: null };
    await expect(startRun(request, (e) => seen.push(e))).resolves.toBe(12);
    const [command, args] = invoke.mock.calls.at(-1)!;
    expect(command).toBe('start_run');
    expect(args.request).toEqual(request);
    args.onProgress.onmessage({ kind: 'advanced', done: 1, total: 2 });
    expect(seen).toEqual([{ kind: 'advanced', done: 1, total: 2 }]);
  });

  it('rejects with the normalised command error, so the UI can branch on code', async () => {
    invoke.mockRejectedValue({ code: 'store', message: 'database is locked', detail: 'busy' });
    await expect(listDatasets()).rejects.toEqual({ code: 'store', message: 'database is locked', detail: 'busy' });
  });

  it('normalises a string rejection into { code, message }', async () => {
    invoke.mockRejectedValue('boom');
    await expect(importExample()).rejects.toEqual({ code: 'unknown', message: 'boom' });
  });

  it('reports a missing backend instead of a TypeError when run outside the desktop app', async () => {
    isTauri.mockReturnValue(false);
    await expect(listDatasets()).rejects.toMatchObject({ code: NO_BACKEND_CODE });
    expect(invoke).not.toHaveBeenCalled();
  });
});
