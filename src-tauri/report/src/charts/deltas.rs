//! Run comparison: per metric, the change B − A as a dot with its paired-bootstrap 95%
//! interval, on an axis centred on 0 with the regression threshold marked on both
//! sides. Colour is the flag: green no regression, amber possible, red regression.

use plotters::style::RGBColor;
use ragnosis_core::analysis::compare::{Comparison, Flag};

use super::{line, palette, rect, svg, text, title, Chart, Label};
use crate::Error;

const WIDTH: u32 = 760;
/// The file name of this chart beside a Markdown report.
pub const FILE: &str = "deltas.svg";
const ROW: i32 = 24;
const TOP: i32 = 44;
const LABEL_RIGHT: i32 = 318;
const PLOT_LEFT: i32 = 330;
const PLOT_RIGHT: i32 = 680;

pub fn flag_color(flag: Flag) -> RGBColor {
    match flag {
        Flag::Green => palette::GOOD,
        Flag::Amber => palette::ATTENTION,
        Flag::Red => palette::CRITICAL,
        Flag::NotCompared => palette::NONE,
    }
}

/// Half-width of the axis: covers every interval and the threshold, rounded up to 0.05.
fn range(comparison: &Comparison) -> f64 {
    let widest = comparison
        .metrics
        .iter()
        .flat_map(|m| [m.delta, m.ci95_low, m.ci95_high])
        .flatten()
        .map(f64::abs)
        .fold(comparison.threshold * 1.5, f64::max)
        .max(0.1);
    ((widest * 1.05) / 0.05).ceil() * 0.05
}

fn signed(value: f64) -> String {
    if value > 0.0 {
        format!("+{value:.3}")
    } else if value < 0.0 {
        format!("−{:.3}", -value)
    } else {
        "0.000".into()
    }
}

// long: one chart: scales, bars, labels and legend share the same drawing area and coordinates
pub fn chart(comparison: &Comparison) -> Result<Option<Chart>, Error> {
    // Only the metrics that moved on some item: forty rows of zeros squeezed the few
    // changes a reader looks for into half a page.
    let rows: Vec<_> = comparison
        .metrics
        .iter()
        .filter(|m| m.delta.is_some() && m.moved() > 0)
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let still = comparison.metrics.len() - rows.len();
    let r = range(comparison);
    let x_of = |v: f64| {
        let t = (v.clamp(-r, r) + r) / (2.0 * r);
        PLOT_LEFT + (t * f64::from(PLOT_RIGHT - PLOT_LEFT)).round() as i32
    };
    let bottom = TOP + rows.len() as i32 * ROW;
    let svg = svg(WIDTH, (bottom + 60) as u32, |area| {
        title(
            area,
            &format!(
                "Change from run {} to run {} (B − A) with 95% intervals",
                comparison.a.id, comparison.b.id
            ),
        )?;
        for (i, _) in rows.iter().enumerate().filter(|(i, _)| i % 2 == 1) {
            let y = TOP + i as i32 * ROW;
            rect(area, (8, y), (WIDTH as i32 - 8, y + ROW), palette::STRIPE)?;
        }
        for tick in [-r, -r / 2.0, 0.0, r / 2.0, r] {
            let x = x_of(tick);
            let color = if tick == 0.0 {
                palette::WHISKER
            } else {
                palette::GRID
            };
            line(area, vec![(x, TOP - 4), (x, bottom)], color, 1)?;
            text(
                area,
                &signed(tick),
                (x, bottom + 12),
                Label::new(11.0).center().color(palette::MUTED),
            )?;
        }
        for t in [-comparison.threshold, comparison.threshold] {
            let x = x_of(t);
            for y in (TOP..bottom).step_by(8) {
                line(
                    area,
                    vec![(x, y), (x, (y + 4).min(bottom))],
                    palette::GUIDE,
                    1,
                )?;
            }
        }
        for (i, m) in rows.iter().enumerate() {
            let mid = TOP + i as i32 * ROW + ROW / 2;
            let name = if m.lower_is_better {
                format!("{} ↓", m.metric)
            } else {
                m.metric.clone()
            };
            text(area, &name, (LABEL_RIGHT, mid), Label::new(11.5).right())?;
            let color = flag_color(m.flag);
            if let (Some(lo), Some(hi)) = (m.ci95_low, m.ci95_high) {
                let (x0, x1) = (x_of(lo), x_of(hi));
                line(area, vec![(x0, mid), (x1, mid)], color, 2)?;
                line(area, vec![(x0, mid - 5), (x0, mid + 5)], color, 2)?;
                line(area, vec![(x1, mid - 5), (x1, mid + 5)], color, 2)?;
            }
            let delta = m.delta.unwrap_or(0.0);
            let x = x_of(delta);
            rect(area, (x - 4, mid - 4), (x + 4, mid + 4), color)?;
            text(
                area,
                &signed(delta),
                (PLOT_RIGHT + 10, mid),
                Label::new(11.0),
            )?;
        }
        let y = bottom + 36;
        let mut x = PLOT_LEFT - 150;
        for flag in [Flag::Green, Flag::Amber, Flag::Red] {
            rect(area, (x, y - 5), (x + 10, y + 5), flag_color(flag))?;
            text(
                area,
                flag.label(),
                (x + 15, y),
                Label::new(11.0).color(palette::MUTED),
            )?;
            x += 30 + flag.label().len() as i32 * 6;
        }
        text(
            area,
            &format!(
                "dashed: ±{:.2} threshold · ↓ lower is better (a rise is worse)",
                comparison.threshold
            ),
            (PLOT_LEFT - 150, y + 16),
            Label::new(11.0).color(palette::MUTED),
        )
    })?;
    Ok(Some(Chart {
        file: FILE,
        title: "Change per metric".into(),
        caption: format!(
            "Dots show the mean change over items matched {} and scored in both runs; bars show the paired \
             bootstrap 95% interval ({} resamples). A metric is a regression (red) when it got worse by more than \
             {:.2} and the whole interval is on the worse side of 0.{}",
            comparison.matched_by.label(),
            comparison.resamples,
            comparison.threshold,
            match still {
                0 => String::new(),
                n => format!(" {n} metric(s) that moved on no item, or were scored in one run only, are not drawn."),
            }
        ),
        svg,
    }))
}
