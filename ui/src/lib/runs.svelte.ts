// Runs this window started or resumed, with their live progress. Kept outside any
// screen so progress survives navigating away and back.

import { cancelRun, resumeRun, startRun } from './api';
import { applyEvent, initialProgress, type RunProgress } from './progress';
import type { JobEvent, RunRequest } from './types';

export const live = $state({ runs: [] as RunProgress[] });

/** The dataset of each run started here, so a screen about one dataset never shows
 *  another's run (a new dataset opened on "Finished — 24 of 24" of the previous one). */
const datasetOf = new Map<number, number>();

function update(runId: number, event: JobEvent): void {
  const at = live.runs.findIndex((r) => r.runId === runId);
  if (at >= 0) live.runs[at] = applyEvent(live.runs[at]!, event, Date.now());
}

/**
 * Starts a run; resolves to its id once the shell has planned it. `onStarted` runs
 * before any progress is applied, so a caller can show the run before it can end.
 */
export async function start(
  request: RunRequest,
  hooks: { onStarted?: (runId: number) => void; onEnded?: (p: RunProgress) => void } = {},
): Promise<number> {
  const { onStarted, onEnded } = hooks;
  // Events can arrive before the id does: buffer them until it is known.
  let runId: number | null = null;
  const early: JobEvent[] = [];
  const handle = (event: JobEvent) => {
    if (runId === null) {
      early.push(event);
      return;
    }
    update(runId, event);
    if (event.kind === 'ended') onEnded?.(live.runs.find((r) => r.runId === runId)!);
  };
  runId = await startRun(request, handle);
  datasetOf.set(runId, request.dataset_id);
  live.runs = [initialProgress(runId, Date.now()), ...live.runs.filter((r) => r.runId !== runId)];
  onStarted?.(runId);
  for (const event of early) handle(event);
  return runId;
}

export async function resume(runId: number, onEnded?: (p: RunProgress) => void): Promise<void> {
  live.runs = [initialProgress(runId, Date.now()), ...live.runs.filter((r) => r.runId !== runId)];
  try {
    await resumeRun(runId, (event) => {
      update(runId, event);
      if (event.kind === 'ended') onEnded?.(live.runs.find((r) => r.runId === runId)!);
    });
  } catch (thrown) {
    live.runs = live.runs.filter((r) => r.runId !== runId);
    throw thrown;
  }
}

export function cancel(runId: number): Promise<void> {
  return cancelRun(runId);
}

export function progressOf(runId: number | null): RunProgress | null {
  return runId === null ? null : (live.runs.find((r) => r.runId === runId) ?? null);
}

/** The progress of `runId` when it is a run of `datasetId` (or of a dataset not known
 *  here, as a run resumed from the Runs screen). */
export function progressFor(runId: number | null, datasetId: number | null): RunProgress | null {
  const progress = progressOf(runId);
  if (progress === null) return null;
  const dataset = datasetOf.get(progress.runId);
  return dataset === undefined || dataset === datasetId ? progress : null;
}
