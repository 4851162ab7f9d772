//! The formats a run is written in: data for machines (JSON, CSV, from the core's
//! export) and the report for people (Markdown with its charts, PDF, from the report
//! crate), and what a write produced.

use ragnosis_core::export::ExportFormat;
use ragnosis_core::{Error, Result};
use serde::{Deserialize, Serialize};

/// A format a run (or a comparison) is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    /// The stakeholder report as Markdown, with its charts as SVG files beside it.
    Markdown,
    /// Everything the run stored, as data (streamed; a comparison as its data).
    Json,
    /// One row per item, one column per metric; refused for a comparison.
    Csv,
    /// The stakeholder report typeset by the report crate (typst), with its charts.
    Pdf,
}

impl ReportFormat {
    /// "json", "csv", "md" (or "markdown"), "pdf".
    pub fn parse(s: &str) -> Option<ReportFormat> {
        match s.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(ReportFormat::Markdown),
            "json" => Some(ReportFormat::Json),
            "csv" => Some(ReportFormat::Csv),
            "pdf" => Some(ReportFormat::Pdf),
            _ => None,
        }
    }

    /// A comma-separated list of formats among `allowed`, each once, in the given order.
    pub fn parse_list(list: &str, allowed: &[ReportFormat]) -> Result<Vec<ReportFormat>> {
        let mut formats = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match ReportFormat::parse(entry).filter(|f| allowed.contains(f)) {
                Some(format) if formats.contains(&format) => {}
                Some(format) => formats.push(format),
                None => {
                    let names: Vec<&str> = allowed.iter().map(|f| f.name()).collect();
                    return Err(Error::Invalid(format!(
                        "unknown report format '{entry}' (use {})",
                        names.join(", ")
                    )));
                }
            }
        }
        if formats.is_empty() {
            return Err(Error::Invalid("no report format given".into()));
        }
        Ok(formats)
    }

    fn name(self) -> &'static str {
        match self {
            ReportFormat::Markdown => "md",
            other => other.extension(),
        }
    }

    /// The core's data format; `None` for the report's formats.
    pub(crate) fn export_format(self) -> Option<ExportFormat> {
        match self {
            ReportFormat::Json => Some(ExportFormat::Json),
            ReportFormat::Csv => Some(ExportFormat::Csv),
            ReportFormat::Markdown | ReportFormat::Pdf => None,
        }
    }

    /// The report crate's format: the stakeholder report as Markdown or PDF.
    pub(crate) fn report_format(self) -> Option<ragnosis_report::Format> {
        match self {
            ReportFormat::Markdown => Some(ragnosis_report::Format::Markdown),
            ReportFormat::Pdf => Some(ragnosis_report::Format::Pdf),
            ReportFormat::Json | ReportFormat::Csv => None,
        }
    }

    /// The file extension written, without the dot: "md", "json", "csv", "pdf".
    pub fn extension(self) -> &'static str {
        match self {
            ReportFormat::Markdown => "md",
            ReportFormat::Json => "json",
            ReportFormat::Csv => "csv",
            ReportFormat::Pdf => "pdf",
        }
    }
}

/// The files a write produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Exported {
    /// Every file written, the report's charts included, as displayable paths.
    pub paths: Vec<String>,
}

impl From<Vec<std::path::PathBuf>> for Exported {
    fn from(paths: Vec<std::path::PathBuf>) -> Self {
        Exported {
            paths: paths.iter().map(|p| p.display().to_string()).collect(),
        }
    }
}
