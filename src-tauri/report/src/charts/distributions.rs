//! Score distributions as small multiples: one ten-bin histogram per metric, three per
//! row, bins coloured by the band they fall in. At most `MAX_PANELS` metrics; those that
//! speak for a pipeline stage come first.

use ragnosis_core::analysis::stages::Band;
use ragnosis_core::view::report::MetricLine;

use super::{band_color, line, palette, rect, svg, text, title, Chart, Label};
use crate::Error;

pub const MAX_PANELS: usize = 12;
const COLUMNS: usize = 3;
const PANEL_W: i32 = 248;
const PANEL_H: i32 = 150;
const TOP: i32 = 34;
const LEFT: i32 = 8;

pub fn chart(metrics: &[MetricLine]) -> Result<Option<Chart>, Error> {
    let shown = pick(metrics);
    if shown.is_empty() {
        return Ok(None);
    }
    let rows = shown.len().div_ceil(COLUMNS) as i32;
    let width = (LEFT * 2 + PANEL_W * COLUMNS as i32) as u32;
    let height = (TOP + rows * PANEL_H + 8) as u32;
    let svg = svg(width, height, |area| {
        title(area, "Score distributions (items per tenth of the scale)")?;
        for (i, m) in shown.iter().enumerate() {
            let x = LEFT + (i % COLUMNS) as i32 * PANEL_W;
            let y = TOP + (i / COLUMNS) as i32 * PANEL_H;
            panel(area, m, x, y)?;
        }
        Ok(())
    })?;
    let more = metrics
        .iter()
        .filter(|m| m.stats.n > 0)
        .count()
        .saturating_sub(shown.len());
    let mut caption =
        "Each panel counts the items whose score fell in each tenth of 0–1 (n = items scored). \
                       Bar colours follow the bands; for ↓ metrics low scores are the good ones."
            .to_string();
    if more > 0 {
        caption.push_str(&format!(" {more} further metrics are in the table only."));
    }
    Ok(Some(Chart {
        file: "distributions.svg",
        title: "Score distributions".into(),
        caption,
        svg,
    }))
}

/// Metrics with scores, stage metrics first, at most `MAX_PANELS`, in the run's order.
fn pick(metrics: &[MetricLine]) -> Vec<&MetricLine> {
    let mut indexed: Vec<(usize, &MetricLine)> = metrics
        .iter()
        .enumerate()
        .filter(|(_, m)| m.stats.n > 0)
        .collect();
    indexed.sort_by_key(|(i, m)| (m.stage.is_none(), *i));
    indexed.truncate(MAX_PANELS);
    indexed.sort_by_key(|(i, _)| *i);
    indexed.into_iter().map(|(_, m)| m).collect()
}

fn panel(area: &super::Area, m: &MetricLine, x: i32, y: i32) -> super::Drawn {
    let name = if m.stats.lower_is_better {
        format!("{} ↓", m.id)
    } else {
        m.id.clone()
    };
    text(area, &name, (x + 6, y + 12), Label::new(11.0).bold())?;
    text(
        area,
        &format!("n = {}", m.stats.n),
        (x + PANEL_W - 12, y + 28),
        Label::new(10.0).right().color(palette::MUTED),
    )?;
    let (left, right) = (x + 10, x + PANEL_W - 14);
    let (top, bottom) = (y + 40, y + PANEL_H - 30);
    let max = m.histogram.iter().copied().max().unwrap_or(0).max(1);
    let bins = m.histogram.len().max(1) as i32;
    let bin_w = (right - left) / bins;
    for (b, count) in m.histogram.iter().enumerate() {
        if *count == 0 {
            continue;
        }
        let centre = (b as f64 + 0.5) / f64::from(bins);
        let goodness = if m.stats.lower_is_better {
            1.0 - centre
        } else {
            centre
        };
        let h = ((*count as f64 / max as f64) * f64::from(bottom - top)).round() as i32;
        let x0 = left + b as i32 * bin_w;
        rect(
            area,
            (x0 + 1, bottom - h.max(1)),
            (x0 + bin_w - 1, bottom),
            band_color(Some(Band::of(goodness))),
        )?;
    }
    line(
        area,
        vec![(left, bottom), (left + bin_w * bins, bottom)],
        palette::GUIDE,
        1,
    )?;
    text(
        area,
        &format!("max {max}"),
        (x + 6, y + 28),
        Label::new(10.0).color(palette::MUTED),
    )?;
    for (tick, label) in [(0.0, "0"), (0.5, "0.5"), (1.0, "1")] {
        let tx = left + (tick * f64::from(bin_w * bins)).round() as i32;
        line(
            area,
            vec![(tx, bottom), (tx, bottom + 4)],
            palette::GUIDE,
            1,
        )?;
        text(
            area,
            label,
            (tx, bottom + 6),
            Label::new(10.0).center().top().color(palette::MUTED),
        )?;
    }
    Ok(())
}
