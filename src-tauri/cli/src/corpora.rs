//! `ragnosis ingest`, `ragnosis corpora` and `ragnosis retrieval-eval`: documents cut into
//! chunks, and retrievers ranked on them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use ragnosis_core::corpus::{self, Chunking};
use ragnosis_core::progress::ProgressSink;
use ragnosis_core::retrieval::{self, Retriever};
use ragnosis_core::store::{self, Store};
use ragnosis_core::Error;

use crate::{print, Failure};

#[derive(Args)]
pub struct IngestArgs {
    /// PDF, Markdown, text or HTML files, folders of them, or a JSONL of ready chunks
    /// (`{"id", "text"}` per line).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[arg(long)]
    name: Option<String>,
    /// Words per chunk.
    #[arg(long, default_value_t = 800)]
    chunk_tokens: usize,
    /// Words shared by consecutive chunks.
    #[arg(long, default_value_t = 400)]
    overlap: usize,
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub struct RetrievalEvalArgs {
    /// The dataset whose questions name their gold chunks (gold_context_ids).
    #[arg(long)]
    dataset: i64,
    /// The corpus to rank.
    #[arg(long)]
    corpus: i64,
    /// Comma-separated: bm25, embedded.
    #[arg(long, default_value = "bm25,embedded")]
    retrievers: String,
    #[arg(long, default_value_t = 10)]
    k: usize,
    #[arg(long)]
    json: bool,
}

pub fn ingest(
    home: &Path,
    args: IngestArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let mut store = Store::open(home)?;
    let name = args.name.clone().unwrap_or_else(|| {
        args.paths[0]
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "corpus".into())
    });
    let chunking = Chunking {
        size: args.chunk_tokens,
        overlap: args.overlap,
    };
    let report = corpus::ingest(&mut store, &name, &args.paths, chunking, progress.as_ref())?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(Error::from)?
        );
    } else {
        print::ingest_report(&report);
    }
    Ok(())
}

pub fn corpora(home: &Path, json: bool) -> Result<(), Failure> {
    let store = Store::open(home)?;
    let rows = store::corpora::list(store.conn())?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).map_err(Error::from)?
        );
    } else if rows.is_empty() {
        println!("No corpora yet. Ingest documents with `ragnosis ingest FILES...`.");
    } else {
        for c in rows {
            println!(
                "{:>4}  {:<32} {:>6} documents {:>8} chunks  ({} words, {} overlap)",
                c.id, c.name, c.documents, c.chunks, c.chunk_tokens, c.overlap
            );
        }
    }
    Ok(())
}

pub fn retrieval_eval(
    home: &Path,
    args: RetrievalEvalArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let retrievers: Vec<Retriever> = args
        .retrievers
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let store = Store::open(home)?;
    let eval = retrieval::evaluate(
        &store,
        args.dataset,
        args.corpus,
        &retrievers,
        args.k,
        progress.as_ref(),
    )?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&eval).map_err(Error::from)?
        );
    } else {
        print::retrieval_eval(&eval);
    }
    Ok(())
}
