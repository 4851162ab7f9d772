//! How far to trust a run: people's labels on its items (one at a time, or a file), how
//! far the run's scores agree with them, the source tool's own scores beside the run's,
//! and the run's calibration (re-judged under other judges, or repeated). Must not
//! change a run's results.
//!
//! Policy both shells follow: a labels file with no usable label for the run is refused
//! (`invalid`, nothing stored), its first reasons in the sentence.

use std::path::Path;

use ragnosis_core::trust::calibration::CALIBRATION;
use ragnosis_core::trust::{alignment, labels, prior};
use ragnosis_core::{store, Error, Result};
use serde::Serialize;

use crate::Ctx;

pub use ragnosis_core::store::human_labels::HumanLabel;
pub use ragnosis_core::trust::alignment::Alignment;
pub use ragnosis_core::trust::calibration::Calibration;
pub use ragnosis_core::trust::labels::LabelImport;
pub use ragnosis_core::trust::prior::PriorAgreement;

/// A score name the source tool gave, and on how many of the run's items.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PriorName {
    /// The score's name as the source file gave it ("faithfulness", "ragas.answer_relevancy").
    pub name: String,
    /// Items of the run that carry it.
    pub items: u64,
}

/// One person's label on one item of a run; `score` None removes it.
pub struct Label<'a> {
    /// The run whose item is labelled (the label itself belongs to the item's content).
    pub run_id: i64,
    /// The item's row id in the store (`item_of_run` finds it from the user's id).
    pub item_id: i64,
    /// One per-item metric, its id or bare name; a family or a dataset-level metric is refused.
    pub metric: &'a str,
    /// 0–1 (pass is 1, fail 0).
    pub score: Option<f64>,
    /// Why the person scored it so; blank is stored as none.
    pub note: Option<&'a str>,
    /// Who labelled: "window", "cli".
    pub source: &'a str,
}

/// The stored id of the item of `run_id` that `named` names: the dataset's own id or the
/// stored number.
pub fn item_of_run(ctx: &Ctx, run_id: i64, named: &str) -> Result<i64> {
    labels::item_of_run(&*ctx.store()?, run_id, named)
}

/// A label as typed: 0–1, or pass / fail.
pub fn parse_score(text: &str) -> Result<f64> {
    ragnosis_core::dataset::labels::parse_score(text).map_err(Error::Invalid)
}

/// Stores (or removes) the label, replacing the item's earlier one on that metric.
/// Returns the metric's id and every label the item has now.
pub fn label(ctx: &Ctx, label: &Label) -> Result<(String, Vec<HumanLabel>)> {
    let store = ctx.store()?;
    let metric = match label.score {
        Some(score) => labels::set(
            &store,
            label.run_id,
            label.item_id,
            label.metric,
            score,
            label.note,
            label.source,
        )?,
        None => {
            labels::clear(&store, label.run_id, label.item_id, label.metric)?;
            label.metric.to_string()
        }
    };
    let item = store::items::get(store.conn(), label.item_id)?;
    let labels = store::human_labels::for_item(store.conn(), &item.content_hash)?;
    Ok((metric, labels))
}

/// Imports a labels file (CSV or JSONL: item or question, metric, score, note) for the
/// items of a run; rows it cannot use are listed by line. `before_refusal` sees the
/// report of a file that gave no usable label before it is refused.
pub fn import_labels(
    ctx: &Ctx,
    run_id: i64,
    path: &Path,
    before_refusal: impl FnOnce(&LabelImport),
) -> Result<LabelImport> {
    let report = labels::import(&mut *ctx.store()?, run_id, path)?;
    if report.stored > 0 {
        return Ok(report);
    }
    before_refusal(&report);
    let reasons: Vec<String> = report
        .rejected
        .iter()
        .take(3)
        .map(|(line, reason)| format!("line {line}: {reason}"))
        .collect();
    let why = match reasons.is_empty() {
        true => String::new(),
        false => format!(" ({})", reasons.join("; ")),
    };
    Err(Error::Invalid(format!(
        "{} has no usable label for run {run_id}; nothing was stored{why}",
        path.display()
    )))
}

/// How far the run's scores agree with people's labels, and what to label next.
pub fn alignment(ctx: &Ctx, run_id: i64) -> Result<Alignment> {
    alignment::align(&*ctx.store()?, run_id)
}

/// The source tool's scores on a run's items: each name with how many items carry it.
pub fn prior_names(ctx: &Ctx, run_id: i64) -> Result<Vec<PriorName>> {
    Ok(prior::names(&*ctx.store()?, run_id)?
        .into_iter()
        .map(|(name, items)| PriorName { name, items })
        .collect())
}

/// How the source tool's score `theirs` agrees with the run's `metric`.
pub fn prior_agreement(
    ctx: &Ctx,
    run_id: i64,
    theirs: &str,
    metric: &str,
) -> Result<PriorAgreement> {
    prior::agreement(&*ctx.store()?, run_id, theirs.trim(), metric.trim())
}

/// The run's calibration, when it has one: agreement per metric and the items to
/// review, each judge's score side by side.
pub fn calibration(ctx: &Ctx, run_id: i64) -> Result<Option<Calibration>> {
    let store = ctx.store()?;
    store::runs::get(store.conn(), run_id)?;
    Ok(store::analyses::get(store.conn(), run_id, CALIBRATION)?
        .and_then(|json| serde_json::from_value(json).ok()))
}
