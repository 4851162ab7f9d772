// Shapes exchanged with the Tauri shell (src-tauri/app/commands). These are written by
// hand for now; once the shell generates TypeScript bindings from Rust, this file
// re-exports the generated types instead of declaring them.

/** A stored dataset, as returned by `list_datasets` and `import_example`. */
export interface Dataset {
  id: number;
  name: string;
  item_count: number;
  /** Detected input schema ("RAGVUE", "RAGAS", "RAGChecker", "RAG+C", "custom"), if known. */
  schema: string | null;
  /** RFC 3339 timestamp (UTC) of the import. */
  imported_at: string;
  source_path: string | null;
}

/**
 * What every failed command rejects with, after normalisation. `code` is stable and
 * machine-readable ("dataset.empty_file", "store", "not_found", ...); `message` is for
 * people; `detail` is optional extra context (e.g. the underlying cause).
 */
export interface AppError {
  code: string;
  message: string;
  detail?: string;
}
