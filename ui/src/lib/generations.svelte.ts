// The generation this window started or resumed, with its live progress. Kept outside
// the Generate screen so progress survives navigating away and back.

import { cancelGeneration, resumeGeneration, startGeneration } from './api';
import { applyEvent, initialProgress, type RunProgress } from './progress';
import type { GenerationRequest, JobEvent } from './types';

export const generating = $state({ progress: null as RunProgress | null });

function apply(id: number, event: JobEvent, onEnded?: () => void): void {
  const p = generating.progress;
  if (!p || p.runId !== id) return;
  generating.progress = applyEvent(p, event, Date.now());
  if (event.kind === 'ended') onEnded?.();
}

/** Starts a generation; resolves to its id. Events that beat the id are replayed. */
export async function start(input: GenerationRequest, onEnded?: () => void): Promise<number> {
  let id: number | null = null;
  const early: JobEvent[] = [];
  id = await startGeneration(input, (event) => {
    if (id === null) early.push(event);
    else apply(id, event, onEnded);
  });
  generating.progress = initialProgress(id, Date.now());
  for (const event of early) apply(id, event, onEnded);
  return id;
}

export async function resume(id: number, judge: string, onEnded?: () => void): Promise<void> {
  generating.progress = initialProgress(id, Date.now());
  try {
    await resumeGeneration(id, judge, (event) => apply(id, event, onEnded));
  } catch (thrown) {
    generating.progress = null;
    throw thrown;
  }
}

export function cancel(id: number): Promise<void> {
  return cancelGeneration(id);
}
