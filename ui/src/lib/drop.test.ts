import { describe, expect, it } from 'vitest';
import { chooseDroppedFile } from './drop';

describe('chooseDroppedFile', () => {
  it('imports the one dropped file', () => {
    expect(chooseDroppedFile(['/home/a/run.jsonl'])).toEqual({ path: '/home/a/run.jsonl', notice: null });
  });

  it('prefers a data file and names the ones left out', () => {
    const choice = chooseDroppedFile(['/home/a/notes.pdf', '/home/a/run.JSONL', '/home/a/b.csv']);
    expect(choice.path).toBe('/home/a/run.JSONL');
    expect(choice.notice).toBe('Importing run.JSONL only; drop the other 2 files (notes.pdf, b.csv) one at a time.');
  });

  it('still tries an unknown extension: the importer decides by content', () => {
    expect(chooseDroppedFile(['C:\\data\\export.log']).path).toBe('C:\\data\\export.log');
  });

  it('does nothing for an empty drop', () => {
    expect(chooseDroppedFile([]).path).toBeNull();
  });
});
