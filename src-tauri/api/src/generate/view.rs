//! What the Generate screen and `ingest` / `generate` exchange: documents to ingest, a
//! generation as asked for, what a generation decided, and what an export wrote.

use ragnosis_core::generate::GenerationSettings;
use ragnosis_core::store::generations::{Candidate, GenerationSummary};
use serde::{Deserialize, Serialize};

/// Files and folders dropped on (or typed into) the Generate screen.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct IngestRequest {
    /// PDF, Markdown, text or HTML files, folders of them, or a JSONL of chunks; blank
    /// entries are ignored.
    pub paths: Vec<String>,
    /// The corpus's name; the first file's name when empty.
    #[serde(default)]
    pub name: Option<String>,
    /// Words per chunk; 800 when absent.
    #[serde(default)]
    pub chunk_tokens: Option<u32>,
    /// Words each chunk shares with the next one; 400 when absent.
    #[serde(default)]
    pub overlap: Option<u32>,
}

/// A test-set generation as the Generate screen asks for it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationRequest {
    /// The corpus (as `corpora` lists it) the questions are written from.
    pub corpus_id: i64,
    /// Judge profile name: a language model (the offline judge is refused).
    pub judge: String,
    /// The dataset's name; "test set from <corpus>" when empty.
    #[serde(default)]
    pub name: Option<String>,
    /// How many cases to accept, the seed, the filter's thresholds and the budget.
    pub settings: GenerationSettings,
}

/// One generation with every candidate it decided, and whether it is executing here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationDetail {
    /// The generation's row, its corpus name and its accepted, rejected and errored counts.
    pub summary: GenerationSummary,
    /// This process is executing the generation now.
    pub active: bool,
    /// Every candidate the generation decided, in position order.
    pub candidates: Vec<Candidate>,
}

/// What an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WrittenFile {
    /// The file written, as a displayable path.
    pub path: String,
    /// JSONL lines written: test cases, or candidates.
    pub rows: u64,
}
