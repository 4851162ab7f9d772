//! The report's charts, drawn once with plotters as SVG and used by the Markdown (files
//! beside the `.md`), the PDF (virtual files in the typst world) and, later, the UI.
//!
//! Owns: chart selection, layout in pixels and the palette. Every chart is laid out by
//! hand on plotters' drawing area so that labels sit where a reader expects them and the
//! output is the same bytes for the same view. Text names a concrete font family
//! (`FONT`), never a generic one: typst resolves only named families in SVGs, and the
//! PDF bundles this font.

mod criteria;
pub mod deltas;
mod distributions;
mod means;
mod patterns;
pub mod retrieval;
mod taxonomy;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use ragnosis_core::analysis::stages::Band;
use ragnosis_core::view::{Detail, ReportView};

use crate::Error;

/// The font family every chart names. The PDF bundles it (typst-assets' Libertinus
/// Serif, the report's body face, with Latin, Greek and Cyrillic); a browser showing the
/// Markdown's SVGs uses it when installed and its default serif otherwise.
pub const FONT: &str = "Libertinus Serif";

/// One chart: its file name (beside the Markdown, and in the typst world), its title
/// and the SVG text. The window shows it as an image (`<img src="data:image/svg+xml;…">`),
/// never as markup in the page.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Chart {
    /// The file name it has beside a Markdown report ("deltas.svg").
    pub file: &'static str,
    /// The heading above the chart.
    pub title: String,
    /// One sentence under the chart saying how to read it.
    pub caption: String,
    /// The SVG document, as text.
    pub svg: String,
}

impl Chart {
    /// Height over width, read from the SVG's own size (1 when it states none).
    pub fn aspect(&self) -> f64 {
        let attribute = |name: &str| -> Option<f64> {
            let head = &self.svg[..self.svg.find('>')?];
            let at = head.find(&format!(" {name}=\""))? + name.len() + 3;
            head[at..].split('"').next()?.parse().ok()
        };
        match (attribute("width"), attribute("height")) {
            (Some(w), Some(h)) if w > 0.0 => h / w,
            _ => 1.0,
        }
    }
}

/// The charts a report shows, in reading order; charts with nothing to show are left
/// out (no pattern chart without a diagnosis, no delta chart without a comparison).
///
/// A short report keeps the failure patterns when the run was diagnosed (otherwise the
/// metric means), the user's own criteria and, in a comparison, the deltas.
pub fn for_report(view: &ReportView) -> Result<Vec<Chart>, Error> {
    let charts = all_charts(view)?;
    if view.detail == Detail::Full {
        return Ok(charts);
    }
    let overview = if charts.iter().any(|c| c.file == patterns::FILE) {
        patterns::FILE
    } else {
        means::FILE
    };
    Ok(charts
        .into_iter()
        .filter(|c| c.file == overview || c.file == deltas::FILE || c.file == criteria::FILE)
        .collect())
}

fn all_charts(view: &ReportView) -> Result<Vec<Chart>, Error> {
    let mut charts = Vec::new();
    if let Some(chart) = means::chart(&view.metrics)? {
        charts.push(chart);
    }
    if let Some(chart) = distributions::chart(&view.metrics)? {
        charts.push(chart);
    }
    if let Some(chart) = criteria::chart(&view.criteria)? {
        charts.push(chart);
    }
    if let Some(diagnosis) = &view.run.summary.diagnosis {
        if let Some(chart) = patterns::chart(diagnosis)? {
            charts.push(chart);
        }
    }
    if let Some(counts) = &view.run.summary.taxonomy {
        if let Some(chart) = taxonomy::chart(counts)? {
            charts.push(chart);
        }
    }
    if let Some(comparison) = &view.comparison {
        if let Some(chart) = deltas::chart(comparison)? {
            charts.push(chart);
        }
    }
    Ok(charts)
}

/// Colours: the three bands, neutral greys and the text colour.
pub mod palette {
    use plotters::style::RGBColor;

    pub const GOOD: RGBColor = RGBColor(0x2E, 0x7D, 0x32);
    pub const ATTENTION: RGBColor = RGBColor(0xE0, 0x9A, 0x00);
    pub const CRITICAL: RGBColor = RGBColor(0xC6, 0x28, 0x28);
    pub const NONE: RGBColor = RGBColor(0x9E, 0x9E, 0x9E);
    pub const TEXT: RGBColor = RGBColor(0x21, 0x21, 0x21);
    pub const MUTED: RGBColor = RGBColor(0x61, 0x61, 0x61);
    pub const GRID: RGBColor = RGBColor(0xE0, 0xE0, 0xE0);
    pub const GUIDE: RGBColor = RGBColor(0xA0, 0xA0, 0xA0);
    pub const STRIPE: RGBColor = RGBColor(0xF6, 0xF6, 0xF6);
    pub const WHISKER: RGBColor = RGBColor(0x30, 0x30, 0x30);
}

pub fn band_color(band: Option<Band>) -> RGBColor {
    match band {
        Some(Band::Good) => palette::GOOD,
        Some(Band::NeedsAttention) => palette::ATTENTION,
        Some(Band::Critical) => palette::CRITICAL,
        None => palette::NONE,
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), DrawingAreaErrorKind<std::io::Error>>;

/// Draws on a `width` × `height` white canvas and returns the SVG text.
fn svg(width: u32, height: u32, draw: impl FnOnce(&Area) -> Drawn) -> Result<String, Error> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(chart_error)?;
        draw(&root).map_err(chart_error)?;
        root.present().map_err(chart_error)?;
    }
    Ok(out)
}

fn chart_error(e: DrawingAreaErrorKind<std::io::Error>) -> Error {
    Error::Chart(e.to_string())
}

/// How a piece of text is placed: its size in pixels, weight and anchor.
#[derive(Clone, Copy)]
struct Label {
    size: f64,
    bold: bool,
    h: HPos,
    v: VPos,
    color: RGBColor,
}

impl Label {
    fn new(size: f64) -> Label {
        Label {
            size,
            bold: false,
            h: HPos::Left,
            v: VPos::Center,
            color: palette::TEXT,
        }
    }
    fn bold(mut self) -> Label {
        self.bold = true;
        self
    }
    fn right(mut self) -> Label {
        self.h = HPos::Right;
        self
    }
    fn center(mut self) -> Label {
        self.h = HPos::Center;
        self
    }
    fn top(mut self) -> Label {
        self.v = VPos::Top;
        self
    }
    fn color(mut self, color: RGBColor) -> Label {
        self.color = color;
        self
    }
}

fn text(area: &Area, content: &str, at: (i32, i32), label: Label) -> Drawn {
    // plotters writes `font-size = size / 1.24`; scale up so `size` is what the SVG says.
    let size = label.size * 1.24;
    let font: FontDesc = if label.bold {
        (FONT, size, FontStyle::Bold).into()
    } else {
        (FONT, size).into()
    };
    let style = TextStyle::from(font)
        .color(&label.color)
        .pos(Pos::new(label.h, label.v));
    area.draw(&Text::new(content.to_string(), at, style))
}

fn rect(area: &Area, from: (i32, i32), to: (i32, i32), color: RGBColor) -> Drawn {
    area.draw(&Rectangle::new([from, to], color.filled()))
}

fn line(area: &Area, points: Vec<(i32, i32)>, color: RGBColor, width: u32) -> Drawn {
    area.draw(&PathElement::new(points, color.stroke_width(width)))
}

/// A 95% interval from `x0` to `x1` on the row centred at `mid`: a line with end caps.
fn whisker(area: &Area, x0: i32, x1: i32, mid: i32) -> Drawn {
    line(area, vec![(x0, mid), (x1, mid)], palette::WHISKER, 2)?;
    for x in [x0, x1] {
        line(area, vec![(x, mid - 6), (x, mid + 6)], palette::WHISKER, 2)?;
    }
    Ok(())
}

/// The chart's title line at the top left.
fn title(area: &Area, content: &str) -> Drawn {
    text(area, content, (12, 16), Label::new(14.0).bold())
}

/// A score as the charts print it.
fn score(value: f64) -> String {
    format!("{value:.3}")
}

/// Legend swatches for the three bands, left to right from `at`.
fn band_legend(area: &Area, at: (i32, i32)) -> Drawn {
    let mut x = at.0;
    for (band, name) in [
        (Band::Good, "good ≥ 0.75"),
        (Band::NeedsAttention, "needs attention 0.50–0.74"),
        (Band::Critical, "critical < 0.50"),
    ] {
        rect(
            area,
            (x, at.1 - 5),
            (x + 10, at.1 + 5),
            band_color(Some(band)),
        )?;
        text(
            area,
            name,
            (x + 15, at.1),
            Label::new(11.0).color(palette::MUTED),
        )?;
        x += 30 + (name.chars().count() as i32) * 6;
    }
    Ok(())
}
