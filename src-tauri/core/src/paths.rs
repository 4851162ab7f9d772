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

/// Overrides where the dev data sets are (`shared/data` beside the repository), for tests
/// and examples. `scripts/test.sh` sets it, so a test binary compiled in another checkout
/// of the repository (a shared build cache) reads this checkout's data.
pub const SHARED_DATA_ENV: &str = "RAGNOSIS_SHARED_DATA";

/// The human-labelled dev sets: `$RAGNOSIS_SHARED_DATA`, else `../shared/data` beside the
/// repository this crate was compiled from.
pub fn shared_data_dir() -> PathBuf {
    std::env::var_os(SHARED_DATA_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}
