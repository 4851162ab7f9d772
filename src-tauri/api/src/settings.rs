//! Settings kept in the database: the window's theme, and the few-shot file of
//! answer-correctness examples runs use (both shells: a run request without its own
//! file takes this one). Must not read a setting the core owns elsewhere.

use std::path::Path;

use ragnosis_core::judge::few_shot;
use ragnosis_core::{store, Result};
use serde::{Deserialize, Serialize};

use crate::Ctx;

const THEME: &str = "theme";

/// The window's colour theme, stored in the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// Follow the operating system's light or dark setting; the default.
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl Theme {
    /// The stored word: "system", "light" or "dark".
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// Reads a stored word; anything unknown is `System`.
    pub fn parse(s: &str) -> Theme {
        match s {
            "light" => Theme::Light,
            "dark" => Theme::Dark,
            _ => Theme::System,
        }
    }
}

/// Settings → Answer correctness examples: which file runs take their few-shot
/// examples from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FewShotSetting {
    /// The chosen file; null for the examples shipped with Ragnosis.
    pub path: Option<String>,
    /// Examples the next run shows the judge (0 when the file cannot be read).
    pub examples: u32,
    /// Why the chosen file cannot be used now (moved, edited into a bad line).
    pub problem: Option<String>,
}

impl FewShotSetting {
    /// The setting for the chosen file (`None`: the shipped examples) with its example
    /// count, or why it cannot be read.
    pub fn new(path: Option<&std::path::Path>, examples: usize, problem: Option<String>) -> Self {
        FewShotSetting {
            path: path.map(|p| p.display().to_string()),
            examples: examples as u32,
            problem,
        }
    }
}

/// The stored theme; `System` when none was chosen.
pub fn theme(ctx: &Ctx) -> Result<Theme> {
    let store = ctx.store()?;
    Ok(store::settings::get(store.conn(), THEME)?
        .map(|t| Theme::parse(&t))
        .unwrap_or(Theme::System))
}

/// Stores the theme and returns it.
pub fn set_theme(ctx: &Ctx, theme: Theme) -> Result<Theme> {
    store::settings::set(ctx.store()?.conn(), THEME, theme.as_str())?;
    Ok(theme)
}

/// The few-shot file runs use, and how many examples it holds now (or why it cannot be
/// read any more).
pub fn few_shot(ctx: &Ctx) -> Result<FewShotSetting> {
    let store = ctx.store()?;
    let path = few_shot::chosen_file(&store)?;
    Ok(match few_shot::for_new_run(&store) {
        Ok(examples) => FewShotSetting::new(path.as_deref(), examples.len(), None),
        Err(e) => FewShotSetting::new(path.as_deref(), 0, Some(e.to_string())),
    })
}

/// Chooses a few-shot file (read and checked first: a bad line is refused with its
/// number and nothing changes), or the shipped examples when `path` is empty.
pub fn set_few_shot(ctx: &Ctx, path: Option<&str>) -> Result<FewShotSetting> {
    let chosen = path.map(str::trim).filter(|p| !p.is_empty()).map(Path::new);
    let examples = few_shot::choose_file(&*ctx.store()?, chosen)?;
    Ok(FewShotSetting::new(chosen, examples.len(), None))
}

pub use ragnosis_core::store::integrity::Health;

/// Checks the database file whole (SQLite's integrity check, read-only), after copying
/// it byte for byte to `backups/` in the home when `backup` is set. Works on a damaged
/// file too: that is when it is needed. Never writes to the database.
pub fn doctor(ctx: &Ctx, backup: bool) -> Result<Health> {
    let path = ctx.database_path();
    let copy = backup.then(|| {
        let stamp = chrono::Utc::now().format("%Y%m%d-%H%M%S");
        ctx.home()
            .join("backups")
            .join(format!("ragnosis-{stamp}.db"))
    });
    store::integrity::check_file(&path, copy.as_deref())
}
