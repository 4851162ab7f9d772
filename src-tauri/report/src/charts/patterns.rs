//! Failure-pattern breakdown: one bar per pattern that fired, its length the number of
//! items, coloured by the stage it blames, in fix order (A first).

use plotters::style::RGBColor;
use ragnosis_core::analysis::diagnosis::{Diagnosis, Stage};

use super::{line, palette, rect, svg, text, title, Chart, Label};
use crate::Error;

const WIDTH: u32 = 760;
/// The file name of this chart beside a Markdown report.
pub const FILE: &str = "patterns.svg";
const ROW: i32 = 26;
const TOP: i32 = 40;
const LABEL_RIGHT: i32 = 250;
const PLOT_LEFT: i32 = 262;
const PLOT_RIGHT: i32 = 600;

fn stage_color(stage: Stage) -> RGBColor {
    match stage {
        Stage::Retrieval | Stage::RetrievalToGeneration => RGBColor(0x15, 0x65, 0xC0),
        Stage::Grounding => RGBColor(0xC6, 0x28, 0x28),
        Stage::Generation | Stage::RetrievalAndGeneration => RGBColor(0xEF, 0x6C, 0x00),
    }
}

pub fn chart(diagnosis: &Diagnosis) -> Result<Option<Chart>, Error> {
    let patterns = &diagnosis.patterns;
    if patterns.is_empty() {
        return Ok(None);
    }
    let max = patterns.iter().map(|p| p.count).max().unwrap_or(1).max(1);
    let bottom = TOP + patterns.len() as i32 * ROW;
    let svg = svg(WIDTH, (bottom + 44) as u32, |area| {
        title(area, "Failure patterns: items affected")?;
        line(
            area,
            vec![(PLOT_LEFT, TOP - 4), (PLOT_LEFT, bottom)],
            palette::GUIDE,
            1,
        )?;
        for (i, p) in patterns.iter().enumerate() {
            let mid = TOP + i as i32 * ROW + ROW / 2;
            text(
                area,
                &format!("{} · {}", p.letter, p.name),
                (LABEL_RIGHT, mid),
                Label::new(11.5).right(),
            )?;
            let len =
                ((p.count as f64 / max as f64) * f64::from(PLOT_RIGHT - PLOT_LEFT)).round() as i32;
            rect(
                area,
                (PLOT_LEFT, mid - 7),
                (PLOT_LEFT + len.max(2), mid + 7),
                stage_color(p.stage),
            )?;
            let share = (p.share * 100.0).round();
            text(
                area,
                &format!("{} ({share:.0}%) · {}", p.count, p.stage.label()),
                (PLOT_LEFT + len.max(2) + 8, mid),
                Label::new(11.0),
            )?;
        }
        let mut x = PLOT_LEFT;
        let y = bottom + 24;
        for (stage, name) in [
            (Stage::Retrieval, "retrieval"),
            (Stage::Grounding, "grounding"),
            (Stage::Generation, "generation"),
        ] {
            rect(area, (x, y - 5), (x + 10, y + 5), stage_color(stage))?;
            text(
                area,
                name,
                (x + 15, y),
                Label::new(11.0).color(palette::MUTED),
            )?;
            x += 100;
        }
        Ok(())
    })?;
    Ok(Some(Chart {
        file: FILE,
        title: "Failure patterns".into(),
        caption: format!(
            "Items on which each failure pattern fired, out of {} items checked (an item can show several \
             patterns). Fix from the top: retrieval problems starve every later stage.",
            diagnosis.items_checked
        ),
        svg,
    }))
}
