//! A retriever comparison: for each retriever, Recall@K and MRR@K as horizontal bars with
//! their bootstrap 95% intervals as whiskers, one row per (retriever, figure). The two
//! figures keep one colour each so retrievers compare down the column.

use plotters::style::RGBColor;
use ragnosis_core::judge_check::Estimate;
use ragnosis_core::retrieval::RetrievalEval;

use super::{line, palette, rect, score, svg, text, title, whisker, Chart, Label};
use crate::Error;

const WIDTH: u32 = 760;
const ROW: i32 = 24;
const TOP: i32 = 40;
const LABEL_RIGHT: i32 = 258;
const PLOT_LEFT: i32 = 270;
const PLOT_RIGHT: i32 = 680;
const RECALL: RGBColor = RGBColor(0x1F, 0x5F, 0xA8);
const MRR: RGBColor = RGBColor(0x00, 0x89, 0x7B);

fn x_of(value: f64) -> i32 {
    PLOT_LEFT + (value.clamp(0.0, 1.0) * f64::from(PLOT_RIGHT - PLOT_LEFT)).round() as i32
}

/// The chart's rows: each retriever's Recall@K and then its MRR@K, labelled and in
/// their figure's colour.
fn figure_rows(eval: &RetrievalEval) -> Vec<(String, Option<Estimate>, RGBColor)> {
    let k = eval.k;
    eval.retrievers
        .iter()
        .flat_map(|r| {
            [
                (
                    format!("{} · Recall@{k}", r.retriever),
                    r.recall_at_k,
                    RECALL,
                ),
                (format!("{} · MRR@{k}", r.retriever), r.mrr_at_k, MRR),
            ]
        })
        .collect()
}

pub fn chart(eval: &RetrievalEval) -> Result<Chart, Error> {
    let k = eval.k;
    let rows = figure_rows(eval);
    let plot_bottom = TOP + rows.len() as i32 * ROW;
    let height = (plot_bottom + 40) as u32;
    let heading = format!(
        "Retrievers on {} questions over {} chunks (95% intervals)",
        eval.queries, eval.chunks
    );
    let svg = svg(WIDTH, height, |area| {
        title(area, &heading)?;
        // A faint band behind each retriever's pair of rows.
        for i in (0..rows.len()).step_by(4) {
            let y = TOP + (i as i32 + 2) * ROW;
            if (i as i32 + 2) < rows.len() as i32 {
                rect(
                    area,
                    (8, y),
                    (WIDTH as i32 - 8, y + 2 * ROW),
                    palette::STRIPE,
                )?;
            }
        }
        for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let x = x_of(tick);
            line(area, vec![(x, TOP - 4), (x, plot_bottom)], palette::GRID, 1)?;
            text(
                area,
                &format!("{tick}"),
                (x, plot_bottom + 12),
                Label::new(11.0).center().color(palette::MUTED),
            )?;
        }
        for (i, (name, figure, color)) in rows.iter().enumerate() {
            let mid = TOP + i as i32 * ROW + ROW / 2;
            text(area, name, (LABEL_RIGHT, mid), Label::new(11.5).right())?;
            let Some(e) = figure else {
                text(
                    area,
                    "not measured",
                    (PLOT_LEFT + 6, mid),
                    Label::new(11.0).color(palette::MUTED),
                )?;
                continue;
            };
            rect(
                area,
                (x_of(0.0), mid - 6),
                (x_of(e.value).max(x_of(0.0) + 1), mid + 6),
                *color,
            )?;
            whisker(area, x_of(e.ci_low), x_of(e.ci_high), mid)?;
            text(
                area,
                &score(e.value),
                (PLOT_RIGHT + 10, mid),
                Label::new(11.0),
            )?;
        }
        Ok(())
    })?;
    Ok(Chart {
        file: "retrievers.svg",
        title: heading.clone(),
        caption: format!(
            "Recall@{k}: share of questions with a gold chunk among the top {k}. MRR@{k}: mean of \
             1 / rank of the first gold chunk (0 beyond {k}). Whiskers: bootstrap 95% intervals."
        ),
        svg,
    })
}
