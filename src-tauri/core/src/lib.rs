//! Ragnosis core: everything that evaluates a RAG dataset, with no UI and no Tauri (the
//! build graph keeps WebKit out, so it builds and tests anywhere). What each module owns
//! and how data flows between them: `src-tauri/README.md`.

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
pub mod judge_profile;

pub mod measurable;
pub mod metrics;
pub mod output_file;
pub mod paths;
pub mod pipeline;
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
