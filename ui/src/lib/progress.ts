// Progress of a run as the progress bar shows it, folded from the shell's JobEvents.
// Pure: the caller passes the clock, so tests pin the ETA arithmetic.

import type { JobEvent } from './types';

export interface RunProgress {
  runId: number;
  /** "evaluating", "statistics", ... */
  stage: string;
  done: number;
  total: number | null;
  calls: number;
  cacheHits: number;
  failures: number;
  costUsd: number;
  /** The last notice (a retry, a wait for a rate limit), shown until the next one. */
  notice: string | null;
  /** ms since epoch of the first count of this execution: the rate is measured from it. */
  startedAt: number;
  /** `done` at that first count; null until it arrives. */
  doneAtStart: number | null;
  /** Set by the final `ended` event. */
  ended: { status: string; message: string | null } | null;
}

export function initialProgress(runId: number, now: number): RunProgress {
  return {
    runId,
    stage: 'starting',
    done: 0,
    total: null,
    calls: 0,
    cacheHits: 0,
    failures: 0,
    costUsd: 0,
    notice: null,
    startedAt: now,
    doneAtStart: null,
    ended: null,
  };
}

/** The progress after `event`. Never mutates `state`. */
export function applyEvent(state: RunProgress, event: JobEvent, now: number): RunProgress {
  switch (event.kind) {
    case 'started':
      // A run counts items while 'evaluating'; a generation counts accepted test cases
      // while 'generating test cases'.
      return event.stage === 'evaluating' || event.stage.startsWith('generating')
        ? { ...state, stage: event.stage, total: event.total ?? state.total, startedAt: now, doneAtStart: null }
        : { ...state, stage: event.stage };
    case 'advanced': {
      const total = event.total ?? state.total;
      // The first count of an execution may include items an earlier execution of a
      // resumed run finished: the rate is measured from it, not from zero.
      if (state.doneAtStart === null) return { ...state, done: event.done, total, doneAtStart: event.done, startedAt: now };
      return { ...state, done: event.done, total };
    }
    case 'totals':
      return { ...state, calls: event.calls, cacheHits: event.cache_hits, failures: event.failures, costUsd: event.cost_usd };
    case 'notice':
      return { ...state, notice: event.message };
    case 'finished':
      return { ...state, stage: event.stage === 'run' ? 'finished' : state.stage };
    case 'ended':
      return { ...state, ended: { status: event.status, message: event.message } };
  }
}

/** Share done in [0, 1], or null while the total is unknown. */
export function fraction(p: RunProgress): number | null {
  if (p.total === null || p.total <= 0) return null;
  return Math.min(1, Math.max(0, p.done / p.total));
}

/**
 * Seconds left at the rate seen so far in this execution, or null when it cannot be
 * told yet (nothing finished, total unknown, or already ended).
 */
export function etaSeconds(p: RunProgress, now: number): number | null {
  if (p.ended || p.total === null) return null;
  const doneHere = p.done - (p.doneAtStart ?? 0);
  const elapsed = (now - p.startedAt) / 1000;
  if (doneHere <= 0 || elapsed <= 0) return null;
  const left = Math.max(0, p.total - p.done);
  return (elapsed / doneHere) * left;
}
