//! Scoring a user's own criteria on one item, beside the built-in metrics: a criterion
//! with a check is decided without a judge (`criteria::check`); one written in plain
//! words is one `Task::Criterion` call to the run's judge, through the same cache,
//! retries, limits and accounting as every other call, and its reasoning is kept as the
//! explanation. Under the offline judge such a criterion is skipped with the reason
//! "needs a language model judge", never scored.
//!
//! Also the editor's trial: a draft criterion on the first items of a dataset, with the
//! same code path, nothing stored.
//!
//! Owns: that routing, and the version each result was scored with. Must not: store.

use std::sync::Arc;

use serde::Serialize;

use super::asking::{Accounting, Asker};
use super::verdicts::judge_error;
use crate::criteria::{self, Definition, Versioned};
use crate::error::{Error, Result};
use crate::item::Item;
use crate::judge::{CallContext, Judge, Task, Verdict};
use crate::metrics::{self, MetricResult, MetricSpec, Status};
use crate::store::{self, Store};

/// What scoring an item's criteria produced.
#[derive(Debug, Default)]
pub(super) struct Scored {
    pub results: Vec<MetricResult>,
    pub accounting: Accounting,
    /// (metric id, prompt version) of each criterion a judge answered.
    pub versions: Vec<(String, String)>,
}

/// Scores `specs` (criteria metrics) on `item` with the definitions the run recorded.
pub(super) async fn evaluate(
    item: &Item,
    specs: &[&'static MetricSpec],
    defined: &[Versioned],
    judge: &dyn Judge,
    ctx: &CallContext,
) -> Scored {
    let mut scored = Scored::default();
    // Asked together, not one after another: the criteria are independent, and batch
    // mode's scout (`run::batch`) then finds all of an item's criteria in one round.
    let asked = crate::judge::join_all(
        specs
            .iter()
            .map(|spec| async move {
                let v = defined.iter().find(|v| v.definition.metric_id() == spec.id);
                match v {
                    Some(v) => one(item, v, judge, ctx).await,
                    None => (
                        MetricResult::error(
                            spec.id,
                            format!(
                                "the run recorded no definition of {}; plan the run again",
                                spec.id
                            ),
                        ),
                        None,
                    ),
                }
            })
            .collect(),
    )
    .await;
    for (spec, (result, spent)) in specs.iter().zip(asked) {
        if let Some((accounting, versions)) = spent {
            scored.accounting.add(&accounting);
            if let Some(version) = versions.into_iter().next() {
                scored.versions.push((spec.id.to_string(), version));
            }
        }
        scored.results.push(result);
    }
    scored
}

type Spent = (Accounting, std::collections::BTreeSet<String>);

/// One criterion on one item, and what asking the judge cost when it was asked.
async fn one(
    item: &Item,
    v: &Versioned,
    judge: &dyn Judge,
    ctx: &CallContext,
) -> (MetricResult, Option<Spent>) {
    let def = &v.definition;
    let id = def.metric_id();
    if !def.applies_to(&item.question) {
        return (
            MetricResult::skipped(&id, def.not_applicable_reason()),
            None,
        );
    }
    let missing = metrics::missing_fields(item, &def.needs());
    if !missing.is_empty() {
        return (
            MetricResult::skipped(&id, metrics::skip_reason(&missing)),
            None,
        );
    }
    if let Some(result) = criteria::check::run(def, v.version, item.answer.as_deref().unwrap_or(""))
    {
        return (result, None);
    }
    if judge.identity().is_offline() {
        return (
            MetricResult::skipped(&id, criteria::needs_language_model_reason()),
            None,
        );
    }
    let asker = Asker::new(judge, ctx);
    let verdict = asker.ask(Task::Criterion(Box::new(def.task(item)))).await;
    let result = match verdict {
        Ok(Verdict::Criterion(reply)) => match reply.score {
            Some(raw) => def.result(v.version, raw, &reply.reasoning),
            None => MetricResult::skipped(&id, reply.reasoning),
        },
        Ok(other) => MetricResult::error(
            &id,
            format!(
                "The judge could not score this item: it answered a {} task instead of the criterion",
                other.kind().as_str()
            ),
        ),
        Err(e) => judge_error(&id, &e),
    };
    (result, Some(asker.into_spent()))
}

/// The judge tasks scoring `defined` criteria on `item` would ask (planning): one per
/// criterion in plain words that applies to the item and whose fields it has.
pub(super) fn planned(
    item: &Item,
    specs: &[&'static MetricSpec],
    defined: &[Versioned],
) -> Vec<Task> {
    specs
        .iter()
        .filter_map(|spec| defined.iter().find(|v| v.definition.metric_id() == spec.id))
        .map(|v| &v.definition)
        .filter(|def| {
            def.needs_judge()
                && def.applies_to(&item.question)
                && metrics::missing_fields(item, &def.needs()).is_empty()
        })
        .map(|def| Task::Criterion(Box::new(def.task(item))))
        .collect()
}

/// The tasks `profile` would be asked: the offline judge is asked no criterion in plain
/// words (those are skipped without a call).
pub(super) fn askable(
    mut tasks: Vec<Task>,
    profile: &crate::judge_profile::JudgeProfile,
) -> Vec<Task> {
    if profile.kind == crate::judge::ProviderKind::Offline {
        tasks.retain(|t| !t.needs_language_model());
    }
    tasks
}

/// The metrics a run of `mode` selects: in manual mode the built-in metrics and
/// criteria `entries` name; in agentic mode every candidate and every stored criterion
/// (one the run's judge cannot score is then skipped on each item with the reason).
pub(super) fn select(
    store: &Store,
    mode: super::Mode,
    entries: &[String],
) -> Result<Vec<&'static MetricSpec>> {
    use super::{agentic, Mode};
    let own: Vec<&'static MetricSpec> = current(store)?.into_iter().map(|(_, spec)| spec).collect();
    Ok(match mode {
        Mode::Manual => metrics::resolve_selection_in(entries, &own)?,
        Mode::Agentic => agentic::candidates(mode).into_iter().chain(own).collect(),
        mode => agentic::candidates(mode),
    })
}

/// The stored criteria a run may use: the current version of each, with its spec.
pub fn current(store: &Store) -> Result<Vec<(Versioned, &'static MetricSpec)>> {
    Ok(store::criteria::list(store.conn(), false)?
        .into_iter()
        .map(|c| {
            let spec = criteria::registry::register(&c.definition);
            (c.versioned(), spec)
        })
        .collect())
}

/// The current versions of the criteria among `specs`, for a run's configuration. A
/// criterion removed since it was chosen is refused by name.
pub(super) fn versions_for(store: &Store, specs: &[&'static MetricSpec]) -> Result<Vec<Versioned>> {
    specs
        .iter()
        .filter(|s| s.family == metrics::Family::Criteria)
        .map(|s| {
            store::criteria::current(store.conn(), s.name)
                .map(|c| c.versioned())
                .map_err(|_| {
                    Error::Invalid(format!(
                        "criterion '{}' was removed; define it again (`ragnosis criteria add`) or leave it out",
                        s.name
                    ))
                })
        })
        .collect()
}

/// One item of a trial: what the draft criterion gave it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrialItem {
    /// The item's row id in the store.
    pub item_id: i64,
    /// The item's question in full.
    pub question: String,
    /// The item's answer in full, when it has one.
    pub answer: Option<String>,
    /// The criterion's result: status, score on 0–1, the judge's reasoning (or what the
    /// check found, or why it was not scored).
    pub result: MetricResult,
    /// The score on the criterion's own scale ("4" of 1–5, "pass"), when scored.
    pub score_shown: Option<String>,
    /// Whether the score passes the criterion's threshold (none when not scored).
    pub passed: Option<bool>,
}

/// What trying a draft criterion on a dataset's first items gave, and what it cost.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Trial {
    /// One per item tried (the dataset's first `TRIAL_ITEMS`), in dataset order.
    pub items: Vec<TrialItem>,
    /// Judge calls made (cache hits not counted).
    pub calls: u64,
    /// Verdicts read from the judge's cache instead of asked again.
    pub cache_hits: u64,
    /// What the calls cost, in US dollars.
    pub cost_usd: f64,
}

/// The items a trial scores.
pub const TRIAL_ITEMS: usize = 3;

/// Scores the draft `def` (validated here) on the first `TRIAL_ITEMS` items of
/// `dataset_id` with `judge`; nothing is stored. The verdicts go to the judge's cache, so
/// a run of the saved criterion on the same items reuses them.
pub fn trial(
    store: &Store,
    def: &Definition,
    dataset_id: i64,
    judge: Arc<dyn Judge>,
    ctx: &CallContext,
) -> Result<Trial> {
    criteria::validate(def).map_err(Error::Invalid)?;
    store::datasets::get(store.conn(), dataset_id)?;
    let ids: Vec<i64> = store::items::ids(store.conn(), dataset_id)?
        .into_iter()
        .take(TRIAL_ITEMS)
        .collect();
    let items = store::items::get_many(store.conn(), &ids)?;
    let draft = Versioned {
        version: 0,
        definition: def.clone(),
    };
    let runtime = super::worker_runtime("the trial")?;
    let mut trial = Trial {
        items: Vec::new(),
        calls: 0,
        cache_hits: 0,
        cost_usd: 0.0,
    };
    for stored in items {
        let (shortened, _) = super::shortened::for_judging(&stored.item);
        let (result, spent) = runtime.block_on(one(&shortened, &draft, judge.as_ref(), ctx));
        if let Some((accounting, _)) = spent {
            trial.calls += accounting.calls;
            trial.cache_hits += accounting.cache_hits;
            trial.cost_usd += accounting.cost_usd;
        }
        let details = |key: &str| result.details.get(key).cloned();
        let passed = details("passed").and_then(|v| v.as_bool());
        let score_shown = details("raw_score")
            .and_then(|v| v.as_f64())
            .filter(|_| result.status == Status::Ok)
            .map(|raw| def.scale.show(raw));
        trial.items.push(TrialItem {
            item_id: stored.id,
            question: stored.item.question,
            answer: stored.item.answer,
            result,
            score_shown,
            passed,
        });
    }
    Ok(trial)
}
