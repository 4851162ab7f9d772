//! The Generate screen: documents to ingest, a generation as the form sends it, what a
//! generation decided, and a retriever comparison with its chart.

use ragnosis_core::generate::GenerationSettings;
use ragnosis_core::retrieval::RetrievalEval;
use ragnosis_core::store::generations::{Candidate, GenerationSummary};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Files and folders dropped on (or typed into) the Generate screen.
#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
pub struct IngestInput {
    pub paths: Vec<String>,
    /// The corpus's name; the first file's name when empty.
    #[serde(default)]
    pub name: Option<String>,
    /// Words per chunk (800 when absent) and words shared by neighbours (400).
    #[serde(default)]
    pub chunk_tokens: Option<u32>,
    #[serde(default)]
    pub overlap: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
pub struct GenerationInput {
    pub corpus_id: i64,
    /// Judge profile name: a language model (the offline judge is refused).
    pub judge: String,
    /// The dataset's name; "test set from <corpus>" when empty.
    #[serde(default)]
    pub name: Option<String>,
    pub settings: GenerationSettings,
}

/// One generation with every candidate it decided, and whether it is executing here.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct GenerationDetail {
    pub summary: GenerationSummary,
    pub active: bool,
    pub candidates: Vec<Candidate>,
}

/// Which retrievers to compare on a dataset's questions over a corpus.
#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
pub struct RetrievalInput {
    pub dataset_id: i64,
    pub corpus_id: i64,
    /// "bm25", "embedded", or "endpoint:PROFILE" for an OpenAI-compatible embeddings
    /// endpoint saved as a judge profile.
    pub retrievers: Vec<String>,
    pub k: u32,
}

/// A retriever comparison and its chart (drawn by the report crate, shown as an image).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RetrievalView {
    pub eval: RetrievalEval,
    pub chart: super::compare::ChartSvg,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct WrittenFile {
    pub path: String,
    pub rows: u64,
}
