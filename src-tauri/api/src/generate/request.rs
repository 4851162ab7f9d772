//! What the Generate screen and `ingest` / `generate` ask for: documents to ingest and a
//! generation.

use ragnosis_core::generate::GenerationSettings;
use serde::Deserialize;

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
