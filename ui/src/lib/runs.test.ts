import { describe, expect, it, vi } from 'vitest';
import type { RunRequest } from './types';

const startRun = vi.fn();
vi.mock('./api', () => ({ startRun, resumeRun: vi.fn(), cancelRun: vi.fn() }));

const { progressFor, start } = await import('./runs.svelte');

const request = (datasetId: number) => ({
  dataset_id: datasetId,
  mode: 'agentic',
  metrics: [],
  judge: 'offline',
  label: null,
  version: null,
  notes: null,
});

describe('progressFor', () => {
  it("shows a run's progress on its own dataset only, not on the next dataset opened", async () => {
    startRun.mockResolvedValue(7);
    const id = await start(request(1) as unknown as RunRequest);
    expect(id).toBe(7);
    expect(progressFor(7, 1)?.runId).toBe(7);
    expect(progressFor(7, 2)).toBeNull();
    expect(progressFor(null, 1)).toBeNull();
  });
});
