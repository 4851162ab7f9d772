//! `ReportView`: a stakeholder report's content — the `RunView` plus what a reader who
//! did not run the evaluation needs: stage verdicts, metric meanings and distributions,
//! the diagnosis with its evidence, an optional comparison, and the methodology.
//!
//! Owns: assembling that content and every sentence derived from data (headline,
//! privacy line, offline-judge caveat), so the Markdown, the PDF and the UI say the same
//! thing. Renderers only lay it out and escape it. Deterministic: the same run gives the
//! same view; the only clock is `ReportOptions::generated_at`, passed in.

use serde::{Deserialize, Serialize};

use super::evidence::{excerpt, Evidence};
use super::facts::RunFacts;
pub use super::facts::{host_of, JudgeFacts};
use super::methodology::{count, methodology};
pub use super::methodology::{Methodology, Setting, SkipNote};
pub use super::options::{Detail, ReportOptions, PATTERN_CASES};
use super::run::RunView;
use crate::analysis::compare::Comparison;
use crate::analysis::diagnosis::{
    actions, ActionItem, Diagnosis, MetricScore, PatternExample, PatternSummary,
};
use crate::analysis::stages::{self, Band, StageVerdict};
use crate::analysis::MetricStats;
use crate::catalogue::stage::PipelineStage;
use crate::error::Result;
use crate::metrics::{self, Scope};
use crate::store::Store;
use crate::text::{capitalise, join_words};

/// Characters of an answer quoted beside a pattern example.
const ANSWER_EXCERPT: usize = 320;
pub use crate::analysis::HISTOGRAM_BINS;

/// The metrics a short report shows, at most: one or two per pipeline stage.
pub const HEADLINE_METRICS: usize = 5;

/// Metrics that speak for a stage, in the order a short report prefers them.
const HEADLINE_ORDER: &[&str] = &[
    "ragvue.retrieval_relevance",
    "ragvue.strict_faithfulness",
    "ragvue.answer_completeness",
    "ragalyst.answer_correctness",
    "citation.strict_accuracy",
    "ragvue.answer_relevance",
    "ragvue.retrieval_coverage",
    "ragvue.answer_overall",
    "ragvue.retrieval_overall",
    "reference.token_f1",
];

/// One metric as the report's table and charts and the window's metric table show it,
/// in the run's metric order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricLine {
    /// The metric's id.
    pub id: String,
    /// What it measures, in one sentence.
    pub description: String,
    /// It asks the run's judge.
    pub judged: bool,
    /// The pipeline stage it speaks for, when it speaks for one.
    pub stage: Option<PipelineStage>,
    /// Band of the mean read higher-is-better; none without a mean.
    pub band: Option<Band>,
    /// Count, skips, errors, mean, spread, quartiles, failing share and the mean's 95% CI.
    #[serde(flatten)]
    pub stats: MetricStats,
    /// `ok` scores per tenth of [0, 1].
    pub histogram: Vec<u64>,
    /// Each distinct skip reason with the items it skipped, most frequent first.
    #[serde(default)]
    pub skip_reasons: Vec<(String, u64)>,
    /// The run's plain-language insight on this metric (means below 0.95), when written.
    #[serde(default)]
    pub insight: Option<String>,
}

/// An item shown as an example of a failure pattern.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CaseView {
    pub item_id: i64,
    pub label: String,
    pub question: String,
    pub answer_excerpt: Option<String>,
    /// The scores that made the pattern fire.
    pub scores: Vec<MetricScore>,
    pub evidence: Evidence,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PatternView {
    #[serde(flatten)]
    pub summary: PatternSummary,
    /// The `PATTERN_CASES` worst examples.
    pub cases: Vec<CaseView>,
}

/// The stage to fix first, and why that one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PrimaryStage {
    pub stage: String,
    pub basis: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReportView {
    pub generated_at: String,
    pub detail: Detail,
    pub title: String,
    pub run: RunView,
    pub metrics: Vec<MetricLine>,
    pub stages: Vec<StageVerdict>,
    pub primary_stage: Option<PrimaryStage>,
    /// The executive summary's opening sentences.
    pub headline: Vec<String>,
    pub patterns: Vec<PatternView>,
    pub comparison: Option<Comparison>,
    pub methodology: Methodology,
    /// The run's insights and judge-written action items, when it has them.
    pub insights: Option<crate::analysis::insights::RunInsights>,
    /// How far to trust the run, in plain sentences (`view::trust`).
    pub trust: super::TrustStatement,
    /// The run's agreement with people's labels (empty metrics when none).
    pub alignment: crate::trust::alignment::Alignment,
    /// The user's own criteria the run scored: version, text and how the items did.
    pub criteria: Vec<super::CriterionReport>,
}

impl ReportView {
    /// The run's action items: the diagnosis's, one per failure pattern, ranked. One
    /// list everywhere (terminal, reports, window); the insights' metric paragraphs
    /// explain scores and advise nothing of their own.
    pub fn actions(&self) -> &[ActionItem] {
        self.run
            .summary
            .diagnosis
            .as_ref()
            .map_or(&[], |d| d.actions.as_slice())
    }

    /// The ids of the metrics a short report shows: up to `HEADLINE_METRICS` scored
    /// metrics, stage by stage (`HEADLINE_ORDER`), then the most-scored others.
    pub fn headline_metric_ids(&self) -> Vec<String> {
        let scored: Vec<&MetricLine> = self
            .metrics
            .iter()
            .filter(|m| m.stats.mean.is_some())
            .collect();
        let mut ids: Vec<String> = HEADLINE_ORDER
            .iter()
            .filter(|id| scored.iter().any(|m| m.id == **id))
            .map(|id| id.to_string())
            .collect();
        let mut rest: Vec<&&MetricLine> = scored.iter().filter(|m| !ids.contains(&m.id)).collect();
        rest.sort_by_key(|m| (std::cmp::Reverse(m.stats.n), m.id.clone()));
        ids.extend(
            rest.into_iter()
                .filter(|m| !m.id.starts_with("criteria."))
                .map(|m| m.id.clone()),
        );
        ids.truncate(HEADLINE_METRICS);
        // The user's own criteria are theirs to read first: always shown.
        ids.extend(
            scored
                .iter()
                .filter(|m| m.id.starts_with("criteria."))
                .map(|m| m.id.clone()),
        );
        ids
    }

    /// The report of run `run_id`: its facts read (`RunFacts::load`), then built.
    pub fn load(store: &Store, run_id: i64, options: &ReportOptions) -> Result<ReportView> {
        Self::build(RunFacts::load(store, run_id, options)?, options)
    }

    /// The report of a run from its facts; reads nothing.
    pub fn build(facts: RunFacts, options: &ReportOptions) -> Result<ReportView> {
        let metrics = metric_lines(&facts);
        let stages = stages::verdicts(&facts.summary, &facts.run.metrics);
        let diagnosis = facts.summary.diagnosis.as_ref();
        let primary_stage = primary_stage(diagnosis, &stages);
        let clean = diagnosis.filter(|d| d.is_clean()).map(|d| d.items_checked);
        let verdict = diagnosis.and_then(crate::analysis::diagnosis::verdict);
        let headline = headline(
            verdict,
            &stages,
            primary_stage.as_ref(),
            clean,
            facts.comparison.as_ref(),
        );
        let patterns = pattern_views(&facts);
        let methodology = methodology(&facts)?;
        let trust = super::trust::statement(&facts);
        let criteria = super::criteria::build(&facts)?;
        let name = facts.run.name();
        let title = match &facts.comparison {
            Some(c) => format!("{} compared with {}", name, c.a.title),
            None => name,
        };
        let RunFacts {
            run,
            dataset,
            summary,
            pipeline,
            items,
            worst,
            insights,
            alignment,
            comparison,
            ..
        } = facts;
        let worst = worst
            .iter()
            .filter_map(|id| items.get(id).cloned())
            .collect();
        Ok(ReportView {
            generated_at: options.generated_at.clone(),
            detail: options.detail,
            title,
            run: RunView {
                run,
                dataset,
                summary,
                worst,
                pipeline,
            },
            metrics,
            stages,
            primary_stage,
            headline,
            patterns,
            comparison,
            methodology,
            insights,
            trust,
            alignment,
            criteria,
        })
    }
}

/// The user's id of an item, or its 1-based position in the file.
pub fn item_label(external_id: Option<&str>, ordinal: i64) -> String {
    external_id
        .map(str::to_string)
        .unwrap_or_else(|| format!("#{}", ordinal + 1))
}

fn metric_lines(facts: &RunFacts) -> Vec<MetricLine> {
    let mut lines = Vec::new();
    for id in &facts.run.metrics {
        let (Some(spec), Some(summary)) = (metrics::find(id), facts.summary.metrics.get(id)) else {
            continue;
        };
        if spec.scope != Scope::Item {
            continue;
        }
        let band = summary
            .stats
            .mean
            .filter(|_| !metrics::catalogue::is_descriptive(id))
            .map(|m| Band::of(if spec.lower_is_better { 1.0 - m } else { m }));
        lines.push(MetricLine {
            id: id.clone(),
            description: spec.description.to_string(),
            judged: spec.judge,
            stage: metrics::stage::stage_of(id),
            band,
            stats: summary.stats.clone(),
            histogram: summary.histogram.clone(),
            skip_reasons: summary.skip_reasons.clone(),
            insight: facts.insights.as_ref().and_then(|i| {
                i.insights
                    .iter()
                    .find(|x| &x.metric == id)
                    .map(|x| x.text.clone())
            }),
        });
    }
    lines
}

/// The diagnosis's primary stage when patterns were checked, else the lowest stage
/// below "good". A diagnosis in which no pattern fired gives no stage advice: the
/// action list then says no systematic failure was found, and a "fix X first" beside
/// it would contradict it.
fn primary_stage(diagnosis: Option<&Diagnosis>, stages: &[StageVerdict]) -> Option<PrimaryStage> {
    if let Some(d) = diagnosis {
        if d.is_clean() {
            return None;
        }
        // The pattern that made the stage primary: the first-ranked one (diagnosis rule).
        let top = d.primary_stage.and_then(|_| {
            d.patterns
                .iter()
                .min_by_key(|p| actions::priority(p, d.items_checked))
        });
        if let Some(top) = top {
            let impact = actions::impact(top.pattern, top.count, d.items_checked);
            return Some(PrimaryStage {
                stage: top.stage.label().to_string(),
                basis: format!(
                    "failure pattern {} ({}) on {} of {} checked items: {} impact, and the earliest stage to fix \
                     among the patterns that matter most",
                    top.letter,
                    top.name,
                    top.count,
                    d.items_checked,
                    impact.as_str()
                ),
            });
        }
    }
    let weakest = stages
        .iter()
        .filter_map(|s| s.score.map(|score| (s.stage, score)))
        .filter(|(_, score)| *score < 0.75)
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let why = if diagnosis.is_some() {
        "no item could be checked for failure patterns"
    } else {
        "failure patterns were not checked because the run has no judged RAGVUE metric"
    };
    Some(PrimaryStage {
        stage: weakest.0.label().to_string(),
        basis: format!("lowest stage score ({:.2}); {why}", weakest.1),
    })
}

/// The executive summary's opening: the diagnosis's verdict first when the run was
/// diagnosed; then, for a run without failure patterns, the stage verdicts. A run with
/// failure patterns says what to fix in the verdict alone: a line calling every stage
/// "good" beside "fix grounding first" contradicted it (stage scores are averages, the
/// patterns count answers; the stage table still shows the averages).
fn headline(
    diagnosed: Option<String>,
    stages: &[StageVerdict],
    primary: Option<&PrimaryStage>,
    clean: Option<u64>,
    comparison: Option<&Comparison>,
) -> Vec<String> {
    let mut lines: Vec<String> = diagnosed.into_iter().collect();
    let diagnosed_failures = !lines.is_empty() && clean.is_none();
    if diagnosed_failures {
        comparison_line(&mut lines, comparison);
        return lines;
    }
    let judged: Vec<String> = stages
        .iter()
        .filter_map(|s| {
            Some(format!(
                "{} {} ({:.2})",
                s.stage.label(),
                verdict(s.band?),
                s.score?
            ))
        })
        .collect();
    if judged.is_empty() {
        lines.push(
            "None of the run's metrics speaks for a pipeline stage, so there is no stage verdict."
                .to_string(),
        );
    } else {
        lines.push(format!("{}.", capitalise(&join_words(&judged))));
    }
    match (primary, clean) {
        (Some(p), _) => lines.push(format!("Fix {} first: {}.", p.stage, p.basis)),
        (None, Some(checked)) => lines.push(format!(
            "No failure pattern fired on the {checked} checked items, so no stage needs a systematic fix."
        )),
        (None, None) => {
            lines.push("No stage is failing: every stage scored is in the good band.".to_string())
        }
    }
    comparison_line(&mut lines, comparison);
    lines
}

fn comparison_line(lines: &mut Vec<String>, comparison: Option<&Comparison>) {
    if let Some(c) = comparison {
        let red: Vec<&str> = c.regressions().map(|m| m.metric.as_str()).collect();
        lines.push(if red.is_empty() {
            format!(
                "Compared with {}, no metric regressed beyond {:.2}.",
                c.a.title, c.threshold
            )
        } else {
            format!(
                "Compared with {}, {} regressed: {}.",
                c.a.title,
                count(red.len(), "metric"),
                red.join(", ")
            )
        });
    }
}

/// A band as a verb phrase: "is good", "needs attention", "is critical".
fn verdict(band: Band) -> &'static str {
    match band {
        Band::Good => "is good",
        Band::NeedsAttention => "needs attention",
        Band::Critical => "is critical",
    }
}

fn pattern_views(facts: &RunFacts) -> Vec<PatternView> {
    let Some(diagnosis) = &facts.summary.diagnosis else {
        return Vec::new();
    };
    let case = |pattern: &PatternSummary, example: &PatternExample| -> Option<CaseView> {
        let shown = facts.items.get(&example.item_id)?;
        Some(CaseView {
            item_id: example.item_id,
            label: item_label(shown.item.id.as_deref(), shown.ordinal),
            answer_excerpt: shown
                .item
                .answer
                .as_deref()
                .map(|a| excerpt(a, ANSWER_EXCERPT)),
            evidence: Evidence::from_results(&shown.item, &shown.results).focus(pattern.pattern),
            question: shown.item.question.clone(),
            scores: example.scores.clone(),
        })
    };
    diagnosis
        .patterns
        .iter()
        .map(|pattern| PatternView {
            summary: pattern.clone(),
            cases: pattern
                .examples
                .iter()
                .take(PATTERN_CASES)
                .filter_map(|example| case(pattern, example))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_of_drops_scheme_path_and_credentials() {
        assert_eq!(host_of("https://api.openai.com/v1"), "api.openai.com");
        assert_eq!(
            host_of("http://user:secret@LOCALHOST:11434/v1"),
            "localhost:11434"
        );
        assert_eq!(host_of(""), "");
    }

    #[test]
    fn headline_lists_stages_and_the_primary_one() {
        let stages = vec![
            StageVerdict {
                stage: PipelineStage::Retrieval,
                score: Some(0.8),
                band: Some(Band::Good),
                metrics: vec![],
            },
            StageVerdict {
                stage: PipelineStage::Grounding,
                score: Some(0.4),
                band: Some(Band::Critical),
                metrics: vec![],
            },
            StageVerdict {
                stage: PipelineStage::Generation,
                score: None,
                band: None,
                metrics: vec![],
            },
        ];
        let primary = PrimaryStage {
            stage: "grounding".into(),
            basis: "lowest stage score (0.40)".into(),
        };
        let lines = headline(None, &stages, Some(&primary), None, None);
        assert_eq!(
            lines[0],
            "Retrieval is good (0.80) and grounding is critical (0.40)."
        );
        assert_eq!(lines[1], "Fix grounding first: lowest stage score (0.40).");
    }
}
