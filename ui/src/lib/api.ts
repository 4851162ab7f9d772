// The only module that talks to the Tauri shell. Every command goes through `call`,
// which rejects with a normalised AppError (see errors.ts), never a raw value.

import { invoke, isTauri, type InvokeArgs } from '@tauri-apps/api/core';
import { NO_BACKEND_CODE, toAppError } from './errors';
import type { AppError, Dataset } from './types';

/**
 * True inside the desktop app. `isTauri()` is the official check; the IPC internals test
 * also accepts @tauri-apps/api/mocks' `mockIPC`, which installs them without the flag.
 */
function hasBackend(): boolean {
  return isTauri() || typeof (globalThis as { __TAURI_INTERNALS__?: { invoke?: unknown } }).__TAURI_INTERNALS__?.invoke === 'function';
}

async function call<T>(command: string, args?: InvokeArgs): Promise<T> {
  if (!hasBackend()) {
    const error: AppError = {
      code: NO_BACKEND_CODE,
      message: 'The Ragnosis backend is not available. Open this screen in the Ragnosis desktop app.',
    };
    throw error;
  }
  try {
    return await invoke<T>(command, args);
  } catch (thrown) {
    throw toAppError(thrown);
  }
}

/** All stored datasets. */
export function listDatasets(): Promise<Dataset[]> {
  return call<Dataset[]>('list_datasets');
}

/** Imports the bundled example set (assets/examples/ragnosis-example.jsonl). */
export function importExample(): Promise<Dataset> {
  return call<Dataset>('import_example');
}
