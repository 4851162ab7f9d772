//! `RunFacts`: everything one run's views say, read from the store once and in one
//! place. The views (`RunView`, `ReportView` with its methodology, trust statement and
//! criteria) are then built from these facts with no store: a table a report needs is
//! read here or nowhere, so two sections never read it twice (the calibration, the judge
//! profile, the labels and an item's results each were) and never see two states of a
//! run that is still being written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::options::{ReportOptions, PATTERN_CASES};
use super::run::ItemView;
use crate::analysis::compare::{self, Comparison};
use crate::analysis::insights::RunInsights;
use crate::analysis::{self, JudgedBy, RunSummary};
use crate::error::Result;
use crate::judge_check::JudgeCheck;
use crate::run::RunTotals;
use crate::store::{
    self, advisor_calls::Sent, datasets::DatasetRow, pipeline_profiles::DatasetProfile,
    runs::RunRow, Store,
};
use crate::trust::alignment::{self, Alignment};
use crate::trust::calibration::CALIBRATION;

use crate::error::Error;
use crate::judge::{self, open, ProviderKind};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeFacts {
    pub profile: String,
    pub kind: String,
    pub model: String,
    pub temperature: f64,
    /// Host the judge was reached at; `None` offline or when the profile is gone.
    pub host: Option<String>,
    pub offline: bool,
    /// False when the run's profile no longer exists.
    pub profile_found: bool,
}

/// One run's facts, as read for its views.
#[derive(Debug, Clone)]
pub struct RunFacts {
    pub run: RunRow,
    pub dataset: DatasetRow,
    /// The run's summary, its actions' fixes already tailored to `pipeline`.
    pub summary: RunSummary,
    /// The user's description of the pipeline behind the answers (empty when none).
    pub pipeline: DatasetProfile,
    /// The items the views show — the worst, and each failure pattern's examples — each
    /// with its results, read once however many sections show it.
    pub items: BTreeMap<i64, ItemView>,
    /// The ids of the lowest-scoring items, worst first (`ReportOptions::worst` of them).
    pub worst: Vec<i64>,
    /// Calls, cache hits, tokens and cost of the run's judging.
    pub totals: RunTotals,
    /// The questions about this run the advisor sent to a model.
    pub advisor_calls: Vec<Sent>,
    /// The stored calibration, as stored (`None` when the run was not calibrated).
    pub calibration: Option<serde_json::Value>,
    /// The judge profile the run names, as it is now.
    pub judge: JudgeFacts,
    /// The judge configurations and prompt versions behind the results.
    pub judged_by: JudgedBy,
    /// The judge checks on record for those configurations, the user's latest first,
    /// then the one shipped with this build.
    pub judge_checks: Vec<JudgeCheck>,
    /// The run's stored insights (`None` for a run without).
    pub insights: Option<RunInsights>,
    /// The run's agreement with people's labels, and the items to label next.
    pub alignment: Alignment,
    /// Per criterion metric of the run: (items scored, items that passed).
    pub criteria_counts: BTreeMap<String, (u64, u64)>,
    /// The comparison with `ReportOptions::baseline`, when one was asked for.
    pub comparison: Option<Comparison>,
}

impl RunFacts {
    /// Reads the facts of run `run_id` for views with `options`. Reads only: a run
    /// stored before its summary and case index were is fast once `materialise`d.
    pub fn load(store: &Store, run_id: i64, options: &ReportOptions) -> Result<RunFacts> {
        let conn = store.conn();
        let run = store::runs::get(conn, run_id)?;
        let dataset = store::datasets::get(conn, run.dataset_id)?;
        let pipeline = store::pipeline_profiles::for_dataset(conn, dataset.id)?;
        let mut summary = analysis::current_summary(store, &run)?;
        if let Some(d) = summary.diagnosis.as_mut() {
            analysis::diagnosis::tailor::tailor(&mut d.actions, &pipeline.profile);
        }
        let worst: Vec<i64> = crate::cases::worst(store, &run, options.worst)?
            .into_iter()
            .map(|(item_id, _)| item_id)
            .collect();
        let items = shown_items(store, run_id, &worst, &summary)?;
        // A complete summary names them (an unfinished run's is computed complete; an old
        // finished one is completed when the run is opened).
        let judged_by = summary.judged_by.clone().unwrap_or_default();
        let judge_checks = judge_checks(store, &judged_by.judge_configs)?;
        let insights = analysis::insights::load(store, run_id)?;
        let comparison = match options.baseline {
            Some(baseline) => Some(compare::compare_runs(
                store,
                baseline,
                run_id,
                options.threshold,
                options.allow_different_judges,
            )?),
            None => None,
        };
        Ok(RunFacts {
            totals: store::runs::totals(conn, run_id)?,
            advisor_calls: store::advisor_calls::sent(conn, run_id)?,
            calibration: store::analyses::get(conn, run_id, CALIBRATION)?,
            judge: judge_facts(store, &run.judge)?,
            alignment: alignment::align(store, run_id)?,
            criteria_counts: criteria_counts(store, &run)?,
            judged_by,
            judge_checks,
            insights,
            comparison,
            items,
            worst,
            summary,
            pipeline,
            dataset,
            run,
        })
    }
}

/// The worst items and the first examples of each failure pattern, each read once.
fn shown_items(
    store: &Store,
    run_id: i64,
    worst: &[i64],
    summary: &RunSummary,
) -> Result<BTreeMap<i64, ItemView>> {
    let examples = summary.diagnosis.iter().flat_map(|d| {
        d.patterns
            .iter()
            .flat_map(|p| p.examples.iter().take(PATTERN_CASES).map(|e| e.item_id))
    });
    let mut items = BTreeMap::new();
    for item_id in worst.iter().copied().chain(examples) {
        if let std::collections::btree_map::Entry::Vacant(slot) = items.entry(item_id) {
            slot.insert(ItemView::load(store, run_id, item_id)?);
        }
    }
    Ok(items)
}

/// The user's latest check of each configuration, then, for the built-in judge, the
/// check shipped with this build.
fn judge_checks(store: &Store, judge_configs: &[String]) -> Result<Vec<JudgeCheck>> {
    let mut checks = Vec::new();
    for config in judge_configs {
        checks.extend(crate::judge_check::latest_for_config(store.conn(), config)?);
        checks.extend(crate::judge_check::shipped::for_config(config));
    }
    Ok(checks)
}

/// (scored, passed) of each criterion the run scored, counted in SQL: every report
/// opens this, and a criterion of a million-item run would otherwise load its column.
fn criteria_counts(store: &Store, run: &RunRow) -> Result<BTreeMap<String, (u64, u64)>> {
    let mut out = BTreeMap::new();
    for v in crate::run::run_config(run)?.criteria {
        let metric = v.definition.metric_id();
        let counts = store::results::count_ok_flag(store.conn(), run.id, &metric, "passed")?;
        out.insert(metric, counts);
    }
    Ok(out)
}

/// The judge profile `name` as it is now; a profile deleted since is named "unknown".
fn judge_facts(store: &Store, name: &str) -> Result<JudgeFacts> {
    match open::profile(store, name) {
        Ok(p) => {
            let offline = p.kind == ProviderKind::Offline;
            let url = match p.kind {
                ProviderKind::OpenAi if p.base_url.trim().is_empty() => {
                    judge::provider::openai::DEFAULT_BASE_URL
                }
                ProviderKind::Anthropic if p.base_url.trim().is_empty() => {
                    judge::provider::anthropic::DEFAULT_BASE_URL
                }
                _ => p.base_url.as_str(),
            };
            Ok(JudgeFacts {
                host: (!offline).then(|| host_of(url)).filter(|h| !h.is_empty()),
                profile: p.name,
                kind: p.kind.as_str().into(),
                model: p.model,
                temperature: p.temperature,
                offline,
                profile_found: true,
            })
        }
        Err(Error::NotFound { .. }) => Ok(JudgeFacts {
            profile: name.to_string(),
            kind: "unknown".into(),
            model: "unknown".into(),
            temperature: 0.0,
            host: None,
            offline: false,
            profile_found: false,
        }),
        Err(e) => Err(e),
    }
}

/// The host (and port) of a URL, without scheme, path or any user:password part, which
/// must never reach a report.
pub fn host_of(url: &str) -> String {
    let rest = url.trim().split_once("://").map_or(url.trim(), |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority
        .rsplit_once('@')
        .map_or(authority, |(_, a)| a)
        .to_ascii_lowercase()
}
