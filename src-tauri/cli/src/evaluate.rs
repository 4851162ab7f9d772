//! `eval`, `agentic` and `resume`: build a run request from arguments, plan, optionally
//! stop at the plan, execute with the chosen judge, print, export, check thresholds.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use ragnosis_core::analysis::gate;
use ragnosis_core::dataset::FieldMap;
use ragnosis_core::export;
use ragnosis_core::judge::open::{self, OFFLINE};
use ragnosis_core::metrics::overall::WeightProfile;
use ragnosis_core::metrics::{self, MetricConfig};
use ragnosis_core::progress::ProgressSink;
use ragnosis_core::run::{self, Mode, RunRequest, Selection};
use ragnosis_core::secrets::KeyringStore;
use ragnosis_core::semantic;
use ragnosis_core::store::{self, judge_profiles::JudgeProfile, runs::RunStatus, Store};
use ragnosis_core::Error;

use crate::{
    cancel_on_ctrl_c, import_checked, parse_formats, print, write_outputs, Failure, OutputArgs,
    Outputs,
};

/// What both `eval` and `agentic` accept.
#[derive(Args, Clone)]
pub struct Common {
    /// A file to import and evaluate.
    #[arg(conflicts_with = "dataset", required_unless_present = "dataset")]
    file: Option<PathBuf>,
    /// A stored dataset id instead of a file.
    #[arg(long)]
    dataset: Option<i64>,
    /// With FILE: read FIELD from PATH in each record (see `ragnosis import --help`).
    #[arg(long = "map", value_name = "FIELD=PATH", requires = "file")]
    map: Vec<String>,
    /// Judge profile (see `ragnosis judges list`); the built-in offline judge by default.
    #[arg(long, default_value = OFFLINE)]
    judge: String,
    /// Ask the judge again even for verdicts in the cache.
    #[arg(long)]
    no_cache: bool,
    /// Scored examples for ragalyst.answer_correctness: a JSONL file of
    /// {"answer", "reference", "score"} lines, at most 8 (default: the shipped set,
    /// assets/few-shot/answer-correctness.jsonl).
    #[arg(long, value_name = "FILE")]
    few_shot: Option<std::path::PathBuf>,
    /// Show calls, tokens, cost and time without calling any judge.
    #[arg(long)]
    plan: bool,
    /// Send the judge calls through the provider's batch API (OpenAI, Azure OpenAI,
    /// Anthropic): half price, results within 24 h; `ragnosis resume RUN` picks a
    /// waiting batch up if this process ends.
    #[arg(long)]
    batch: bool,
    /// Stop launching judge calls once the run would cost more than this (USD).
    #[arg(long, value_name = "USD")]
    budget: Option<f64>,
    /// Evaluate only the first N items.
    #[arg(long)]
    limit: Option<usize>,
    /// Evaluate a random sample of N items (with --seed).
    #[arg(long)]
    sample: Option<usize>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long)]
    label: Option<String>,
    #[arg(long)]
    version: Option<String>,
    #[arg(long)]
    notes: Option<String>,
    /// Weight profile for answer_overall: ragvue-paper or ragvue-0.6.
    #[arg(long, default_value = "ragvue-paper")]
    weights: String,
    /// Rerun the judged metrics under other judges / temperatures and report agreement:
    /// JUDGE[@TEMP],... (e.g. `offline,gpt@0.7`).
    #[arg(long, value_name = "JUDGE[@TEMP],...")]
    calibrate: Option<String>,
    /// Judge the same items N times in all at the same settings, bypassing the cache, and
    /// report how far scores and means move from one run to the next.
    #[arg(long, value_name = "N")]
    repeat: Option<usize>,
    /// Exit with code 1 when a higher-is-better metric is below a value: METRIC=VALUE[,..].
    #[arg(long, value_name = "METRIC=VALUE")]
    fail_under: Option<String>,
    /// Exit with code 1 when a lower-is-better metric (hallucination, noise sensitivity,
    /// no-citation rate) is above a value: METRIC=VALUE[,..].
    #[arg(long, value_name = "METRIC=VALUE")]
    fail_over: Option<String>,
    /// How gates decide: `ci` (PASS or FAIL only when the mean's 95% interval is wholly
    /// on one side of the line, else INCONCLUSIVE with the items that would settle it),
    /// or `mean` (the mean alone, PASS or FAIL).
    #[arg(long, value_name = "ci|mean", default_value = "ci")]
    gate: String,
    /// What an INCONCLUSIVE gate does to the exit status: `exit` (code 4, the
    /// default), or counted as a `pass` (0) or a `fail` (1).
    #[arg(long, value_name = "exit|pass|fail", default_value = "exit")]
    inconclusive: String,
    #[command(flatten)]
    output: OutputArgs,
}

#[derive(Args, Clone)]
pub struct EvalArgs {
    #[command(flatten)]
    common: Common,
    /// Comma-separated metric ids, bare names or families (e.g. `ragvue,citation,token_f1`).
    #[arg(long, required = true)]
    metrics: String,
    /// k for recall_at_k and mrr_at_k.
    #[arg(long, default_value_t = 10)]
    k: usize,
    /// Regex whose first capture group is a cited id.
    #[arg(long)]
    citation_pattern: Option<String>,
    /// Relevance threshold for retrieval_relevance.
    #[arg(long)]
    tau: Option<f64>,
}

#[derive(Args, Clone)]
pub struct AgenticArgs {
    #[command(flatten)]
    common: Common,
    /// Only the retrieval metrics (no answer needed).
    #[arg(long)]
    retrieval_only: bool,
}

pub fn eval(home: &Path, args: EvalArgs, progress: Arc<dyn ProgressSink>) -> Result<(), Failure> {
    // Check everything the user typed before touching any file or the database (an
    // existing database is read for the criteria it defines, and nothing written).
    let entries: Vec<&str> = args.metrics.split(',').collect();
    let selected = match crate::existing_store(home)? {
        Some(store) => {
            let own: Vec<_> = run::criteria::current(&store)?
                .into_iter()
                .map(|(_, spec)| spec)
                .collect();
            metrics::resolve_selection_in(&entries, &own)
        }
        None => metrics::resolve_selection(&entries),
    }
    .map_err(Error::from)?;
    if args.k == 0 {
        return Err(Error::Invalid("--k must be at least 1".into()).into());
    }
    let mut config = MetricConfig {
        k: args.k,
        ..MetricConfig::default()
    };
    if let Some(pattern) = args.citation_pattern {
        metrics::citation::compile_pattern(&pattern)
            .map_err(|e| Error::Invalid(format!("--citation-pattern is not a valid regex: {e}")))?;
        config.citation_pattern = pattern;
    }
    if let Some(tau) = args.tau.filter(|t| !(0.0..=1.0).contains(t)) {
        return Err(Error::Invalid(format!("--tau must be between 0 and 1, got {tau}")).into());
    }
    let metric_ids = selected.iter().map(|m| m.id.to_string()).collect();
    run_with(
        home,
        &args.common,
        Mode::Manual,
        metric_ids,
        config,
        args.tau,
        progress,
    )
}

pub fn agentic(
    home: &Path,
    args: AgenticArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let mode = if args.retrieval_only {
        Mode::RetrievalOnly
    } else {
        Mode::Agentic
    };
    run_with(
        home,
        &args.common,
        mode,
        Vec::new(),
        MetricConfig::default(),
        None,
        progress,
    )
}

fn run_with(
    home: &Path,
    common: &Common,
    mode: Mode,
    metric_ids: Vec<String>,
    metric_config: MetricConfig,
    tau: Option<f64>,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let formats = parse_formats(&common.output.format)?;
    let weights = WeightProfile::builtin(&common.weights).ok_or_else(|| {
        Error::Invalid(format!(
            "unknown weight profile '{}' (use ragvue-paper or ragvue-0.6)",
            common.weights
        ))
    })?;
    // A gate may name a criterion: the database's criteria are registered first.
    drop(crate::existing_store(home)?);
    let gates = Gates::parse(common)?;
    if let Some(b) = common.budget.filter(|b| b.is_nan() || *b < 0.0) {
        return Err(Error::Invalid(format!("--budget must be a positive amount, got {b}")).into());
    }
    let few_shot = match &common.few_shot {
        Some(path) => ragnosis_core::judge::few_shot::read(path).map_err(Error::Invalid)?,
        None => ragnosis_core::judge::few_shot::default_examples(),
    };
    let mut store = Store::open(home)?;
    let profile = open::profile(&store, &common.judge)?; // an unknown judge is an input error
    let calibration: Vec<JudgeProfile> = match &common.calibrate {
        Some(list) => list
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|e| judge_config(&store, e.trim()))
            .collect::<Result<_, _>>()?,
        None => Vec::new(),
    };
    let repeats = match common.repeat {
        Some(0 | 1) => {
            return Err(Error::Invalid(
                "--repeat needs at least 2 (the run itself and one more)".into(),
            )
            .into())
        }
        Some(_) if !calibration.is_empty() => {
            return Err(Error::Invalid(
                "--repeat and --calibrate each re-judge the run; use one at a time".into(),
            )
            .into())
        }
        Some(n) => n - 1,
        None => 0,
    };
    let dataset_id = match (&common.file, common.dataset) {
        (Some(file), _) => {
            let map = FieldMap::parse(&common.map).map_err(Error::Invalid)?;
            let imported = import_checked(&mut store, file, None, &map, progress.as_ref())?;
            print::import_report_short(&imported);
            imported.dataset.id
        }
        (None, Some(id)) => store::datasets::get(store.conn(), id)?.id,
        (None, None) => return Err(Error::Invalid("give a FILE or --dataset ID".into()).into()),
    };
    let request = RunRequest {
        dataset_id,
        mode,
        metrics: metric_ids,
        label: common.label.clone(),
        version: common.version.clone(),
        notes: common.notes.clone(),
        selection: Selection {
            limit: common.limit,
            sample: common.sample,
            seed: common.seed,
        },
        metric_config,
        judge: profile.name.clone(),
        weights,
        tau,
        budget_usd: common.budget,
        use_cache: !common.no_cache,
        few_shot,
        batch: common.batch,
    };
    if common.plan {
        // A plan stores nothing: no "planned" run is left behind per look.
        let preview = run::preview(&store, &request, &profile)?;
        print::plan(dataset_id, &profile, &preview);
        return Ok(());
    }
    let run_id = run::plan(&mut store, &request)?;
    let judge = open::open_judge(&store, &profile.name, &KeyringStore)?;
    if judge.identity().is_offline()
        && !matches!(
            semantic::availability(),
            semantic::Availability::Loaded { .. }
        )
    {
        // Visible, not silent: without the model paraphrase goes unseen.
        eprintln!("note: {}", semantic::availability().notice());
    }
    let cancel = cancel_on_ctrl_c();
    let outcome = run::execute(&mut store, run_id, judge, progress.clone(), &cancel)?;
    if outcome.status == RunStatus::Done && !calibration.is_empty() {
        calibrate(
            &mut store,
            run_id,
            &request,
            &calibration,
            false,
            progress,
            &cancel,
        )?;
    } else if outcome.status == RunStatus::Done && repeats > 0 {
        let same = vec![profile.clone(); repeats];
        calibrate(&mut store, run_id, &request, &same, true, progress, &cancel)?;
    }
    finish(
        &mut store,
        outcome,
        common.output.out_base.as_deref(),
        &formats,
        &gates,
    )
}

/// `NAME` or `NAME@TEMP`: a stored profile (or `offline`), optionally at another temperature.
fn judge_config(store: &Store, entry: &str) -> Result<JudgeProfile, Error> {
    let (name, temperature) = match entry.rsplit_once('@') {
        Some((name, t)) => {
            let t: f64 = t.parse().map_err(|_| {
                Error::Invalid(format!(
                    "'{entry}': the temperature after @ is not a number"
                ))
            })?;
            (name, Some(t))
        }
        None => (entry, None),
    };
    let mut profile = open::profile(store, name)?;
    if let Some(t) = temperature {
        profile.temperature = t;
    }
    Ok(profile)
}

fn config_name(profile: &JudgeProfile) -> String {
    format!("{}@{}", profile.name, profile.temperature)
}

/// One calibration run per configuration, on the same items and metrics, then the
/// agreement analysis stored with the main run. `repeat`: the configurations are the
/// run's own judge again, asked afresh (no cache), to measure run-to-run spread.
fn calibrate(
    store: &mut Store,
    main_run: i64,
    request: &RunRequest,
    configs: &[JudgeProfile],
    repeat: bool,
    progress: Arc<dyn ProgressSink>,
    cancel: &ragnosis_core::progress::CancelToken,
) -> Result<(), Error> {
    let mut runs = vec![main_run];
    for (k, profile) in configs.iter().enumerate() {
        let label = if repeat {
            format!("repeat {} of #{main_run}", k + 2)
        } else {
            format!("calibration of #{main_run} with {}", config_name(profile))
        };
        let child = RunRequest {
            judge: config_name(profile),
            label: Some(label),
            use_cache: request.use_cache && !repeat,
            // A repeat asks afresh, past the cache a batch answers through.
            batch: request.batch && !repeat,
            ..request.clone()
        };
        let child_id = run::plan(store, &child)?;
        let judge = open::open_profile(store, profile, &KeyringStore)?;
        let outcome = run::execute(store, child_id, judge, progress.clone(), cancel)?;
        if outcome.status != RunStatus::Done {
            return Err(Error::Invalid(format!("calibration run #{child_id} did not finish; resume it with `ragnosis resume {child_id}`")));
        }
        runs.push(child_id);
    }
    let calibration = ragnosis_core::analysis::calibration::calibrate(
        store,
        &runs,
        ragnosis_core::analysis::calibration::DEFAULT_REVIEW_BELOW,
    )?;
    print::calibration(&calibration);
    Ok(())
}

pub fn resume(
    home: &Path,
    run_id: i64,
    judge: Option<String>,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let mut store = Store::open(home)?;
    let run = store::runs::get(store.conn(), run_id)?;
    let name = judge.unwrap_or(run.judge.clone());
    let judge = open::open_profile(&store, &judge_config(&store, &name)?, &KeyringStore)?;
    let outcome = run::execute(&mut store, run_id, judge, progress, &cancel_on_ctrl_c())?;
    finish(
        &mut store,
        outcome,
        None,
        &Outputs {
            data: Vec::new(),
            markdown: false,
        },
        &Gates::default(),
    )
}

fn finish(
    store: &mut Store,
    outcome: run::RunOutcome,
    out_base: Option<&Path>,
    formats: &Outputs,
    gates: &Gates,
) -> Result<(), Failure> {
    let report =
        export::ReportView::load(store, outcome.run_id, &export::ReportOptions::default())?;
    let totals: run::RunTotals = store::runs::totals(store.conn(), outcome.run_id)?;
    print::run_summary(
        &report,
        totals.calls + totals.cache_hits + totals.failures > 0,
    );
    if let Some(down) = outcome.judge_down {
        // The judge's own code (judge.auth, judge.unreachable, …) and exit status, so a
        // script sees why; the cells it could not score stay errors a resume retries.
        eprintln!(
            "run {} failed; after fixing the cause, continue it with `ragnosis resume {}`",
            outcome.run_id, outcome.run_id
        );
        return Err(Error::JudgeDown {
            code: down.code,
            message: down.message,
        }
        .into());
    }
    if outcome.status != RunStatus::Done {
        let run = store::runs::get(store.conn(), outcome.run_id)?;
        eprintln!(
            "run {} {}; continue it with `ragnosis resume {}`",
            outcome.run_id,
            run.message.as_deref().unwrap_or("stopped"),
            outcome.run_id
        );
        return Err(Error::Cancelled.into());
    }
    if let Some(base) = out_base {
        for path in write_outputs(store, outcome.run_id, base, formats)? {
            eprintln!("wrote {}", path.display());
        }
    }
    let verdicts = gate::check(&report.run.summary, &gates.gates, gates.basis);
    crate::gates::settle(&verdicts, gates.inconclusive, "quality gate")
}

/// `--fail-under`, `--fail-over` and `--gate`, read before anything runs.
#[derive(Default)]
struct Gates {
    gates: Vec<gate::Gate>,
    basis: gate::Basis,
    inconclusive: crate::gates::Inconclusive,
}

impl Gates {
    fn parse(common: &Common) -> Result<Gates, Error> {
        let mut gates = Vec::new();
        if let Some(spec) = &common.fail_under {
            gates.extend(gate::parse(spec, gate::Direction::Under)?);
        }
        if let Some(spec) = &common.fail_over {
            gates.extend(gate::parse(spec, gate::Direction::Over)?);
        }
        Ok(Gates {
            gates,
            basis: common.gate.parse()?,
            inconclusive: common.inconclusive.parse()?,
        })
    }
}
