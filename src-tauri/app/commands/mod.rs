//! Tauri commands, one module per domain.

pub mod datasets;
