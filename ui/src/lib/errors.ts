// Turns whatever a failed call threw into an AppError the UI can show and branch on.
// Commands reject with `{ code, message, detail? }`, but a webview can also throw
// Error objects, plain strings (a command returning Result<_, String>) or nothing at all.

import type { AppError } from './types';

/** Used when the thrown value carries no code of its own. */
export const UNKNOWN_CODE = 'unknown';
/** Raised by api.ts when the page runs outside the desktop app (e.g. `vite dev` in a browser). */
export const NO_BACKEND_CODE = 'no_backend';

const FALLBACK_MESSAGE = 'Something went wrong, and no explanation was given.';

function nonEmptyString(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function detailText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return nonEmptyString(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Normalises any thrown value into an AppError. Idempotent: an AppError comes back equal. */
export function toAppError(thrown: unknown): AppError {
  if (typeof thrown === 'string') {
    return { code: UNKNOWN_CODE, message: nonEmptyString(thrown) ?? FALLBACK_MESSAGE };
  }
  if (thrown !== null && typeof thrown === 'object') {
    const record = thrown as Record<string, unknown>;
    const code = nonEmptyString(record.code) ?? UNKNOWN_CODE;
    const message = nonEmptyString(record.message) ?? FALLBACK_MESSAGE;
    const error: AppError = { code, message };
    const detail = detailText(record.detail);
    if (detail !== undefined) error.detail = detail;
    if (typeof record.retry_after_secs === 'number') error.retry_after_secs = record.retry_after_secs;
    if (record.retry_helps === true) error.retry_helps = true;
    return error;
  }
  return { code: UNKNOWN_CODE, message: FALLBACK_MESSAGE };
}

/**
 * The codes the window offers something for (each is an `ErrorCode` of the core; a Rust
 * test checks that they exist there).
 */
export const JUDGE_AUTH = 'judge.auth';
export const JUDGE_RATE_LIMITED = 'judge.rate_limited';
export const JUDGE_BAD_REPLY = 'judge.bad_reply';
/** Two runs judged differently: the Runs screen offers "Compare anyway". */
export const COMPARE_JUDGED_DIFFERENTLY = 'compare.judged_differently';
/** A profile with a stored key moved to another host: Settings asks keep or forget. */
export const KEY_HOST_CHANGED = 'secret.host_changed';

/** What the window offers beside an error, by its code. */
export type Offer =
  | { kind: 'fix_key'; text: string }
  | { kind: 'wait'; text: string }
  | { kind: 'inspect_reply'; text: string }
  | null;

export function offerFor(error: AppError): Offer {
  switch (error.code) {
    case JUDGE_AUTH:
      return { kind: 'fix_key', text: "The judge service refused this profile's key. Store the right key and test again." };
    case JUDGE_RATE_LIMITED: {
      const wait = error.retry_after_secs;
      const when = wait === undefined || wait === null ? 'in a minute' : `in ${wait} s, as the service asks`;
      return {
        kind: 'wait',
        text: `The service is limiting requests. Try again ${when}, or lower this profile's requests per minute.`,
      };
    }
    case JUDGE_BAD_REPLY:
      return {
        kind: 'inspect_reply',
        text: 'The judge answered, but not in the form asked for. Inspect its reply below; another model usually helps.',
      };
    default:
      return null;
  }
}
