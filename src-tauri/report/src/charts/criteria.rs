//! The user's own criteria: one row per criterion, the share of scored items that pass
//! its own threshold as a bar coloured by band, with "7 of 10 pass" beside it; a
//! criterion the judge could not score says "not measured" instead of a bar. Shown in
//! short reports too: these are the questions the user chose to ask.

use ragnosis_core::analysis::stages::Band;
use ragnosis_core::view::CriterionReport;

use super::{band_color, band_legend, line, palette, rect, svg, text, title, Chart, Label};
use crate::Error;

const WIDTH: u32 = 760;
/// The file name of this chart beside a Markdown report.
pub const FILE: &str = "criteria.svg";
const ROW: i32 = 24;
const TOP: i32 = 40;
const LABEL_RIGHT: i32 = 268;
const PLOT_LEFT: i32 = 280;
const PLOT_RIGHT: i32 = 600;
const TITLE: &str = "Your criteria: share of items that pass";

fn x_of(value: f64) -> i32 {
    PLOT_LEFT + (value.clamp(0.0, 1.0) * f64::from(PLOT_RIGHT - PLOT_LEFT)).round() as i32
}

pub fn chart(criteria: &[CriterionReport]) -> Result<Option<Chart>, Error> {
    if criteria.is_empty() {
        return Ok(None);
    }
    let plot_bottom = TOP + criteria.len() as i32 * ROW;
    let svg = svg(WIDTH, (plot_bottom + 46) as u32, |area| {
        title(area, TITLE)?;
        for (i, _) in criteria.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
            let y = TOP + i as i32 * ROW;
            rect(area, (8, y), (WIDTH as i32 - 8, y + ROW), palette::STRIPE)?;
        }
        for tick in [0.0, 0.5, 0.75, 1.0] {
            let x = x_of(tick);
            let colour = if tick == 0.0 || tick == 1.0 {
                palette::GRID
            } else {
                palette::GUIDE
            };
            line(area, vec![(x, TOP - 4), (x, plot_bottom)], colour, 1)?;
            text(
                area,
                &format!("{:.0}%", tick * 100.0),
                (x, plot_bottom + 12),
                Label::new(11.0).center().color(palette::MUTED),
            )?;
        }
        for (i, c) in criteria.iter().enumerate() {
            let mid = TOP + i as i32 * ROW + ROW / 2;
            text(
                area,
                &format!("{} v{}", c.name, c.version),
                (LABEL_RIGHT, mid),
                Label::new(11.5).right(),
            )?;
            if c.scored == 0 {
                text(
                    area,
                    "not measured",
                    (PLOT_LEFT + 6, mid),
                    Label::new(11.0).color(palette::MUTED),
                )?;
                continue;
            }
            let share = c.passed as f64 / c.scored as f64;
            rect(
                area,
                (x_of(0.0), mid - 6),
                (x_of(share).max(x_of(0.0) + 1), mid + 6),
                band_color(Some(Band::of(share))),
            )?;
            text(
                area,
                &format!("{} of {} pass", c.passed, c.scored),
                (PLOT_RIGHT + 10, mid),
                Label::new(11.0),
            )?;
        }
        band_legend(area, (PLOT_LEFT - 150, plot_bottom + 32))
    })?;
    Ok(Some(Chart {
        file: FILE,
        title: TITLE.into(),
        caption: "Each bar is the share of the items a criterion scored that reach its own pass threshold; the \
                  methodology quotes each criterion's text and version. A criterion the judge could not score is \
                  marked not measured, never drawn as 0."
            .into(),
        svg,
    }))
}
