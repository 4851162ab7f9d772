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
    const detail = detailText(record.detail);
    return detail === undefined ? { code, message } : { code, message, detail };
  }
  return { code: UNKNOWN_CODE, message: FALLBACK_MESSAGE };
}
