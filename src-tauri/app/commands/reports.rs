//! Reports: a run written to a file the user chose, as JSON or CSV data or as the
//! report for people (Markdown with charts, PDF).

use ragnosis_api::paths;
use ragnosis_api::reports::{self, Exported, ReportFormat};
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

/// Writes the run to `path` (absolute; the format's extension is added when missing).
#[tauri::command(async)]
pub fn export_run(
    state: State<'_, AppState>,
    run_id: i64,
    path: String,
    format: ReportFormat,
) -> CommandResult<Exported> {
    let path = paths::output_file(&path)?;
    Ok(reports::export(&state, run_id, &path, &[format], None)?.into())
}

/// Writes run `b` compared with run `a` to `path`: JSON, or B's report opening on the
/// comparison (Markdown, PDF).
#[tauri::command(async)]
pub fn export_comparison(
    state: State<'_, AppState>,
    a: i64,
    b: i64,
    path: String,
    format: ReportFormat,
) -> CommandResult<Exported> {
    let path = paths::output_file(&path)?;
    Ok(reports::export_comparison(&state, a, b, &path, format)?.into())
}
