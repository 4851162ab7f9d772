import { describe, expect, it } from 'vitest';
import { newestOnly } from './latest';

describe('newestOnly', () => {
  it('lets only the newest request land, whatever order the answers arrive in', async () => {
    const start = newestOnly();
    let shown = '';
    const request = async (value: string, delay: number) => {
      const current = start();
      await new Promise((resolve) => setTimeout(resolve, delay));
      if (current()) shown = value;
    };
    await Promise.all([request('run 1 (slow)', 20), request('run 2', 1)]);
    expect(shown).toBe('run 2');
  });

  it('keeps separate guards apart', () => {
    const a = newestOnly();
    const b = newestOnly();
    const first = a();
    b();
    expect(first()).toBe(true);
  });
});
