//! Where Ragnosis keeps its data. One directory ("home") holds the SQLite file.
//!
//! Precedence: an explicit override (`--home DIR`), then `RAGNOSIS_HOME`, then the
//! platform data dir. Tests always pass an override so they never touch a real profile.

use std::path::{Path, PathBuf};

pub const HOME_ENV: &str = "RAGNOSIS_HOME";
pub const DB_FILE: &str = "ragnosis.db";

pub fn home_dir(explicit: Option<&Path>) -> PathBuf {
    if let Some(dir) = explicit {
        return dir.to_path_buf();
    }
    if let Some(dir) = std::env::var_os(HOME_ENV).filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    directories::ProjectDirs::from("app", "Ragnosis", "ragnosis")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".ragnosis"))
}

pub fn database_path(home: &Path) -> PathBuf {
    home.join(DB_FILE)
}

pub use ragnosis_types::dev_data::{shared_data_dir, SHARED_DATA_ENV};
