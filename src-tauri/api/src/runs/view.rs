//! What the Evaluate, Results and Runs screens and `runs` receive: the metric catalogue
//! with its badges, a run's plan, a run with its totals and state, and its summary and
//! diagnosis flattened for tables. Mapped from core types; nothing is computed here.

use ragnosis_core::analysis::insights::RunInsights;
use ragnosis_core::analysis::{Diagnosis, ErrorGroup, RunSummary, TaxonomyCounts};
use ragnosis_core::judge::ProviderKind;
use ragnosis_core::judge_profile::JudgeProfile;
use ragnosis_core::run::{Preview, RunTotals};
use ragnosis_core::store::runs::{RunRow, RunStatus};
use ragnosis_core::view::report::MetricLine;
use ragnosis_core::view::TrustStatement;
use serde::Serialize;

/// The plan panel: what a run would do, before it starts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunPlan {
    /// Items, metrics, cells, expected judge calls and cost, batch and duration.
    #[serde(flatten)]
    pub preview: Preview,
    /// The built-in offline judge runs in-process: no cost, no network.
    pub offline: bool,
    /// The judge's profile (never its key).
    pub judge_profile: JudgeProfile,
}

impl RunPlan {
    /// The plan for `preview` judged by `judge_profile`; offline when that is the built-in
    /// judge.
    pub fn new(preview: Preview, judge_profile: JudgeProfile) -> Self {
        RunPlan {
            preview,
            offline: judge_profile.kind == ProviderKind::Offline,
            judge_profile,
        }
    }
}

/// A run as the history table and the Results header show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunInfo {
    /// The stored run: id, dataset, label, mode, metrics, judge, status, times.
    #[serde(flatten)]
    pub run: RunRow,
    /// The name of the dataset the run scored.
    pub dataset_name: String,
    /// Scored by the built-in offline judge: its scores carry an "offline judge" badge.
    pub offline: bool,
    /// Being executed by this app right now.
    pub active: bool,
    /// Not active, and not done or done with errors: it can be resumed (the app closed
    /// mid-run; a resume of a run done with errors retries its failed cells).
    pub resumable: bool,
    /// The status to show: "running" while a process evaluates it, "interrupted" for a
    /// run stored as running that no process evaluates (its process died), else the
    /// stored one.
    pub shown_status: String,
    /// Judge totals over every execution of the run.
    pub totals: RunTotals,
    /// Key scores from the stored summary, when there is one.
    pub retrieval_overall: Option<f64>,
    /// Mean of `ragvue.answer_overall`, when the summary has it.
    pub answer_overall: Option<f64>,
    /// A run in batch mode whose batches the provider has not all answered yet: where
    /// they stand, in a sentence ("1 batch at openai: 1200 of 2000 requests answered,
    /// in progress"); resume (or the running job) reads them back.
    pub waiting_batches: Option<String>,
}

impl RunInfo {
    /// A run as listed: `active` when this process evaluates it now, the overalls from
    /// `summary` when given; `waiting_batches` is left for the caller to fill.
    pub fn new(
        run: RunRow,
        dataset_name: String,
        active: bool,
        totals: RunTotals,
        summary: Option<&RunSummary>,
    ) -> Self {
        let mean = |id: &str| {
            summary
                .and_then(|s| s.metrics.get(id))
                .and_then(|m| m.stats.mean)
        };
        let shown_status = match (active, run.status) {
            (true, _) => "running",
            (false, RunStatus::Running) => "interrupted",
            (false, status) => status.as_str(),
        };
        RunInfo {
            shown_status: shown_status.to_string(),
            offline: run.judge == ragnosis_core::judge::open::OFFLINE,
            resumable: !active
                && (run.status != RunStatus::Done
                    || run
                        .message
                        .as_deref()
                        .is_some_and(|m| m.starts_with(ragnosis_core::run::DONE_WITH_ERRORS))),
            retrieval_overall: mean("ragvue.retrieval_overall"),
            answer_overall: mean("ragvue.answer_overall"),
            run,
            dataset_name,
            active,
            totals,
            waiting_batches: None,
        }
    }
}

/// A run's statistics and diagnosis, from `analysis`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SummaryView {
    /// Items in the run.
    pub items: u64,
    /// Errored results over all metrics.
    pub errors: u64,
    /// The report's metric lines, in the run's metric order, each with its insight.
    pub metrics: Vec<MetricLine>,
    /// Metrics scored over the whole dataset (citation macro scores), by metric id.
    pub dataset_metrics: std::collections::BTreeMap<String, f64>,
    /// Errored results grouped by metric and message, with the items they hit.
    pub error_groups: Vec<ErrorGroup>,
    /// Null when the run scored no judged RAGVUE metric, the scores the pattern rules read.
    /// Its stages and patterns are named by `ui/src/lib/bindings/labels.ts`.
    pub diagnosis: Option<Diagnosis>,
    /// RAGalyst's failure taxonomy counts, when answer correctness ran.
    pub taxonomy: Option<TaxonomyCounts>,
    /// How the insights were written (by the judge, or from templates offline), and the
    /// judge's action items; null before a finished run wrote them.
    pub advice: Option<RunInsights>,
}

impl SummaryView {
    /// `summary` beside the report's metric `lines`, with the run's `insights`.
    pub fn new(
        summary: RunSummary,
        metrics: Vec<MetricLine>,
        insights: Option<RunInsights>,
    ) -> Self {
        SummaryView {
            items: summary.items,
            errors: metrics.iter().map(|m| m.stats.errors).sum(),
            metrics,
            dataset_metrics: summary.dataset_metrics,
            error_groups: summary.errors,
            diagnosis: summary.diagnosis,
            taxonomy: summary.taxonomy,
            advice: insights,
        }
    }
}

/// Everything the Results screen shows above the case list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunDetail {
    /// The run as the history table shows it.
    pub run: RunInfo,
    /// Null only when the run has not evaluated anything yet.
    pub summary: Option<SummaryView>,
    /// The summary covers a run that has not finished (cancelled, failed, running).
    pub partial: bool,
    /// How far to trust the run, from what was measured.
    pub trust: TrustStatement,
    /// The user's own criteria the run scored: the version and text, how items did.
    pub criteria: Vec<ragnosis_core::view::CriterionReport>,
    /// The report's executive summary: headline, stage verdicts, the stage to fix first
    /// and the top actions, worded and formatted as the Markdown and PDF have them.
    pub report: ragnosis_report::model::Summary,
}
