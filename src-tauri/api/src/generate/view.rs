//! What the Generate screen and `ingest` / `generate` exchange: documents to ingest, a
//! generation as asked for, what a generation decided, and what an export wrote.

use ragnosis_core::generate::GenerationSettings;
use ragnosis_core::store::generations::{Candidate, GenerationSummary};
use serde::{Deserialize, Serialize};

/// Files and folders dropped on (or typed into) the Generate screen.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IngestRequest {
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

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationRequest {
    pub corpus_id: i64,
    /// Judge profile name: a language model (the offline judge is refused).
    pub judge: String,
    /// The dataset's name; "test set from <corpus>" when empty.
    #[serde(default)]
    pub name: Option<String>,
    pub settings: GenerationSettings,
}

/// One generation with every candidate it decided, and whether it is executing here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationDetail {
    pub summary: GenerationSummary,
    pub active: bool,
    pub candidates: Vec<Candidate>,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WrittenFile {
    pub path: String,
    pub rows: u64,
}
