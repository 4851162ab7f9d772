//! The report as PDF, typeset by typst as a library.
//!
//! Owns: compiling the committed template (`assets/report/report.typ`, embedded at build
//! time) against the report data and charts in an in-memory world (`world`), and the
//! PDF export options. Data goes in as JSON and the template prints it as strings, so no
//! escaping is needed and none can be forgotten. Deterministic: no clock, no system
//! fonts, a fixed document identifier and no creation date in the PDF.

mod world;

use typst::diag::{SourceDiagnostic, Warned};
use typst::ecow::EcoVec;
use typst::foundations::Smart;
use typst::WorldExt;
use typst_layout::PagedDocument;
use typst_pdf::PdfOptions;

use crate::charts::Chart;
use crate::model::Report;
use crate::Error;
use world::ReportWorld;

/// The report template, committed beside the other assets.
pub const TEMPLATE: &str = include_str!("../../../../assets/report/report.typ");

/// A typeset report.
#[derive(Debug, Clone)]
pub struct Pdf {
    pub bytes: Vec<u8>,
    pub pages: usize,
    /// typst's warnings (e.g. a missing glyph), empty for a clean report.
    pub warnings: Vec<String>,
}

/// Typesets `report` with its `charts`. `ident` names the document stably across
/// renders (the PDF's identifier is derived from it).
pub fn render(report: &Report, charts: &[Chart], ident: &str) -> Result<Pdf, Error> {
    let data =
        serde_json::to_vec(report).map_err(|e| Error::Typeset(format!("report data: {e}")))?;
    let mut files = vec![("/data.json".to_string(), data)];
    files.extend(
        charts
            .iter()
            .map(|c| (format!("/charts/{}", c.file), c.svg.clone().into_bytes())),
    );
    let world = ReportWorld::new(TEMPLATE, files);
    let Warned { output, warnings } = typst::compile::<PagedDocument>(&world);
    let document = output.map_err(|errors| Error::Typeset(describe(&world, &errors)))?;
    let options = PdfOptions {
        ident: Smart::Custom(ident.to_string()),
        ..PdfOptions::default()
    };
    let bytes = typst_pdf::pdf(&document, &options)
        .map_err(|errors| Error::Typeset(describe(&world, &errors)))?;
    let pages = document.pages().len();
    // typst memoises across compilations; a report is compiled once, so drop it all.
    typst::comemo::evict(0);
    Ok(Pdf {
        bytes,
        pages,
        warnings: warnings.iter().map(|w| w.message.to_string()).collect(),
    })
}

/// typst's errors with the template line each points at, so a template bug is found
/// from the message alone.
fn describe(world: &ReportWorld, errors: &EcoVec<SourceDiagnostic>) -> String {
    errors
        .iter()
        .map(|e| match world.range(e.span) {
            Some(range) => {
                let line = TEMPLATE[..range.start.min(TEMPLATE.len())]
                    .matches('\n')
                    .count()
                    + 1;
                format!("{} (report.typ line {line})", e.message)
            }
            None => e.message.to_string(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}
