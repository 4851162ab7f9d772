//! What the Generate screen and `ingest` / `generate` receive: what a generation decided,
//! and what an export wrote.

use ragnosis_core::store::generations::{Candidate, GenerationSummary};
use serde::Serialize;

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
