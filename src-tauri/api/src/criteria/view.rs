//! What Settings → Your criteria exchanges with the shell: a stored criterion with the
//! words a list shows, what saving did, and a trial of a draft on a dataset's first
//! items. Mapped from core types; nothing is computed here.

use ragnosis_core::criteria::{self, Definition};
use ragnosis_core::metrics::Status;
use ragnosis_core::run::criteria::{Trial, TrialItem};
use ragnosis_core::store::criteria::{Saved, StoredCriterion};
use serde::Serialize;

/// A criterion as the editor lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionInfo {
    /// The version shown (the latest), its definition, when it was saved and removed.
    #[serde(flatten)]
    pub stored: StoredCriterion,
    /// `criteria.<name>`.
    pub metric: String,
    /// "passes at 4 or more on 1–5", "pass/fail".
    pub pass_rule: String,
    /// "judged; reads question, answer" or "no judge: the answer matches /…/", then
    /// "; only where the question matches /…/" for a criterion scoped by its question.
    pub how: String,
    /// Whether a language model must judge it (the offline judge leaves it unmeasured).
    pub needs_judge: bool,
}

impl From<StoredCriterion> for CriterionInfo {
    fn from(c: StoredCriterion) -> Self {
        let d = &c.definition;
        let mut how = match &d.check {
            Some(check) => format!("no judge: {}", criteria::check::describe(check)),
            None => format!("judged; reads {}", d.reads_text()),
        };
        if let Some(scope) = d.scope() {
            how = format!("{how}; {scope}");
        }
        CriterionInfo {
            metric: d.metric_id(),
            pass_rule: d.pass_rule(),
            how,
            needs_judge: d.needs_judge(),
            stored: c,
        }
    }
}

/// What saving a criterion did, and the criterion as stored now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SavedCriterion {
    /// Whether saving created the criterion, added a version or changed nothing.
    pub saved: Saved,
    /// The criterion's latest version after the save.
    pub criterion: CriterionInfo,
}

/// One item of a trial, as the editor's table shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrialRow {
    /// The item's row id in the store.
    pub item_id: i64,
    /// The item's question in full.
    pub question: String,
    /// The item's answer in full, when it has one.
    pub answer: Option<String>,
    /// ok, skipped or error.
    pub status: String,
    /// The score on the criterion's own scale ("4" of 1–5, "pass"), when scored.
    pub score: Option<String>,
    /// The score on 0–1, when scored.
    pub normalised: Option<f64>,
    /// The score reaches the criterion's pass rule; null when not scored.
    pub passed: Option<bool>,
    /// The judge's reasoning, what the check found, or why it was not scored.
    pub explanation: String,
}

/// A draft criterion tried on a dataset's first items; nothing was stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionTrial {
    /// The judge the trial used, as the request named it.
    pub judge: String,
    /// One row per item tried (the dataset's first three), in dataset order.
    pub rows: Vec<TrialRow>,
    /// Judge calls made (cache hits not counted).
    pub calls: u64,
    /// Verdicts read from the judge's cache instead of asked again.
    pub cache_hits: u64,
    /// What the calls cost, in US dollars.
    pub cost_usd: f64,
}

impl CriterionTrial {
    /// The trial's table: each item's score shown on the criterion's own scale.
    pub fn new(judge: String, def: &Definition, trial: Trial) -> Self {
        CriterionTrial {
            judge,
            rows: trial.items.into_iter().map(|t| row(def, t)).collect(),
            calls: trial.calls,
            cache_hits: trial.cache_hits,
            cost_usd: trial.cost_usd,
        }
    }
}

fn row(def: &Definition, t: TrialItem) -> TrialRow {
    let raw = t
        .result
        .details
        .get("raw_score")
        .and_then(serde_json::Value::as_f64);
    TrialRow {
        item_id: t.item_id,
        question: t.question,
        answer: t.answer,
        status: t.result.status.as_str().to_string(),
        score: raw
            .filter(|_| t.result.status == Status::Ok)
            .map(|r| def.scale.show(r)),
        normalised: t.result.score,
        passed: t.passed,
        explanation: t.result.explanation,
    }
}
