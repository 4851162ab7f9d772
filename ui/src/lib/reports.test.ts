import { describe, expect, it } from 'vitest';
import { comparisonFileName, defaultFileName, isAbsoluteFilePath } from './reports';

describe('defaultFileName', () => {
  it('names the file after the run label with the format extension', () => {
    expect(defaultFileName({ id: 3, label: 'baseline v1.2' }, 'markdown')).toBe('ragnosis-baseline-v1.2.md');
    expect(defaultFileName({ id: 3, label: null }, 'csv')).toBe('ragnosis-run-3.csv');
  });

  it('keeps path separators and markup out of the suggested name', () => {
    expect(defaultFileName({ id: 1, label: '../../etc/<script>' }, 'json')).toBe('ragnosis-etc-script.json');
    expect(defaultFileName({ id: 9, label: '///' }, 'json')).toBe('ragnosis-run-9.json');
  });
});

describe('isAbsoluteFilePath', () => {
  it('accepts absolute POSIX and Windows file paths', () => {
    expect(isAbsoluteFilePath('/tmp/r.md')).toBe(true);
    expect(isAbsoluteFilePath('C:\\Users\\me\\r.md')).toBe(true);
  });

  it('rejects relative paths and directories', () => {
    expect(isAbsoluteFilePath('r.md')).toBe(false);
    expect(isAbsoluteFilePath('/tmp/')).toBe(false);
    expect(isAbsoluteFilePath('')).toBe(false);
  });
});

describe('comparisonFileName', () => {
  it('names both runs, baseline first, each made safe', () => {
    expect(comparisonFileName({ id: 1, label: 'v1' }, { id: 2, label: 'after/fix' }, 'pdf')).toBe('ragnosis-compare-v1-vs-after-fix.pdf');
    expect(comparisonFileName({ id: 4, label: null }, { id: 5, label: '' }, 'json')).toBe('ragnosis-compare-run-4-vs-run-5.json');
  });
});
