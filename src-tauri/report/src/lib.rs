//! Ragnosis stakeholder reports: Markdown with SVG charts, and PDF typeset by typst.
//!
//! Data flows one way: `ragnosis_core::export::ReportView` (the shared view model) →
//! `model::Report` (every figure formatted, every sentence written) → a renderer
//! (`markdown`, `pdf`). Charts are drawn once (`charts`) and handed to both renderers.
//! Renderers never compute: they lay out and escape. Output is deterministic: the same
//! view gives the same bytes; the only clock is the timestamp in `ReportOptions`.
//!
//! Kept out of `ragnosis-core` because typst is a heavy build: editing the core never
//! recompiles it. No Tauri here either.

pub mod charts;

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] ragnosis_core::Error),
    #[error("drawing a chart failed: {0}")]
    Chart(String),
    #[error("typesetting the PDF failed: {0}")]
    Typeset(String),
    #[error("cannot write {path}: {source}")]
    Write { path: std::path::PathBuf, source: std::io::Error },
}
