//! Ragnosis core: everything that evaluates a RAG dataset, with no UI and no Tauri (the
//! build graph keeps WebKit out, so it builds and tests anywhere). What each module owns
//! and how data flows between them: `src-tauri/README.md`.

pub mod advisor;
pub mod analysis;
pub mod cases;
pub mod criteria;
pub mod dataset;
pub mod error;
pub mod export;
pub mod generate;
pub mod import;
pub mod judge;
pub mod judge_check;

pub mod measurable;
pub mod metrics;
pub mod output_file;
pub mod paths;
pub mod pipeline;
pub mod retrieval;
pub mod run;
pub mod secrets;
pub mod store;
pub mod trust;
pub mod view;

// The shared vocabulary and the embedded model live in their own crates (so the judge
// can read them without the core); the core names them as its own modules.
pub use ragnosis_judge::semantic;
pub use ragnosis_types::{catalogue, error_code, item, judge_profile, progress, text};

pub use error::{Error, ErrorCode, Result};
pub use item::{Context, Item};
