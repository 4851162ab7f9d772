//! Storing what the importer reads: streams a file through `dataset::read_items` into
//! the `items` table, committing in batches so memory stays flat on huge files.

use std::path::Path;

use rusqlite::Connection;

use crate::dataset::{self, FieldMap, ImportLimits, ValidationReport};
use crate::error::{Error, Result};
use crate::item::QuestionSet;
use crate::progress::{Progress, ProgressSink};
use crate::store::{self, datasets::DatasetRow, Store};

/// Items per transaction: large enough to amortise commits, small enough that the WAL
/// stays small and a crash loses little.
const BATCH: u64 = 5_000;

pub struct Imported {
    pub dataset: DatasetRow,
    pub report: ValidationReport,
    /// The file's exact bytes were imported before: `dataset` is that earlier dataset,
    /// reused so that every run of the same file lands in one history.
    pub reused: bool,
}

/// Imports `path` as a new dataset, or reuses the dataset of an earlier import of the
/// same bytes. Rejected lines are in the report, never fatal; a file-level problem
/// (empty, binary, unsupported shape) stores nothing and is an error.
pub fn import_file(
    store: &mut Store,
    path: &Path,
    name: Option<&str>,
    limits: &ImportLimits,
    progress: &dyn ProgressSink,
) -> Result<Imported> {
    import_file_mapped(store, path, name, limits, &FieldMap::default(), progress)
}

/// A file that gave no item is not a dataset: the empty dataset its import left is
/// removed and the import refused with what the report says, so the window and the
/// terminal refuse the same file with the same sentence and code. A reused dataset (the
/// same bytes imported before) is returned as it is unless it is empty.
pub fn refuse_empty(store: &Store, path: &Path, imported: Imported) -> Result<Imported> {
    let report = &imported.report;
    // A reused dataset with items stands; an empty one (stored before imports were
    // refused) is refused and removed like a new one.
    if report.items_accepted > 0 || (imported.reused && imported.dataset.item_count > 0) {
        return Ok(imported);
    }
    store::datasets::delete(store.conn(), imported.dataset.id)?;
    let message = if report.items_read == 0 {
        // An empty list is not a broken file: say what it holds.
        report
            .warnings
            .first()
            .map(|w| w.message.clone())
            .unwrap_or_else(|| "it holds no items".into())
    } else {
        // Most such files fail every line the same way: each reason once, at its
        // first line.
        let mut first: Vec<(u64, &str)> = Vec::new();
        for r in &report.rejected {
            if first.len() == 2 {
                break;
            }
            if !first.iter().any(|(_, reason)| *reason == r.reason) {
                first.push((r.line, &r.reason));
            }
        }
        let listed: Vec<String> = first
            .iter()
            .map(|(line, reason)| format!("line {line}: {reason}"))
            .collect();
        let rest = report.rejected_count.saturating_sub(first.len() as u64);
        format!(
            "none of its {} records is a valid item ({}{})",
            report.items_read,
            listed.join("; "),
            if rest > 0 {
                format!("; {rest} more lines rejected")
            } else {
                String::new()
            }
        )
    };
    Err(dataset::DatasetError::NoItems {
        path: path.display().to_string(),
        message,
    }
    .into())
}

/// The file's identity for reuse: its bytes' hash, with the mapping overrides and the
/// scores file beside it when there are any.
fn mapped_file_hash(path: &Path, map: &FieldMap) -> Result<String> {
    let mut file_hash = hash_file(path)?;
    if !map.overrides.is_empty() {
        let spec = serde_json::to_string(map)?;
        file_hash = format!("{file_hash}+map:{}", blake3::hash(spec.as_bytes()).to_hex());
    }
    // The same traces with other scores beside them are another dataset.
    if let Some(scores) = &map.scores_file {
        file_hash = format!("{file_hash}+scores:{}", hash_file(scores)?);
    }
    Ok(file_hash)
}

/// The item writer, inside the first write transaction; on failure the new dataset row
/// is removed.
fn begin_items(conn: &Connection, dataset_id: i64) -> Result<store::items::ItemWriter> {
    // IMMEDIATE: each batch takes the write lock at its start, waiting for other
    // processes' writes. A deferred transaction whose first statement reads (the chunk
    // writer looking a chunk up) fails at once with "database is locked" when another
    // process wrote between its read and its first write.
    let started = store::items::ItemWriter::new(conn, dataset_id).and_then(|items| {
        store::write_lock::begin(conn)?;
        Ok(items)
    });
    match started {
        Ok(items) => Ok(items),
        Err(e) => {
            // Another process held the database past the busy timeout: leave no empty
            // dataset row behind.
            let _ = store::datasets::delete(conn, dataset_id);
            Err(e)
        }
    }
}

/// What the reader thread and the writer did: how many items were stored, their
/// questions, the reader's report and the first write error.
struct Streamed {
    stored: u64,
    questions: QuestionSet,
    outcome: std::result::Result<ValidationReport, dataset::DatasetError>,
    write_error: Option<Error>,
}

/// Reads the file on its own thread while this one writes each accepted item, committing
/// every `BATCH` items.
fn stream_items(
    conn: &Connection,
    items: &mut store::items::ItemWriter,
    path: &Path,
    limits: &ImportLimits,
    map: &FieldMap,
    progress: &dyn ProgressSink,
) -> Streamed {
    let mut stored: u64 = 0;
    let mut questions = QuestionSet::default();
    // Parsing and writing each take a core: the file is read and validated on its own
    // thread while this one writes. The bounded channel keeps memory flat; when a write
    // fails, dropping the receiver stops the reader at its next item.
    let (outcome, write_error) = std::thread::scope(|scope| {
        let (sender, receiver) = std::sync::mpsc::sync_channel::<dataset::AcceptedItem>(256);
        let reader = scope.spawn(move || {
            dataset::read_items_mapped(path, limits, map, |accepted| {
                sender
                    .send(accepted)
                    .map_err(|_| "the import stopped: writing to the database failed".to_string())
            })
        });
        let mut write_error = None;
        for accepted in receiver.iter() {
            let written = items
                .insert(
                    conn,
                    stored as i64,
                    accepted.line,
                    &accepted.content_hash,
                    &accepted.item,
                )
                .and_then(|_| {
                    questions.add(&accepted.item.question_key());
                    stored += 1;
                    if stored.is_multiple_of(BATCH) {
                        store::write_lock::commit_and_continue(conn)?;
                        progress.report(Progress::Advanced {
                            done: stored,
                            total: None,
                        });
                    }
                    Ok(())
                });
            if let Err(e) = written {
                write_error = Some(e);
                break;
            }
        }
        drop(receiver);
        (
            reader.join().expect("the import's reader thread panicked"),
            write_error,
        )
    });
    Streamed {
        stored,
        questions,
        outcome,
        write_error,
    }
}

/// The import's report once its last batch is committed; on any failure the transaction
/// is rolled back and the dataset removed.
fn commit_import(
    conn: &Connection,
    path: &Path,
    dataset_id: i64,
    outcome: std::result::Result<ValidationReport, dataset::DatasetError>,
    write_error: Option<Error>,
) -> Result<ValidationReport> {
    // A failed write is the cause: the reader then only stopped because of it.
    let aborted = |e: Error| {
        Error::Dataset(dataset::DatasetError::Aborted(format!(
            "{} could not be stored, nothing of it was kept: {e}",
            path.display()
        )))
    };
    let outcome = match write_error {
        Some(e) => Err(aborted(e)),
        None => outcome.map_err(Error::Dataset),
    };
    match outcome.and_then(|report| {
        store::write_lock::commit(conn).map_err(aborted)?;
        Ok(report)
    }) {
        Ok(report) => Ok(report),
        Err(e) => {
            store::write_lock::rollback(conn);
            // Nothing half-imported stays behind: the user re-imports after fixing the file.
            // Where even the delete fails (a full disk), the dataset stays marked as
            // importing, which is never listed or evaluated; the first error is the one
            // to tell.
            let _ = store::datasets::delete(conn, dataset_id);
            Err(e)
        }
    }
}

/// `import_file` with the user's mapping overrides. The same bytes read with another
/// mapping are another dataset; with the same mapping, the earlier one is reused.
pub fn import_file_mapped(
    store: &mut Store,
    path: &Path,
    name: Option<&str>,
    limits: &ImportLimits,
    map: &FieldMap,
    progress: &dyn ProgressSink,
) -> Result<Imported> {
    let name = name
        .map(str::to_string)
        .or_else(|| path.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "dataset".to_string());
    let file_hash = mapped_file_hash(path, map)?;
    let conn = store.conn();
    if let Some(dataset) = store::datasets::find_by_file_hash(conn, &file_hash)? {
        let report = serde_json::from_str(&store::datasets::report_json(conn, dataset.id)?)?;
        return Ok(Imported {
            dataset,
            report,
            reused: true,
        });
    }
    let source = path.to_string_lossy().into_owned();
    let dataset_id = store::datasets::insert(conn, &name, Some(&source))?;
    progress.report(Progress::Started {
        stage: format!("importing {name}"),
        total: None,
    });

    let mut items = begin_items(conn, dataset_id)?;
    let Streamed {
        stored,
        questions,
        outcome,
        write_error,
    } = stream_items(conn, &mut items, path, limits, map, progress);
    let report = commit_import(conn, path, dataset_id, outcome, write_error)?;
    let mapping = serde_json::to_string(&report.mapping)?;
    let schema = report.schema.and_then(|s| {
        serde_json::to_value(s)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
    });
    store::datasets::finish(
        conn,
        dataset_id,
        stored as i64,
        Some(&file_hash),
        schema.as_deref(),
        &mapping,
        &serde_json::to_string(&report)?,
    )?;
    store::datasets::set_question_set(conn, dataset_id, &questions.fingerprint())?;
    progress.report(Progress::Finished {
        stage: format!("imported {stored} items"),
    });
    Ok(Imported {
        dataset: store::datasets::get(conn, dataset_id)?,
        report,
        reused: false,
    })
}

fn hash_file(path: &Path) -> Result<String> {
    // The first read of the user's file: a missing or unreadable file is a dataset problem
    // (the same code as when reading fails later), not an internal I/O error.
    let unreadable =
        |e: std::io::Error| Error::Dataset(crate::dataset::DatasetError::unreadable(path, e));
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let mut hasher = blake3::Hasher::new();
    hasher.update_reader(file).map_err(unreadable)?;
    Ok(hasher.finalize().to_hex().to_string())
}
