//! `eval`, `agentic` and `resume`: a run request from arguments, handed to the api's one
//! evaluation use case (`evaluate::evaluate`: import, the plan alone with `--plan`, or the run
//! executed in the foreground, re-judged, exported and gated), each step printed as it
//! happens; the gates' verdicts become the exit status.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use ragnosis_api::datasets::{ImportRequest, Imported};
use ragnosis_api::evaluate::{self, Evaluated, Evaluation, EvaluationSteps};
use ragnosis_api::judges::OFFLINE;
use ragnosis_api::reports::Shown;
use ragnosis_api::runs::{self, gate, Calibration, Recheck, RunOutcome, RunRequest, Status};
use ragnosis_api::{Ctx, Error, ProgressSink};

use crate::{cancel_on_ctrl_c, export_formats, print, Failure};

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
    /// {"answer", "reference", "score"} lines, at most 8 (default: the file chosen in the
    /// window's Settings, else the shipped set, assets/few-shot/answer-correctness.jsonl).
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
    limit: Option<u64>,
    /// Evaluate a random sample of N items (with --seed).
    #[arg(long)]
    sample: Option<u64>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// A name for the run ("baseline", "after the reranker"): runs, reports and
    /// comparisons show it.
    #[arg(long)]
    label: Option<String>,
    /// Your pipeline's version for this run ("v2", a commit): shown beside the label.
    #[arg(long)]
    version: Option<String>,
    /// Free notes kept with the run (what changed, why).
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
    output: crate::OutputArgs,
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
    k: u64,
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

/// The request both commands make; `mode` and `metrics` are theirs.
fn request(common: &Common, mode: &str, metrics: Vec<String>) -> RunRequest {
    RunRequest {
        dataset_id: common.dataset.unwrap_or_default(),
        mode: mode.to_string(),
        metrics,
        judge: common.judge.clone(),
        label: common.label.clone(),
        version: common.version.clone(),
        notes: common.notes.clone(),
        limit: common.limit,
        sample: common.sample,
        seed: common.seed,
        budget_usd: common.budget,
        weights: Some(common.weights.clone()),
        no_cache: Some(common.no_cache),
        batch: Some(common.batch),
        few_shot: common
            .few_shot
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned()),
        ..RunRequest::default()
    }
}

pub fn eval(ctx: &Ctx, args: EvalArgs, progress: Arc<dyn ProgressSink>) -> Result<(), Failure> {
    let request = RunRequest {
        k: Some(args.k),
        tau: args.tau,
        citation_pattern: args.citation_pattern.clone(),
        ..request(
            &args.common,
            "manual",
            args.metrics.split(',').map(str::to_string).collect(),
        )
    };
    run_with(ctx, &args.common, request, progress)
}

pub fn agentic(
    ctx: &Ctx,
    args: AgenticArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let mode = if args.retrieval_only {
        "retrieval_only"
    } else {
        "agentic"
    };
    run_with(
        ctx,
        &args.common,
        request(&args.common, mode, Vec::new()),
        progress,
    )
}

fn run_with(
    ctx: &Ctx,
    common: &Common,
    request: RunRequest,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    // What the user typed is parsed here; the api checks the request before any file or
    // the database is touched.
    let formats = export_formats(&common.output.format)?;
    let gates = Gates::parse(common)?;
    let evaluation = Evaluation {
        import: match &common.file {
            Some(file) => Some(ImportRequest::new(file).with_specs(&common.map)?),
            None => None,
        },
        request,
        plan_only: common.plan,
        recheck: Recheck::parse(common.calibrate.as_deref(), common.repeat)?,
        exports: common.output.out_base.clone().map(|base| (base, formats)),
        gates: gates.specs,
        basis: gates.basis,
    };
    let cancel = cancel_on_ctrl_c();
    match evaluate::evaluate(ctx, evaluation, &Printed, progress, &cancel)? {
        // A plan stores nothing: no "planned" run is left behind per look.
        Evaluated::Planned { dataset_id, plan } => {
            print::plan(dataset_id, &plan);
            Ok(())
        }
        Evaluated::Finished { verdicts, .. } => {
            crate::gates::settle(&verdicts, gates.inconclusive, "quality gate")
        }
    }
}

/// Each step of an evaluation, printed as it happens.
struct Printed;

impl EvaluationSteps for Printed {
    fn imported(&self, imported: &Imported) {
        print::import_report_short(imported);
    }

    fn refused(&self, imported: &Imported) {
        print::import_report(imported);
    }

    fn starting(&self, _run_id: i64, notice: Option<&str>) {
        if let Some(notice) = notice {
            eprintln!("note: {notice}");
        }
    }

    fn rechecked(&self, calibration: &Calibration) {
        print::calibration(calibration);
    }

    fn ended(&self, shown: &Shown, outcome: &RunOutcome) {
        print::run_summary(&shown.report, shown.judge_asked);
        let run_id = outcome.run_id;
        if outcome.judge_down.is_some() {
            eprintln!("run {run_id} failed; after fixing the cause, continue it with `ragnosis resume {run_id}`");
        } else if outcome.status != Status::Done {
            let message = shown.report.run.run.message.as_deref().unwrap_or("stopped");
            eprintln!("run {run_id} {message}; continue it with `ragnosis resume {run_id}`");
        }
    }

    fn wrote(&self, path: &Path) {
        eprintln!("wrote {}", path.display());
    }
}

pub fn resume(
    ctx: &Ctx,
    run_id: i64,
    judge: Option<String>,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let planned = runs::reopen(ctx, run_id, judge.as_deref())?;
    let failed_before = runs::error_count(ctx, run_id)?;
    Printed.starting(run_id, planned.notice().as_deref());
    let outcome = runs::execute(ctx, planned, progress, &cancel_on_ctrl_c())?;
    let failing_now = runs::error_count(ctx, run_id)?;
    if failed_before > 0 {
        eprintln!(
            "retried {failed_before} failed result{}: {} scored now, {failing_now} still failing",
            if failed_before == 1 { "" } else { "s" },
            failed_before.saturating_sub(failing_now)
        );
    }
    evaluate::conclude(ctx, outcome, None, &[], gate::Basis::default(), &Printed)?;
    Ok(())
}

/// `--fail-under`, `--fail-over` (read by the api once the request is checked), `--gate`
/// and `--inconclusive`.
struct Gates {
    specs: Vec<(String, gate::Direction)>,
    basis: gate::Basis,
    inconclusive: crate::gates::Inconclusive,
}

impl Gates {
    fn parse(common: &Common) -> Result<Gates, Error> {
        let specs = [
            (&common.fail_under, gate::Direction::Under),
            (&common.fail_over, gate::Direction::Over),
        ]
        .into_iter()
        .filter_map(|(spec, direction)| Some((spec.clone()?, direction)))
        .collect();
        Ok(Gates {
            specs,
            basis: common.gate.parse()?,
            inconclusive: common.inconclusive.parse()?,
        })
    }
}
