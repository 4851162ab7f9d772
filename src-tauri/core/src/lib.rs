//! Ragnosis core: everything that evaluates a RAG dataset, with no UI and no Tauri.
//!
//! Data flows one way: `dataset` (read + map + validate a file) → `store` (SQLite) →
//! `run` (choose metrics per item, compute, persist each result as it completes) →
//! `analysis` (statistics, dataset-level metrics) → `view` (one run as every reader sees
//! it, read-only) → `export` (JSON, CSV; the report crate draws Markdown and PDF).
//! `catalogue` is the list of metrics every stage agrees on. The CLI and the desktop shell are
//! thin layers over these modules; the build graph keeps Tauri out of this crate so it
//! builds and tests on a machine without WebKit.

pub mod advisor;
pub mod analysis;
pub mod cases;
pub mod catalogue;
pub mod criteria;
pub mod dataset;
pub mod error;
pub mod error_code;
pub mod export;
pub mod generate;
pub mod import;
pub mod item;
pub mod judge;
pub mod judge_check;

pub mod measurable;
pub mod metrics;
pub mod output_file;
pub mod paths;
pub mod progress;
pub mod retrieval;
pub mod run;
pub mod secrets;
pub mod semantic;
pub mod store;
pub mod text;
pub mod trust;
pub mod view;

pub use error::{Error, ErrorCode, Result};
pub use item::{Context, Item};
