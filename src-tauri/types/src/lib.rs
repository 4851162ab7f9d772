//! Ragnosis's shared vocabulary: the words the core, the judge and the window all speak,
//! with nothing of Ragnosis below them. A type belongs here when two crates that must not
//! know each other both read it (the judge and the store both read a judge profile; the
//! judge and a criterion's definition both read its scale). What each module owns:
//! `src-tauri/README.md`.

pub mod api_key;
pub mod cached_verdict;
pub mod catalogue;
pub mod criterion;
pub mod dev_data;
pub mod error_code;
pub mod item;
pub mod judge_profile;
pub mod progress;
pub mod text;

pub use api_key::ApiKey;
pub use error_code::ErrorCode;
