import { describe, expect, it } from 'vitest';
import { chooseDroppedFile, isDocumentDrop } from './drop';

describe('chooseDroppedFile', () => {
  it('imports the one dropped file', () => {
    expect(chooseDroppedFile(['/home/a/run.jsonl'])).toEqual({ path: '/home/a/run.jsonl', notice: null });
  });

  it('prefers a data file and names the ones left out', () => {
    const choice = chooseDroppedFile(['/home/a/notes.pdf', '/home/a/run.JSONL', '/home/a/b.csv']);
    expect(choice.path).toBe('/home/a/run.JSONL');
    expect(choice.notice).toBe('Importing run.JSONL only; drop the other 2 files (notes.pdf, b.csv) one at a time.');
  });

  it('prefers a Parquet table over the documents dropped with it', () => {
    expect(chooseDroppedFile(['/d/corpus.pdf', '/d/qa.parquet']).path).toBe('/d/qa.parquet');
  });

  it('still tries an unknown extension: the importer decides by content', () => {
    expect(chooseDroppedFile(['C:\\data\\export.log']).path).toBe('C:\\data\\export.log');
  });

  it('does nothing for an empty drop', () => {
    expect(chooseDroppedFile([]).path).toBeNull();
  });
});

describe('isDocumentDrop', () => {
  it('sends PDF, Markdown and HTML files to the Generate screen from anywhere', () => {
    expect(isDocumentDrop(['/d/manual.PDF', '/d/faq.md'], 'home')).toBe(true);
    expect(isDocumentDrop(['/d/page.htm'], 'results')).toBe(true);
  });

  it('imports a drop with any dataset file in it', () => {
    expect(isDocumentDrop(['/d/manual.pdf', '/d/run.jsonl'], 'data')).toBe(false);
    expect(isDocumentDrop(['/d/notes.txt'], 'home')).toBe(false);
  });

  it('takes everything dropped on the Generate screen as documents, folders too', () => {
    expect(isDocumentDrop(['/d/notes.txt', '/d/folder'], 'generate')).toBe(true);
    expect(isDocumentDrop([], 'generate')).toBe(false);
  });
});
