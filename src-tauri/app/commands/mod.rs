//! Tauri commands, one module per domain. Each parses its arguments, calls one
//! `ragnosis_api` function and maps errors to `CommandError`; nothing else.

pub mod cases;
pub mod compare;
pub mod criteria;
pub mod datasets;
pub mod evaluate;
pub mod experiments;
pub mod generate;
pub mod judges;
pub mod reports;
pub mod runs;
pub mod settings;
