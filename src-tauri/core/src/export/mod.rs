//! Writing a run out as data: JSON (everything, streamed) and CSV (one row per item, one
//! column per metric).
//!
//! Owns: data file formats. Reads the run's read model (`crate::view`); never recomputes
//! a metric. Everything written for people — the report as Markdown with charts or as
//! PDF — is the `ragnosis-report` crate's, from `ReportView`: one model, so a run's
//! Markdown and PDF say the same.

mod csv_out;
mod json_out;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::Store;

pub use crate::text::escape_markdown;
use crate::view::ReportView;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Csv,
}

impl ExportFormat {
    pub fn parse(s: &str) -> Option<ExportFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "json" => Some(ExportFormat::Json),
            "csv" => Some(ExportFormat::Csv),
            _ => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Csv => "csv",
        }
    }
}

/// Writes `base.<ext>` for each format and returns the paths written: the report's
/// facts, then the run's items streamed from `store`.
pub fn write_all(
    store: &Store,
    view: &ReportView,
    base: &Path,
    formats: &[ExportFormat],
) -> Result<Vec<PathBuf>> {
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| Error::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let mut written = Vec::new();
    for format in formats {
        let path = with_extension(base, format.extension());
        write_one(store, view, *format, &path)?;
        written.push(path);
    }
    Ok(written)
}

pub fn write_one(
    store: &Store,
    view: &ReportView,
    format: ExportFormat,
    path: &Path,
) -> Result<()> {
    crate::output_file::write_with(path, |out| match format {
        ExportFormat::Json => json_out::write(store, view, out),
        ExportFormat::Csv => csv_out::write(store, &view.run, out),
    })
}

fn with_extension(base: &Path, ext: &str) -> PathBuf {
    let mut name = base
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".");
    name.push(ext);
    base.with_file_name(name)
}
