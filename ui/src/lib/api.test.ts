import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const invoke = vi.fn();
const isTauri = vi.fn(() => true);
vi.mock('@tauri-apps/api/core', () => ({ invoke, isTauri }));

const { importExample, listDatasets } = await import('./api');
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

  it('calls import_example with no arguments and returns the dataset', async () => {
    invoke.mockResolvedValue(example);
    await expect(importExample()).resolves.toEqual(example);
    expect(invoke).toHaveBeenCalledWith('import_example', undefined);
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
