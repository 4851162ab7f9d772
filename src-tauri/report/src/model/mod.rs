//! `Report`: the report as display text — every number formatted, every sentence
//! written — so the Markdown and the PDF print exactly the same words and figures.
//!
//! Owns: section content and number formatting. Does not escape (each renderer escapes
//! for its own syntax) and does not compute statistics (the core's `ReportView` has
//! them). Serialised to JSON for the typst template.

mod format;
mod sections;

use ragnosis_core::analysis::stages::Band;
use ragnosis_core::view::{Detail, ReportView};
use serde::Serialize;

use crate::charts::Chart;
pub use format::{percent, score, score_or_dash};
pub use sections::{capped, TEXT_LIMIT};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    pub label: String,
    pub value: String,
}

fn field(label: &str, value: impl Into<String>) -> Field {
    Field {
        label: label.to_string(),
        value: value.into(),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StageRow {
    pub stage: String,
    pub question: String,
    pub score: String,
    pub band: String,
    /// good | attention | critical | neutral — for colours.
    pub band_key: String,
    pub metrics: String,
}

/// Agreement of the run's scores with people's labels, one row per labelled metric.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlignmentSection {
    pub rows: Vec<AlignmentRow>,
    pub note: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlignmentRow {
    pub metric: String,
    pub n: String,
    pub spearman: String,
    pub kendall: String,
    pub mae: String,
    pub pass_fail: String,
}

/// The executive summary, as every reader shows it: the report's first section, and the
/// top of the window's Results screen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ReportSummary"))]
pub struct Summary {
    pub headline: Vec<String>,
    /// How far to trust the run: sample, judge, stability, agreement with people, errors.
    pub trust: Vec<String>,
    pub stages: Vec<StageRow>,
    pub primary: String,
    pub top_actions: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricRow {
    pub metric: String,
    pub lower_is_better: bool,
    pub mean: String,
    pub ci: String,
    pub median: String,
    pub failing: String,
    pub scored: String,
    pub skipped: String,
    pub errors: String,
    pub meaning: String,
    pub band_key: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MetricsSection {
    pub rows: Vec<MetricRow>,
    pub dataset_metrics: Vec<Field>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChartRef {
    pub file: String,
    pub title: String,
    pub caption: String,
    /// Height over width of the drawing, so the PDF can cap a tall chart to fit a page.
    pub aspect: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    pub label: String,
    pub question: String,
    pub answer: String,
    pub scores: String,
    pub claims: Vec<String>,
    pub chunks: Vec<String>,
    pub aspects: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PatternBlock {
    pub heading: String,
    pub stage: String,
    pub count: String,
    pub description: String,
    pub cases: Vec<Case>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DiagnosisSection {
    pub intro: String,
    pub patterns: Vec<PatternBlock>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct InsightsSection {
    /// How the insights were written (judge, or templates offline).
    pub note: String,
    /// (metric id, insight) per weaker metric.
    pub metrics: Vec<Field>,
    pub strong: Option<String>,
    /// (category, "n of N") rows; empty when answer correctness did not run.
    pub taxonomy: Vec<Field>,
    pub taxonomy_items: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Action {
    pub rank: String,
    pub impact: String,
    pub title: String,
    pub whats_wrong: String,
    pub why: String,
    pub example: Option<String>,
    pub how_to_fix: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DeltaRow {
    pub metric: String,
    pub lower_is_better: bool,
    pub mean_a: String,
    pub mean_b: String,
    pub delta: String,
    pub ci: String,
    pub pairs: String,
    pub flag: String,
    /// green | amber | red | neutral — for colours.
    pub flag_key: String,
    pub to_fail: String,
    pub to_pass: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlipGroup {
    pub heading: String,
    pub items: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ComparisonSection {
    /// What the change did to the items, worse first (`ItemChanges::sentence`).
    pub verdict: String,
    /// The items that got worse, improved or changed their problem, each with its
    /// standing in A and in B; worse first.
    pub items: Vec<FlipGroup>,
    pub intro: Vec<String>,
    pub rows: Vec<DeltaRow>,
    pub flips: Vec<FlipGroup>,
    pub notes: Vec<String>,
    /// The change per metric, drawn beside the table rather than among run B's charts.
    pub chart: Option<ChartRef>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MethodologySection {
    pub definitions: Vec<Field>,
    pub stage_rule: String,
    pub judge: Vec<Field>,
    pub caveat: Option<String>,
    pub calibration: String,
    pub settings: Vec<Field>,
    pub accounting: Vec<Field>,
    pub errors: Vec<String>,
    pub privacy: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultRow {
    pub metric: String,
    pub score: String,
    pub status: String,
    pub explanation: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AppendixItem {
    pub heading: String,
    pub question: String,
    pub answer: String,
    pub ground_truth: Option<String>,
    pub contexts: Vec<String>,
    pub results: Vec<ResultRow>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Appendix {
    pub heading: String,
    pub intro: String,
    pub items: Vec<AppendixItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub title: String,
    pub kind: String,
    pub generated_at: String,
    pub cover: Vec<Field>,
    pub summary: Summary,
    pub metrics: MetricsSection,
    pub charts: Vec<ChartRef>,
    pub diagnosis: DiagnosisSection,
    pub insights: Option<InsightsSection>,
    pub alignment: Option<AlignmentSection>,
    pub actions: Vec<Action>,
    pub comparison: Option<ComparisonSection>,
    pub methodology: MethodologySection,
    /// The worst items in full; only in a full report.
    pub appendix: Option<Appendix>,
}

impl Report {
    /// The report of `view`, with `charts` (from `charts::for_report`) listed in order.
    pub fn build(view: &ReportView, charts: &[Chart]) -> Report {
        let full = view.detail == Detail::Full;
        Report {
            title: view.title.clone(),
            kind: if view.comparison.is_some() {
                "Ragnosis comparison report"
            } else {
                "Ragnosis evaluation report"
            }
            .into(),
            generated_at: view.generated_at.clone(),
            cover: cover(view),
            summary: summary(view),
            metrics: metrics(view),
            charts: charts
                .iter()
                .filter(|c| c.file != crate::charts::deltas::FILE)
                .map(chart_ref)
                .collect(),
            diagnosis: sections::diagnosis(view),
            insights: full.then(|| sections::insights(view)).flatten(),
            alignment: sections::alignment(view),
            actions: sections::actions(view),
            comparison: sections::comparison(view).map(|section| ComparisonSection {
                chart: charts
                    .iter()
                    .find(|c| c.file == crate::charts::deltas::FILE)
                    .map(chart_ref),
                ..section
            }),
            methodology: sections::methodology(view),
            appendix: full.then(|| sections::appendix(view)),
        }
    }
}

fn chart_ref(c: &Chart) -> ChartRef {
    ChartRef {
        file: c.file.to_string(),
        title: c.title.clone(),
        caption: c.caption.clone(),
        aspect: c.aspect(),
    }
}

fn cover(view: &ReportView) -> Vec<Field> {
    let run = &view.run.run;
    let mut fields = vec![field(
        "Dataset",
        format!(
            "{} ({} items)",
            view.run.dataset.name, view.run.dataset.item_count
        ),
    )];
    fields.push(field(
        "Run",
        format!(
            "#{}{}",
            run.id,
            run.label
                .as_ref()
                .map(|l| format!(" — {l}"))
                .unwrap_or_default()
        ),
    ));
    if let Some(version) = &run.version {
        fields.push(field("Pipeline version", version.clone()));
    }
    if let Some(c) = &view.comparison {
        fields.push(field(
            "Compared with",
            format!("{} on {}", c.a.title, c.a.dataset),
        ));
    }
    if !view.generated_at.is_empty() {
        fields.push(field("Report date", view.generated_at.clone()));
    }
    fields.push(field(
        "Evaluated",
        match (&run.started_at, &run.finished_at) {
            (Some(s), Some(f)) => format!("{} to {}", minute(s), minute(f)),
            (Some(s), None) => format!(
                "started {}, not finished ({})",
                minute(s),
                run.status.as_str()
            ),
            _ => format!("not started ({})", run.status.as_str()),
        },
    ));
    fields.push(field("Judge", sections::judge_name(view)));
    fields.push(field("Mode", run.mode.clone()));
    fields.push(field("Items evaluated", run.item_count.to_string()));
    // Selected metrics that scored nothing and failed nowhere did not apply to the data;
    // the cover counts what was measured.
    let measured = view
        .metrics
        .iter()
        .filter(|m| m.stats.n > 0 || m.stats.errors > 0)
        .count();
    fields.push(field(
        "Metrics",
        if measured == run.metrics.len() {
            measured.to_string()
        } else {
            format!(
                "{measured} measured ({} selected; the rest did not apply to the data)",
                run.metrics.len()
            )
        },
    ));
    if let Some(notes) = &run.notes {
        fields.push(field("Notes", notes.clone()));
    }
    fields
}

pub(crate) fn band_key(band: Option<Band>) -> &'static str {
    match band {
        Some(Band::Good) => "good",
        Some(Band::NeedsAttention) => "attention",
        Some(Band::Critical) => "critical",
        None => "neutral",
    }
}

pub fn summary(view: &ReportView) -> Summary {
    let stages = view
        .stages
        .iter()
        .map(|s| StageRow {
            stage: capitalised(s.stage.label()),
            question: s.stage.question().to_string(),
            score: score_or_dash(s.score),
            band: s
                .band
                .map(|b| b.label().to_string())
                .unwrap_or_else(|| "no metric of this stage was run".into()),
            band_key: band_key(s.band).into(),
            metrics: if s.metrics.is_empty() {
                "–".into()
            } else {
                s.metrics.join(", ")
            },
        })
        .collect();
    let primary = match &view.primary_stage {
        Some(p) => format!("{} — {}.", capitalised(&p.stage), p.basis),
        None => "None: no stage is below the good band.".into(),
    };
    let top_actions = sections::actions(view)
        .into_iter()
        .filter(|a| a.impact != "Note")
        .take(3)
        .map(|a| format!("{} — {}", a.impact, a.title))
        .collect();
    Summary {
        headline: view.headline.clone(),
        trust: view.trust.sentences.clone(),
        stages,
        primary,
        top_actions,
    }
}

fn metrics(view: &ReportView) -> MetricsSection {
    let shown = shown_metrics(view);
    let rows = view
        .metrics
        .iter()
        .filter(|m| shown.contains(&m.id))
        .map(|m| {
            let s = &m.stats;
            MetricRow {
                metric: m.id.clone(),
                lower_is_better: s.lower_is_better,
                mean: score_or_dash(s.mean),
                ci: match (s.ci95_low, s.ci95_high) {
                    (Some(lo), Some(hi)) => format!("{}–{}", score(lo), score(hi)),
                    _ => "–".into(),
                },
                median: score_or_dash(s.median),
                failing: s.share_failing.map(percent).unwrap_or_else(|| "–".into()),
                scored: s.n.to_string(),
                skipped: s.skipped.to_string(),
                errors: s.errors.to_string(),
                meaning: m.description.clone(),
                band_key: band_key(m.band).into(),
            }
        })
        .collect();
    let dataset_metrics = view
        .run
        .summary
        .dataset_metrics
        .iter()
        .map(|(id, v)| field(id, score(*v)))
        .collect();
    let mut notes = vec![
        "Mean, median and % failing are over the items a metric scored; errors and skipped items are counted \
         beside them, never averaged in as 0. An item fails below 0.5 (above 0.5 for ↓ metrics). The 95% CI is \
         Student's t interval of the mean."
            .to_string(),
    ];
    if view.metrics.iter().any(|m| m.stats.lower_is_better) {
        notes.push("↓ marks a lower-is-better metric: 0 is the best score.".into());
    }
    // How the items did on each of the user's own criteria, against its own threshold.
    notes.extend(view.criteria.iter().map(|c| c.insight.clone()));
    let hidden = view.metrics.len().saturating_sub(shown.len());
    if hidden > 0 {
        notes.push(format!(
            "The {} headline metrics are shown; {hidden} more were measured. The full report (ragnosis report RUN \
             --detail full) lists every metric, every chart, the insights and the worst items in full.",
            shown.len()
        ));
    }
    MetricsSection {
        rows,
        dataset_metrics,
        notes,
    }
}

/// The metrics the report's table and definitions show: the headline ones in a short
/// report, all in a full one.
pub fn shown_metrics(view: &ReportView) -> Vec<String> {
    match view.detail {
        Detail::Full => view.metrics.iter().map(|m| m.id.clone()).collect(),
        Detail::Short => view.headline_metric_ids(),
    }
}

/// A stored RFC 3339 UTC timestamp to the minute: `2025-06-01 12:04 UTC`; anything
/// else is shown as stored.
fn minute(timestamp: &str) -> String {
    let t = timestamp.as_bytes();
    if t.len() >= 16 && t[10] == b'T' && timestamp.ends_with('Z') {
        format!("{} {} UTC", &timestamp[..10], &timestamp[11..16])
    } else {
        timestamp.to_string()
    }
}

fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}
