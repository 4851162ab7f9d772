//! RAGalyst's failure taxonomy: one bar per category, its length the number of
//! low-correctness items it applies to, in the taxonomy's order (retrieval and RAG
//! setup first, then the model's own failures).

use plotters::style::RGBColor;
use ragnosis_core::analysis::TaxonomyCounts;

use super::{line, palette, rect, svg, text, title, Chart, Label};
use crate::Error;

const WIDTH: u32 = 760;
const ROW: i32 = 24;
const TOP: i32 = 40;
const LABEL_RIGHT: i32 = 230;
const PLOT_LEFT: i32 = 242;
const PLOT_RIGHT: i32 = 640;

/// The retrieval/RAG group is blue, the model group red, "other" and the judge-free
/// ranking check grey.
fn group_color(category: &str) -> RGBColor {
    match category {
        "not_extracted" | "wrong_format" | "under_specificity" | "over_specificity" => {
            RGBColor(0x15, 0x65, 0xC0)
        }
        "other" | "missed_top_ranked" => palette::NONE,
        _ => RGBColor(0xC6, 0x28, 0x28),
    }
}

pub fn chart(taxonomy: &TaxonomyCounts) -> Result<Option<Chart>, Error> {
    if taxonomy.items == 0 {
        return Ok(None);
    }
    let rows = &taxonomy.counts;
    let max = rows.iter().map(|(_, n)| *n).max().unwrap_or(1).max(1);
    let bottom = TOP + rows.len() as i32 * ROW;
    let svg = svg(WIDTH, (bottom + 20) as u32, |area| {
        title(area, "Failure taxonomy: low-correctness items per category")?;
        line(
            area,
            vec![(PLOT_LEFT, TOP - 4), (PLOT_LEFT, bottom)],
            palette::GUIDE,
            1,
        )?;
        for (i, (category, count)) in rows.iter().enumerate() {
            let mid = TOP + i as i32 * ROW + ROW / 2;
            text(
                area,
                &category.replace('_', " "),
                (LABEL_RIGHT, mid),
                Label::new(11.5).right(),
            )?;
            let len =
                ((*count as f64 / max as f64) * f64::from(PLOT_RIGHT - PLOT_LEFT)).round() as i32;
            if *count > 0 {
                rect(
                    area,
                    (PLOT_LEFT, mid - 7),
                    (PLOT_LEFT + len.max(2), mid + 7),
                    group_color(category),
                )?;
            }
            text(
                area,
                &count.to_string(),
                (PLOT_LEFT + len.max(0) + 8, mid),
                Label::new(11.0),
            )?;
        }
        Ok(())
    })?;
    Ok(Some(Chart {
        file: "taxonomy.svg",
        title: "Failure taxonomy".into(),
        caption: format!(
            "Of the {} items whose answer correctness was below 0.9, how many each failure category applies to \
             (an item can have several). Blue: retrieval and setup; red: the model; grey: other, and the \
             judge-free check that the gold passage was not retrieved.",
            taxonomy.items
        ),
        svg,
    }))
}
