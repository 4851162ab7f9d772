import { describe, expect, it } from 'vitest';
import { offerFor, toAppError, UNKNOWN_CODE } from './errors';

describe('toAppError', () => {
  it('keeps a command error object as it is, because the shell already sends { code, message, detail }', () => {
    const sent = { code: 'dataset.empty_file', message: 'x.jsonl is empty', detail: 'path: x.jsonl' };
    expect(toAppError(sent)).toEqual(sent);
  });

  it('is idempotent, so callers may normalise an already-normalised error again', () => {
    const once = toAppError({ code: 'store', message: 'database is locked' });
    expect(toAppError(once)).toEqual(once);
  });

  it('leaves detail out when the command sent none, so the UI shows no empty Details', () => {
    expect(toAppError({ code: 'not_found', message: 'dataset 7 does not exist' })).toEqual({
      code: 'not_found',
      message: 'dataset 7 does not exist',
    });
  });

  it('turns a plain string (a command returning Result<_, String>) into the message', () => {
    expect(toAppError('disk full')).toEqual({ code: UNKNOWN_CODE, message: 'disk full' });
  });

  it('keeps an Error message and marks the code unknown, because Error has no code', () => {
    expect(toAppError(new TypeError('window.__TAURI_INTERNALS__ is undefined'))).toEqual({
      code: UNKNOWN_CODE,
      message: 'window.__TAURI_INTERNALS__ is undefined',
    });
  });

  it('never returns an empty message, so the alert always says something', () => {
    for (const thrown of [undefined, null, 42, '', '   ', {}, { code: 'io', message: '' }]) {
      const error = toAppError(thrown);
      expect(error.message.trim()).not.toBe('');
      expect(error.code.trim()).not.toBe('');
    }
  });

  it('keeps a known code even when the message is missing', () => {
    expect(toAppError({ code: 'cancelled' }).code).toBe('cancelled');
  });

  it('ignores non-string codes and messages instead of showing [object Object]', () => {
    const error = toAppError({ code: 3, message: { nested: true } });
    expect(error.code).toBe(UNKNOWN_CODE);
    expect(error.message).not.toContain('[object');
  });

  it('serialises a structured detail to JSON so it can be shown as text', () => {
    expect(toAppError({ code: 'invalid', message: 'bad', detail: { line: 3 } }).detail).toBe('{"line":3}');
  });
});

describe('offerFor', () => {
  it('offers a key fix for a refused key, the wait for a rate limit, and the reply for a bad reply', () => {
    expect(offerFor({ code: 'judge.auth', message: 'm' })?.kind).toBe('fix_key');
    expect(offerFor({ code: 'judge.rate_limited', message: 'm', retry_after_secs: 7 })?.text).toContain('in 7 s');
    expect(offerFor({ code: 'judge.rate_limited', message: 'm' })?.text).toContain('in a minute');
    expect(offerFor({ code: 'judge.bad_reply', message: 'm', detail: 'not json' })?.kind).toBe('inspect_reply');
    expect(offerFor({ code: 'store', message: 'm' })).toBeNull();
  });

  it('keeps the wait and whether a retry helps through normalisation', () => {
    const sent = { code: 'judge.rate_limited', message: 'slow down', retry_after_secs: 30, retry_helps: true };
    expect(toAppError(sent)).toEqual(sent);
  });
});
