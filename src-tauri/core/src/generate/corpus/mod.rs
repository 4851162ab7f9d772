//! Corpora: documents cut into chunks, the material RAGalyst's test-set generation draws
//! questions from and retriever evaluation ranks.
//!
//! Owns: ingesting files (PDF, Markdown, text, HTML via `ragnosis-ingest`) or a
//! pre-chunked JSONL (`{"id", "text"}` per line, each line one chunk kept whole), cutting
//! text into token windows (`chunk`), and the ingest report. A file that cannot be read is
//! reported by name with the reason and the others go on; each document's chunks are
//! committed with it (a long ingest never holds the database's write lock for long). A
//! corpus is listed only once every document is in: an ingest killed part-way leaves it
//! unfinished and unlisted, one that fails part-way (a full disk) removes it.

pub mod chunk;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use chunk::Chunking;

use crate::error::{Error, Result};
use crate::progress::{Progress, ProgressSink};
use crate::store::{self, corpora::NewChunk, Store};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileOutcome {
    pub path: String,
    pub kind: Option<String>,
    pub pages: u32,
    pub chunks: u64,
    /// What went wrong: why the file was not ingested (no chunks), or which lines of a
    /// chunk file were skipped; `None` when all of it was taken.
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IngestReport {
    pub corpus_id: i64,
    pub name: String,
    pub chunking: Chunking,
    pub files: Vec<FileOutcome>,
    pub chunks: u64,
    pub seconds: f64,
}

/// The name a corpus gets when the user gives none: the first file's (or folder's) name.
pub fn default_name(paths: &[PathBuf]) -> String {
    paths
        .first()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "documents".into())
}

/// Ingests `paths` (files and folders) as a new corpus. Fails only when nothing at all
/// could be read (then nothing is stored); single files that fail are in the report.
pub fn ingest(
    store: &mut Store,
    name: &str,
    paths: &[PathBuf],
    chunking: Chunking,
    progress: &dyn ProgressSink,
) -> Result<IngestReport> {
    let chunking = chunking.checked().map_err(Error::Invalid)?;
    let files = ragnosis_ingest::expand(paths);
    if files.is_empty() {
        return Err(Error::Invalid(
            "no document to ingest: give PDF, Markdown, text or HTML files, a folder of them, or a JSONL of chunks".into(),
        ));
    }
    let started = std::time::Instant::now();
    let corpus_id = store::corpora::insert_corpus(
        store.conn(),
        name,
        chunking.size as i64,
        chunking.overlap as i64,
    )?;
    progress.report(Progress::Started {
        stage: format!("ingesting {name}"),
        total: Some(files.len() as u64),
    });
    let mut report = IngestReport {
        corpus_id,
        name: name.to_string(),
        chunking,
        files: Vec::new(),
        chunks: 0,
        seconds: 0.0,
    };
    for (done, path) in files.iter().enumerate() {
        let outcome = match store.transaction(|tx| ingest_file(tx, corpus_id, path, chunking)) {
            Ok(outcome) => outcome,
            Err(e) => {
                // A store that cannot take more (a full disk) ends the ingest: what was
                // stored goes too, rather than stay as a corpus missing documents.
                let _ = store::corpora::delete(store.conn(), corpus_id);
                return Err(e);
            }
        };
        report.chunks += outcome.chunks;
        report.files.push(outcome);
        progress.report(Progress::Advanced {
            done: done as u64 + 1,
            total: Some(files.len() as u64),
        });
    }
    report.seconds = started.elapsed().as_secs_f64();
    if report.chunks == 0 {
        store::corpora::delete(store.conn(), corpus_id)?;
        let reasons: Vec<String> = report
            .files
            .iter()
            .filter_map(|f| f.error.clone())
            .collect();
        return Err(Error::Invalid(format!(
            "no text could be taken from {} file(s); nothing was stored: {}",
            report.files.len(),
            reasons.join("; ")
        )));
    }
    store::corpora::finish(store.conn(), corpus_id)?;
    progress.report(Progress::Finished {
        stage: format!("{} chunks from {} files", report.chunks, report.files.len()),
    });
    Ok(report)
}

/// One file: extracted, cut into chunks and stored, with the file's outcome.
fn ingest_file(
    conn: &rusqlite::Connection,
    corpus_id: i64,
    path: &Path,
    chunking: Chunking,
) -> Result<FileOutcome> {
    let shown = path.display().to_string();
    let is_jsonl = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonl"));
    if is_jsonl {
        return ingest_chunk_file(conn, corpus_id, path);
    }
    let document = match ragnosis_ingest::read(path) {
        Ok(d) => d,
        Err(e) => return unreadable_document(conn, corpus_id, path, shown, e.to_string()),
    };
    let pages = document.pages.len() as u32;
    let document_id = store::corpora::insert_document(
        conn,
        corpus_id,
        &shown,
        document.kind.as_str(),
        pages as i64,
        None,
    )?;
    let (text, page_starts) = joined_pages(&document.pages);
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| shown.clone());
    let mut stored = 0u64;
    for (ordinal, span) in chunk::chunks(&text, chunking).into_iter().enumerate() {
        let page = page_starts
            .iter()
            .rev()
            .find(|(start, _)| *start <= span.start)
            .map(|(_, n)| *n as i64);
        let key = format!("{file_name}#{ordinal}");
        let inserted = store::corpora::insert_chunk(
            conn,
            corpus_id,
            document_id,
            &NewChunk {
                key: &key,
                ordinal: ordinal as i64,
                page,
                start: Some(span.start as i64),
                end: Some(span.end as i64),
                tokens: span.tokens as i64,
                text: &text[span.start..span.end],
            },
        )?;
        stored += u64::from(inserted);
    }
    Ok(FileOutcome {
        path: shown,
        kind: Some(document.kind.as_str().into()),
        pages,
        chunks: stored,
        error: None,
    })
}

/// A file the reader could not take: stored as a document without chunks, with the
/// reason, and reported so.
fn unreadable_document(
    conn: &rusqlite::Connection,
    corpus_id: i64,
    path: &Path,
    shown: String,
    error: String,
) -> Result<FileOutcome> {
    let kind = ragnosis_ingest::Kind::of(path)
        .map(|k| k.as_str())
        .unwrap_or("unknown");
    store::corpora::insert_document(conn, corpus_id, &shown, kind, 0, Some(&error))?;
    Ok(FileOutcome {
        path: shown,
        kind: None,
        pages: 0,
        chunks: 0,
        error: Some(error),
    })
}

/// The document's text: its pages joined by a blank line, with where each page starts in
/// that text (offsets index it, and a chunk's page is the page its first word is on).
fn joined_pages(pages: &[ragnosis_ingest::Page]) -> (String, Vec<(usize, u32)>) {
    let mut text = String::new();
    let mut page_starts = Vec::with_capacity(pages.len());
    for page in pages {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        page_starts.push((text.len(), page.number));
        text.push_str(&page.text);
    }
    (text, page_starts)
}

/// One line of a chunk file as its id and text, or why it is skipped.
fn chunk_line(i: usize, line: &str) -> std::result::Result<(String, String), String> {
    let row: serde_json::Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(_) => return Err(format!("line {} is not JSON", i + 1)),
    };
    let id = match &row["id"] {
        serde_json::Value::String(s) if !s.is_empty() => s.clone(),
        serde_json::Value::Number(n) => n.to_string(),
        _ => return Err(format!("line {} has no id", i + 1)),
    };
    let Some(chunk_text) = row["text"].as_str().filter(|t| !t.trim().is_empty()) else {
        return Err(format!("line {} has no text", i + 1));
    };
    Ok((id, chunk_text.to_string()))
}

/// The chunk file's error: how many lines were skipped, the first ten of them named.
fn skipped_lines(bad: &[String]) -> Option<String> {
    (!bad.is_empty()).then(|| {
        let shown_lines: Vec<&String> = bad.iter().take(10).collect();
        format!(
            "{} line(s) skipped: {}{}",
            bad.len(),
            shown_lines
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            if bad.len() > 10 { "; …" } else { "" }
        )
    })
}

/// A pre-chunked corpus: one `{"id": "...", "text": "..."}` per line, stored as given.
/// Lines without both are named in the file's error (the good lines are kept).
fn ingest_chunk_file(
    conn: &rusqlite::Connection,
    corpus_id: i64,
    path: &Path,
) -> Result<FileOutcome> {
    let shown = path.display().to_string();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let why = format!("{shown}: cannot read the file ({e})");
            store::corpora::insert_document(conn, corpus_id, &shown, "chunks", 0, Some(&why))?;
            return Ok(FileOutcome {
                path: shown,
                kind: None,
                pages: 0,
                chunks: 0,
                error: Some(why),
            });
        }
    };
    let document_id = store::corpora::insert_document(conn, corpus_id, &shown, "chunks", 0, None)?;
    let (mut stored, mut bad) = (0u64, Vec::new());
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let (id, chunk_text) = match chunk_line(i, line) {
            Ok(read) => read,
            Err(why) => {
                bad.push(why);
                continue;
            }
        };
        let inserted = store::corpora::insert_chunk(
            conn,
            corpus_id,
            document_id,
            &NewChunk {
                key: &id,
                ordinal: i as i64,
                page: None,
                start: None,
                end: None,
                tokens: chunk::words(&chunk_text).len() as i64,
                text: &chunk_text,
            },
        )?;
        if inserted {
            stored += 1;
        } else {
            bad.push(format!("line {} repeats the id '{id}'", i + 1));
        }
    }
    Ok(FileOutcome {
        path: shown,
        kind: Some("chunks".into()),
        pages: 0,
        chunks: stored,
        error: skipped_lines(&bad),
    })
}
