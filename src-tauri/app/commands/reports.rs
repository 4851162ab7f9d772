//! Reports: export a run as JSON or CSV (core `export`) or as the stakeholder report,
//! Markdown with charts or PDF (the report crate), to a file the user chose.

use std::path::{Path, PathBuf};

use ragnosis_core::export::{self, ReportOptions, ReportView};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::reports::{Exported, ReportFormat};
use crate::state::AppState;

/// Writes the run to `path` (absolute; the extension of the format is added when it is
/// missing) and returns what was written.
#[tauri::command(async)]
pub fn export_run(
    state: State<'_, AppState>,
    run_id: i64,
    path: String,
    format: ReportFormat,
) -> CommandResult<Exported> {
    let path = output_path(&path)?;
    // Both writers append the format's extension to a base name.
    let base = strip_extension(&path, format.extension());
    // Its own connection: exporting a large run must not stop the window from reading.
    let mut store = state.open_store()?;
    let written = match (format.export_format(), format.report_format()) {
        (Some(format), _) => export::write_all(&mut store, run_id, &base, &[format])?,
        (None, Some(report)) => {
            // Markdown and PDF come from one model (the report crate's), so the two
            // files of one run carry the same sections and figures.
            let options = ReportOptions {
                generated_at: ragnosis_report::date_line(None),
                ..ReportOptions::default()
            };
            let view = ReportView::load(&mut store, run_id, &options)?;
            ragnosis_report::write(&view, &[report], &base)?
        }
        (None, None) => return Err(CommandError::internal("an export format with no writer")),
    };
    Ok(Exported {
        paths: written.iter().map(|p| p.display().to_string()).collect(),
    })
}

/// A path the window chose to write to: absolute and naming a file, or refused.
pub(crate) fn output_path(path: &str) -> Result<PathBuf, CommandError> {
    let path = PathBuf::from(path.trim());
    if !path.is_absolute() || path.file_name().is_none() {
        return Err(CommandError::invalid(format!(
            "'{}' is not an absolute file path",
            path.display()
        )));
    }
    Ok(path)
}

fn strip_extension(path: &Path, extension: &str) -> PathBuf {
    match path.extension() {
        Some(ext) if ext.eq_ignore_ascii_case(extension) => path.with_extension(""),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::strip_extension;
    use std::path::Path;

    #[test]
    fn the_chosen_name_is_kept_without_a_doubled_extension() {
        assert_eq!(
            strip_extension(Path::new("/tmp/r.md"), "md"),
            Path::new("/tmp/r")
        );
        assert_eq!(
            strip_extension(Path::new("/tmp/r.MD"), "md"),
            Path::new("/tmp/r")
        );
        assert_eq!(
            strip_extension(Path::new("/tmp/r.v2"), "md"),
            Path::new("/tmp/r.v2"),
            "other dots stay"
        );
    }
}
