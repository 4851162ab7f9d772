//! Metric means as horizontal bars with their 95% confidence intervals as whiskers, one
//! row per metric, coloured by band. Lower-is-better metrics carry "↓" and are coloured
//! by the band of 1 − mean, so red always means bad.

use ragnosis_core::view::report::MetricLine;

use super::{
    band_color, band_legend, line, palette, rect, score, svg, text, title, whisker, Chart, Label,
};
use crate::Error;

const WIDTH: u32 = 760;
/// The file name of this chart beside a Markdown report.
pub const FILE: &str = "means.svg";
const ROW: i32 = 24;
const TOP: i32 = 40;
const LABEL_RIGHT: i32 = 318;
const PLOT_LEFT: i32 = 330;
const PLOT_RIGHT: i32 = 690;

fn x_of(value: f64) -> i32 {
    PLOT_LEFT + (value.clamp(0.0, 1.0) * f64::from(PLOT_RIGHT - PLOT_LEFT)).round() as i32
}

pub fn chart(metrics: &[MetricLine]) -> Result<Option<Chart>, Error> {
    if metrics.is_empty() {
        return Ok(None);
    }
    let rows = metrics.len() as i32;
    let plot_bottom = TOP + rows * ROW;
    let height = (plot_bottom + 62) as u32;
    let svg = svg(WIDTH, height, |area| {
        title(area, "Metric means with 95% confidence intervals")?;
        for (i, _) in metrics.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
            let y = TOP + i as i32 * ROW;
            rect(area, (8, y), (WIDTH as i32 - 8, y + ROW), palette::STRIPE)?;
        }
        for tick in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let x = x_of(tick);
            let guide = tick == 0.5 || tick == 0.75;
            line(
                area,
                vec![(x, TOP - 4), (x, plot_bottom)],
                if guide { palette::GUIDE } else { palette::GRID },
                1,
            )?;
            text(
                area,
                &format!("{tick}"),
                (x, plot_bottom + 12),
                Label::new(11.0).center().color(palette::MUTED),
            )?;
        }
        for (i, m) in metrics.iter().enumerate() {
            let mid = TOP + i as i32 * ROW + ROW / 2;
            let name = if m.stats.lower_is_better {
                format!("{} ↓", m.id)
            } else {
                m.id.clone()
            };
            text(area, &name, (LABEL_RIGHT, mid), Label::new(11.5).right())?;
            let Some(mean) = m.stats.mean else {
                text(
                    area,
                    "no scores",
                    (PLOT_LEFT + 6, mid),
                    Label::new(11.0).color(palette::MUTED),
                )?;
                continue;
            };
            rect(
                area,
                (x_of(0.0), mid - 6),
                (x_of(mean).max(x_of(0.0) + 1), mid + 6),
                band_color(m.band),
            )?;
            if let (Some(lo), Some(hi)) = (m.stats.ci95_low, m.stats.ci95_high) {
                whisker(area, x_of(lo), x_of(hi), mid)?;
            }
            text(area, &score(mean), (PLOT_RIGHT + 10, mid), Label::new(11.0))?;
        }
        band_legend(area, (PLOT_LEFT - 150, plot_bottom + 36))?;
        text(
            area,
            "↓ lower is better (coloured by 1 − mean)",
            (PLOT_LEFT - 150, plot_bottom + 52),
            Label::new(11.0).color(palette::MUTED),
        )
    })?;
    Ok(Some(Chart {
        file: FILE,
        title: "Metric means with 95% confidence intervals".into(),
        caption: "Bars show each metric's mean over the items it scored; whiskers show the 95% confidence interval \
                  of that mean. Colours follow the bands: green good, amber needs attention, red critical."
            .into(),
        svg,
    }))
}
