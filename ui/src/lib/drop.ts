// Which dropped file to import. The window accepts one dataset per drop; the rest are
// named in a notice rather than silently ignored.

const DATA_EXTENSIONS = ['.jsonl', '.json', '.csv', '.tsv', '.ndjson', '.txt'];

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
