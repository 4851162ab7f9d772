//! Ragnosis stakeholder reports: Markdown with SVG charts, and PDF typeset by typst.
//!
//! Data flows one way: `ragnosis_core::view::ReportView` (the shared view model) →
//! `model::Report` (every figure formatted, every sentence written) → a renderer
//! (`markdown`, `pdf`). Charts are drawn once (`charts`) and handed to both renderers.
//! Renderers never compute: they lay out and escape. Output is deterministic: the same
//! view gives the same bytes; the only clock is the timestamp in `ReportOptions`.
//!
//! Kept out of `ragnosis-core` because typst is a heavy build: editing the core never
//! recompiles it. No Tauri here either.

pub mod charts;
pub mod markdown;
pub mod model;
pub mod pdf;
pub mod retrieval;

use std::path::{Path, PathBuf};

use ragnosis_core::view::ReportView;

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Core(#[from] ragnosis_core::Error),
    #[error("drawing a chart failed: {0}")]
    Chart(String),
    #[error("typesetting the PDF failed: {0}")]
    Typeset(String),
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Pdf,
    Markdown,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.trim().to_ascii_lowercase().as_str() {
            "pdf" => Some(Format::Pdf),
            "md" | "markdown" => Some(Format::Markdown),
            _ => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Format::Pdf => "pdf",
            Format::Markdown => "md",
        }
    }
}

/// The report's content and charts, ready for any renderer.
pub struct Prepared {
    pub report: model::Report,
    pub charts: Vec<charts::Chart>,
    /// Stable document identifier for the PDF.
    pub ident: String,
}

pub fn prepare(view: &ReportView) -> Result<Prepared, Error> {
    let charts = charts::for_report(view)?;
    let report = model::Report::build(view, &charts);
    let ident = match &view.comparison {
        Some(c) => format!("ragnosis-run-{}-vs-{}", c.b.id, c.a.id),
        None => format!("ragnosis-run-{}", view.run.run.id),
    };
    Ok(Prepared {
        report,
        charts,
        ident,
    })
}

/// Writes the report in each format and returns every file written. `base` is the
/// output path without extension (an extension matching the format is kept); the
/// Markdown's charts go beside it.
pub fn write(view: &ReportView, formats: &[Format], base: &Path) -> Result<Vec<PathBuf>, Error> {
    let prepared = prepare(view)?;
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| Error::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    let mut written = Vec::new();
    for format in formats {
        let path = path_for(base, *format);
        match format {
            Format::Markdown => {
                written.extend(markdown::write(&prepared.report, &prepared.charts, &path)?)
            }
            Format::Pdf => {
                let pdf = pdf::render(&prepared.report, &prepared.charts, &prepared.ident)?;
                ragnosis_core::output_file::write(&path, &pdf.bytes)?;
                written.push(path);
            }
        }
    }
    Ok(written)
}

/// `base` with the format's extension: kept when `base` already ends in it, appended
/// otherwise (so `out/run-3` gives `out/run-3.pdf` and `out/run-3.md`).
pub fn path_for(base: &Path, format: Format) -> PathBuf {
    with_extension(base, format.extension())
}

/// `base` with `ext`, kept when `base` already ends in it (any other file a report run
/// writes beside its reports, such as a comparison's `.json`, is named the same way).
pub fn with_extension(base: &Path, ext: &str) -> PathBuf {
    if base
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
    {
        return base.to_path_buf();
    }
    let mut name = base
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_else(|| "report".into());
    name.push(".");
    name.push(ext);
    base.with_file_name(name)
}

/// The report's date line, the only clock in a report: `explicit` when given, else
/// `SOURCE_DATE_EPOCH` when set (the reproducible-builds convention), else now — UTC,
/// to the minute.
pub fn date_line(explicit: Option<String>) -> String {
    if let Some(text) = explicit {
        return text;
    }
    let epoch = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok());
    let when = epoch
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .unwrap_or_else(chrono::Utc::now);
    when.format("%Y-%m-%d %H:%M UTC").to_string()
}
