//! Ingested documents: PDF, HTML, Markdown and text files (`ragnosis_ingest::read`), then
//! cut into chunks (`corpus::chunk`), and pre-chunked JSONL corpora through
//! `corpus::ingest` into a real store. Seeds: `tests/documents`. Invariants: no panic
//! (the PDF parser's own panics are caught and named as a broken PDF); an error names
//! the file; a document read has text; every chunk lies inside its page's text on
//! character boundaries.

use std::path::PathBuf;

use ragnosis_core::generate::corpus::{self, chunk, Chunking};
use ragnosis_core::progress::NoProgress;
use ragnosis_core::store::Store;

use super::engine::campaign;
use super::importer::scratch;
use super::mutate::{apply, mutation, Mutation, Seed};
use super::seeds::{files, load, repo};

const EXTENSIONS: [&str; 5] = ["pdf", "html", "md", "txt", "htm"];

pub fn seeds() -> Vec<Seed> {
    let seeds = load(&files(&[repo().join("tests/documents")], &EXTENSIONS));
    assert!(seeds.len() >= 5, "tests/documents holds the document seeds");
    seeds
}

pub fn run(default_cases: u32) {
    let seeds = seeds();
    let dir = scratch();
    let paths: Vec<PathBuf> = EXTENSIONS
        .iter()
        .map(|e| dir.path().join(format!("document.{e}")))
        .collect();
    campaign(
        "documents",
        default_cases,
        (mutation(seeds.len()), 0..EXTENSIONS.len()),
        |(m, _): &(Mutation, usize)| apply(&seeds, m),
        |bytes, (m, ext)| {
            // A PDF seed keeps its kind; text seeds try every extension.
            let path = if seeds[m.seed].name.ends_with(".pdf") {
                &paths[0]
            } else {
                &paths[*ext]
            };
            std::fs::write(path, bytes).unwrap();
            match ragnosis_ingest::read(path) {
                Ok(doc) => {
                    if doc.pages.iter().all(|p| p.text.trim().is_empty()) {
                        return Err("a document without text was accepted".into());
                    }
                    for page in &doc.pages {
                        for span in chunk::chunks(&page.text, Chunking::default()) {
                            if span.start > span.end
                                || span.end > page.text.len()
                                || !page.text.is_char_boundary(span.start)
                                || !page.text.is_char_boundary(span.end)
                            {
                                return Err(format!(
                                    "chunk {}..{} of page {} ({} bytes) is not inside its text",
                                    span.start,
                                    span.end,
                                    page.number,
                                    page.text.len()
                                ));
                            }
                        }
                    }
                    Ok(())
                }
                Err(e) if e.to_string().contains(&path.display().to_string()) => Ok(()),
                Err(e) => Err(format!("the error does not name the file: {e}")),
            }
        },
    );
}

/// Pre-chunked corpora (`{"id", "text"}` per line) into a real store.
pub fn run_chunk_files(default_cases: u32) {
    let mut lines = String::new();
    for (i, text) in [
        "Every frame is warranted for 10 years from purchase, for the first owner.",
        "Batteries are covered for 2 years or 500 charge cycles.",
        "Shipping is free within the EU.",
    ]
    .iter()
    .enumerate()
    {
        lines.push_str(&format!(
            "{{\"id\": \"warranty.md#{i}\", \"text\": \"{text}\"}}\n"
        ));
    }
    let seeds = vec![Seed::new("chunks.jsonl", lines.into_bytes())];
    let dir = scratch();
    let path = dir.path().join("chunks.jsonl");
    let store = std::cell::RefCell::new(Store::open(&dir.path().join("home")).unwrap());
    campaign(
        "chunk_files",
        default_cases,
        mutation(seeds.len()),
        |m: &Mutation| apply(&seeds, m),
        |bytes, _| {
            std::fs::write(&path, bytes).unwrap();
            let outcome = corpus::ingest(
                &mut store.borrow_mut(),
                "fuzz",
                std::slice::from_ref(&path),
                Chunking::default(),
                &NoProgress,
            );
            match outcome {
                Ok(report) => {
                    let stored: u64 = report.files.iter().map(|f| f.chunks).sum();
                    if stored != report.chunks || stored == 0 {
                        return Err(format!(
                            "{} chunks reported, {stored} per file",
                            report.chunks
                        ));
                    }
                    // One corpus at a time: a store growing by every case slows the
                    // campaign, not the code under test.
                    let store = store.borrow();
                    ragnosis_core::store::corpora::delete(store.conn(), report.corpus_id)
                        .map_err(|e| e.to_string())?;
                    Ok(())
                }
                Err(e) if e.is_input_error() && !e.to_string().is_empty() => Ok(()),
                Err(e) => Err(format!("[{}] {e}", e.code())),
            }
        },
    );
}
