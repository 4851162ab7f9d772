//! What a run will ask the judge before anything is called: the plan of a request not
//! yet stored (`preview`), and of a stored run against a profile (`estimate`).

use serde::Serialize;

use super::{criteria, engine, job_for, owner, run_config, selected_metrics, RunRequest};
use super::{Mode, LOAD_CHUNK};
use crate::error::Result;
use crate::judge::task::CorrectnessExample;
use crate::metrics::{self, MetricSpec, Scope};
use crate::store::{self, Store};

/// What a planned run will ask the judge, before anything is called: every item's
/// tasks (agentic choice applied), estimated against the profile and the cache.
pub fn estimate(
    store: &Store,
    run_id: i64,
    profile: &crate::judge_profile::JudgeProfile,
) -> Result<crate::judge::plan::JudgePlan> {
    let run = store::runs::get(store.conn(), run_id)?;
    // Held until this function returns: another process sees the run as evaluating,
    // and a process killed mid-run leaves it interrupted, not running forever.
    let _owner = owner::claim(store, run_id)?;
    let config = run_config(&run)?;
    let specs: Vec<&'static MetricSpec> = run
        .metrics
        .iter()
        .filter_map(|id| metrics::find(id))
        .filter(|m| m.scope == Scope::Item)
        .collect();
    let done = store::results::done_pairs(store.conn(), run_id)?;
    let item_ids = store::run_items::item_ids(store.conn(), run_id)?;
    let (tasks, _) = planned_work(
        store,
        &specs,
        (config.mode, &config.few_shot, &config.criteria),
        &item_ids,
        &done,
    )?;
    let tasks = criteria::askable(tasks, profile);
    let cache = crate::judge::shelf::open_cache(store.path())?;
    let plan = crate::judge::plan::estimate(profile, &tasks, Some(&cache))?;
    Ok(crate::judge::batch::priced(plan, config.batch))
}

/// What each item is evaluated with: the mode, the correctness examples and the
/// criteria's versions.
type Plan<'a> = (
    Mode,
    &'a [CorrectnessExample],
    &'a [crate::criteria::Versioned],
);

/// The judge tasks and the number of (item, metric) cells evaluating `item_ids` would
/// take, skipping cells in `done`.
fn planned_work(
    store: &Store,
    specs: &[&'static MetricSpec],
    (mode, few_shot, own): Plan<'_>,
    item_ids: &[i64],
    done: &std::collections::HashSet<(i64, String)>,
) -> Result<(Vec<crate::judge::Task>, u64)> {
    let mut tasks = Vec::new();
    let mut cells = 0u64;
    for chunk in item_ids.chunks(LOAD_CHUNK) {
        for stored in store::items::get_many(store.conn(), chunk)? {
            let job = job_for(stored, specs, mode, done, &mut 0);
            cells += job.metrics.len() as u64;
            tasks.extend(engine::planned_tasks(&job.item, &job.metrics, few_shot));
            tasks.extend(criteria::planned(&job.item, &job.metrics, own));
        }
    }
    Ok((tasks, cells))
}

/// What running a request would do, computed before anything is stored, so the user
/// sees the plan (and can change it) without leaving a run behind.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Preview {
    /// Items after limit / sample.
    pub items: u64,
    /// The run's metric list (agentic: every candidate; each item uses those it supports).
    pub metrics: Vec<String>,
    /// (item, metric) evaluations that will be computed; agentic runs count only the
    /// metrics chosen for each item.
    pub cells: u64,
    /// The calls the run's judge is expected to make; for a cascade, the stronger
    /// judge's part.
    pub judge: crate::judge::plan::JudgePlan,
    /// For a cascade (`offline+NAME`): how the tasks divide and what sending all of them
    /// to NAME would take.
    pub cascade: Option<crate::judge::plan::CascadePlan>,
    /// For a model judge: what the cascade in front of it would send, offered as the
    /// recommended way to use a model (the offline judge decides what it is sure of).
    pub cascade_offer: Option<CascadeOffer>,
    /// Whether the judge calls go through the provider's batch service (half price,
    /// results within 24 h); the costs above are batch prices then.
    pub batch: bool,
    /// How long the run should take, and what the figure rests on.
    pub duration: DurationEstimate,
}

/// A run's expected wall-clock time and its basis, in words a user can weigh: measured
/// on this machine with this judge, or assumed before the first such run.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DurationEstimate {
    pub secs: f64,
    pub basis: String,
}

/// Seconds per cell of the built-in judge before any run measured it here: a 24-item
/// agentic run (1,152 cells) took 2.4 s in a debug build on two cores, embedded model
/// loaded; a release build is faster, so the assumption errs long.
const OFFLINE_SECS_PER_CELL: f64 = 0.0021;
/// The last runs a pace is measured over.
const PACE_RUNS: u32 = 5;

/// The run's duration: from the pace of this judge's last runs here when there are any,
/// else from the built-in judge's usual pace or the hosted judge's latency model.
fn duration_of(
    store: &Store,
    profile: &crate::judge_profile::JudgeProfile,
    cells: u64,
    judge: &crate::judge::plan::JudgePlan,
) -> Result<DurationEstimate> {
    if let Some(pace) = store::runs::pace(store.conn(), &profile.name, PACE_RUNS)? {
        return Ok(DurationEstimate {
            secs: pace.secs_per_cell * cells as f64,
            basis: format!(
                "measured: {} ms per evaluation over your last {} run{} with this judge on this machine",
                (pace.secs_per_cell * 1000.0).round().max(1.0),
                pace.runs,
                if pace.runs == 1 { "" } else { "s" }
            ),
        });
    }
    Ok(if profile.kind == crate::judge::ProviderKind::Offline {
        DurationEstimate {
            secs: OFFLINE_SECS_PER_CELL * cells as f64,
            basis:
                "assumed from the built-in judge's usual pace; your first run measures this machine"
                    .into(),
        }
    } else {
        DurationEstimate {
            secs: judge.duration_secs,
            basis: format!(
                "assumed: {} s per judge call, {} at a time; your first run with this judge measures it",
                crate::judge::plan::ASSUMED_LATENCY_SECS,
                profile.concurrency.max(1)
            ),
        }
    })
}

/// Plans `request` against `profile` without storing anything.
pub fn preview(
    store: &Store,
    request: &RunRequest,
    profile: &crate::judge_profile::JudgeProfile,
) -> Result<Preview> {
    let specs = selected_metrics(store, request)?;
    let own = criteria::versions_for(store, &specs)?;
    store::datasets::get_ready(store.conn(), request.dataset_id)?;
    let chosen = request
        .selection
        .apply(&store::items::ids(store.conn(), request.dataset_id)?);
    let item_specs: Vec<&'static MetricSpec> = specs
        .iter()
        .copied()
        .filter(|m| m.scope == Scope::Item)
        .collect();
    let (tasks, cells) = planned_work(
        store,
        &item_specs,
        (request.mode, &request.few_shot, &own),
        &chosen,
        &Default::default(),
    )?;
    let tasks = criteria::askable(tasks, profile);
    let cache = crate::judge::shelf::open_cache(store.path())?;
    let is_cascade = crate::judge::cascade::stronger(&profile.name).is_some();
    let offers_cascade =
        !is_cascade && profile.kind != crate::judge::ProviderKind::Offline && !tasks.is_empty();
    let (judge, cascade, cascade_offer) = if is_cascade || offers_cascade {
        let offline = crate::judge::offline::OfflineJudge::standard();
        let (sent, split) =
            crate::judge::plan::estimate_cascade(profile, &tasks, Some(&cache), &offline)?;
        if is_cascade {
            (sent, Some(split), None)
        } else {
            let offer = CascadeOffer {
                judge: format!("{}{}", crate::judge::cascade::PREFIX, profile.name),
                sent,
                split: split.clone(),
            };
            (split.all_sent, None, Some(offer))
        }
    } else {
        (
            crate::judge::plan::estimate(profile, &tasks, Some(&cache))?,
            None,
            None,
        )
    };
    // The built-in judge and a cascade have no batch service: they ask live whatever the
    // request says, so the plan prices them live.
    let batched =
        request.batch && cascade.is_none() && profile.kind != crate::judge::ProviderKind::Offline;
    let duration = duration_of(store, profile, cells, &judge)?;
    Ok(Preview {
        items: chosen.len() as u64,
        metrics: specs.iter().map(|m| m.id.to_string()).collect(),
        cells,
        judge: crate::judge::batch::priced(judge, batched),
        cascade,
        cascade_offer,
        batch: batched,
        duration,
    })
}

/// The cascade offered in place of a model judge: its name, what it would send to the
/// model, and how the tasks would divide.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CascadeOffer {
    /// The judge to choose for it: `offline+NAME`.
    pub judge: String,
    /// The calls, tokens and cost of the tasks it would send to the model.
    pub sent: crate::judge::plan::JudgePlan,
    /// How the tasks would divide between the offline judge and the model.
    pub split: crate::judge::plan::CascadePlan,
}
