// Which dropped file to import. The window accepts one dataset per drop; the rest are
// named in a notice rather than silently ignored.

const DATA_EXTENSIONS = ['.jsonl', '.json', '.csv', '.tsv', '.ndjson', '.txt', '.parquet'];

export interface DropChoice {
  path: string | null;
  /** Something the user should read (several files, a folder), or null. */
  notice: string | null;
}

function name(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

export function chooseDroppedFile(paths: string[]): DropChoice {
  if (paths.length === 0) return { path: null, notice: 'Nothing was dropped.' };
  // Prefer a data file by name; the importer decides by content either way.
  const preferred = paths.find((p) => DATA_EXTENSIONS.some((ext) => p.toLowerCase().endsWith(ext))) ?? paths[0]!;
  const others = paths.filter((p) => p !== preferred);
  const notice =
    others.length === 0
      ? null
      : `Importing ${name(preferred)} only; drop the other ${others.length === 1 ? 'file' : `${others.length} files`} (${others.map(name).join(', ')}) one at a time.`;
  return { path: preferred, notice };
}

const DOCUMENT_EXTENSIONS = ['.pdf', '.md', '.markdown', '.html', '.htm'];

/**
 * Whether a drop is documents to generate a test set from rather than a dataset to
 * import: everything dropped on the Generate screen is, and elsewhere a drop made only
 * of PDF, Markdown or HTML files is (no importer reads those).
 */
export function isDocumentDrop(paths: string[], screen: string): boolean {
  if (paths.length === 0) return false;
  if (screen === 'generate') return true;
  return paths.every((p) => DOCUMENT_EXTENSIONS.some((ext) => p.toLowerCase().endsWith(ext)));
}
