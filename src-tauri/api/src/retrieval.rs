//! Retrieval evaluation: a corpus ranked for a dataset's questions by each retriever
//! (BM25, the embedded model, an OpenAI-compatible embeddings endpoint), Recall@K and
//! MRR@K with their intervals, the chart, and the comparison written as a report. Must
//! not store anything.
//!
//! Policies both shells follow: an empty list of retrievers is refused; the report is
//! written from an evaluation already made (never evaluated a second time).

use std::path::{Path, PathBuf};

use ragnosis_core::progress::ProgressSink;
use ragnosis_core::retrieval::{self, Retriever};
use ragnosis_core::{Error, Result};
use serde::{Deserialize, Serialize};

use crate::error::from_report;
use crate::reports::Chart;
use crate::{jobs, Ctx};

pub use ragnosis_core::retrieval::{RetrievalEval, RetrieverFigures};

/// Which retrievers to compare on a dataset's questions over a corpus.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RetrievalRequest {
    /// The dataset whose questions are asked; its gold context ids mark the right chunks.
    pub dataset_id: i64,
    /// The corpus of chunks the retrievers rank (as `generate::corpora` lists it).
    pub corpus_id: i64,
    /// "bm25", "embedded", or "endpoint:PROFILE[@MODEL]" for an OpenAI-compatible
    /// embeddings endpoint saved as a judge profile.
    pub retrievers: Vec<String>,
    /// How many ranked chunks count: Recall@K and MRR@K; at least 1.
    pub k: u32,
}

/// A retriever comparison and its chart (drawn by the report crate, shown as an image).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RetrievalView {
    /// Per retriever Recall@K and MRR@K with their intervals, over the questions with gold
    /// chunks in the corpus.
    pub eval: RetrievalEval,
    /// The retrievers' figures drawn side by side.
    pub chart: Chart,
}

/// Ranks the corpus for every question of the dataset with each retriever.
pub fn evaluate(
    ctx: &Ctx,
    request: &RetrievalRequest,
    progress: &dyn ProgressSink,
) -> Result<RetrievalView> {
    let retrievers: Vec<Retriever> = request
        .retrievers
        .iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .map(str::parse)
        .collect::<Result<_>>()?;
    if retrievers.is_empty() {
        return Err(Error::Invalid("choose at least one retriever".into()));
    }
    let store = ctx.own_store()?;
    // On a thread of its own: an endpoint's requests run on a runtime of their own.
    let eval = jobs::on_own_thread("the retriever evaluation", move || {
        retrieval::evaluate(
            &store,
            request.dataset_id,
            request.corpus_id,
            &retrievers,
            request.k as usize,
            ctx.secrets(),
            progress,
        )
    })?;
    let chart = ragnosis_report::charts::retrieval::chart(&eval)
        .map_err(|e| from_report(e, Path::new("retrieval chart")))?;
    Ok(RetrievalView { eval, chart })
}

/// Writes the comparison as a Markdown report (the `.md` at `path`, its chart beside it).
pub fn write_report(ctx: &Ctx, eval: &RetrievalEval, path: &Path) -> Result<Vec<PathBuf>> {
    let store = ctx.own_store()?;
    ragnosis_report::retrieval::write_report(&store, eval, path).map_err(|e| from_report(e, path))
}
