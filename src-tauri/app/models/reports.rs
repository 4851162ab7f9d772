//! The Reports screen: which formats a run can be exported to and what was written.

use ragnosis_core::export::ExportFormat;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    Markdown,
    Json,
    Csv,
    /// The stakeholder report typeset by the report crate (typst), with its charts.
    Pdf,
}

impl ReportFormat {
    /// The core's data format; `None` for the report's formats.
    pub fn export_format(self) -> Option<ExportFormat> {
        match self {
            ReportFormat::Json => Some(ExportFormat::Json),
            ReportFormat::Csv => Some(ExportFormat::Csv),
            ReportFormat::Markdown | ReportFormat::Pdf => None,
        }
    }

    /// The report crate's format: the stakeholder report as Markdown or PDF.
    pub fn report_format(self) -> Option<ragnosis_report::Format> {
        match self {
            ReportFormat::Markdown => Some(ragnosis_report::Format::Markdown),
            ReportFormat::Pdf => Some(ragnosis_report::Format::Pdf),
            ReportFormat::Json | ReportFormat::Csv => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match (self.export_format(), self.report_format()) {
            (Some(f), _) => f.extension(),
            (None, Some(f)) => f.extension(),
            (None, None) => "",
        }
    }
}

/// The files an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Exported {
    pub paths: Vec<String>,
}
