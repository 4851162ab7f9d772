//! Evaluating in one call, as `eval` and `agentic` do: import a file when given one, plan
//! and execute the run, re-judge it (calibration, repeats), write its exports and read
//! its quality gates. The CLI only parses arguments and prints; every step is told to an
//! `EvaluationSteps` as it happens, so a long run shows its import and its plan's note
//! first.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ragnosis_core::progress::{CancelToken, ProgressSink};
use ragnosis_core::store::runs::RunStatus;
use ragnosis_core::{Error, Result};

use crate::datasets::{self, ImportRequest, Imported};
use crate::reports::{self, ReportFormat, Shown};
use crate::runs::{self, gate, Calibration, Recheck, RunOutcome, RunPlan, RunRequest};
use crate::Ctx;

/// What one evaluation asks.
pub struct Evaluation {
    /// A file to import first; the run then scores it, whatever `request.dataset_id` says.
    pub import: Option<ImportRequest>,
    /// The run to plan.
    pub request: RunRequest,
    /// Only the plan: calls, tokens, cost and time, with nothing stored but the import.
    pub plan_only: bool,
    /// Re-judge the finished run under other judges or again at the same settings.
    pub recheck: Option<Recheck>,
    /// The finished run's exports: where (a base path) and in which formats.
    pub exports: Option<(PathBuf, Vec<ReportFormat>)>,
    /// The quality gates as typed (`METRIC=VALUE[,..]`), each with its direction. Read
    /// once the request is checked: a gate may name one of the user's criteria.
    pub gates: Vec<(String, gate::Direction)>,
    /// Whether a gate reads the mean alone or its 95% interval.
    pub basis: gate::Basis,
}

/// Told each step of an evaluation as it happens (the CLI prints them). Every method
/// does nothing unless implemented.
pub trait EvaluationSteps {
    /// The file was imported, or its earlier import reused.
    fn imported(&self, _imported: &Imported) {}
    /// The file gave no item: its report, before the import is refused.
    fn refused(&self, _imported: &Imported) {}
    /// The run is planned and about to execute; `notice` is what to read first.
    fn starting(&self, _run_id: i64, _notice: Option<&str>) {}
    /// The finished run was re-judged; how far the judges agree.
    fn rechecked(&self, _calibration: &Calibration) {}
    /// The run stopped (finished, cancelled, over budget or its judge down): what it shows.
    fn ended(&self, _shown: &Shown, _outcome: &RunOutcome) {}
    /// An export was written.
    fn wrote(&self, _path: &Path) {}
}

/// How an evaluation ended.
#[derive(Debug)]
pub enum Evaluated {
    /// Only the plan was asked for (`plan_only`).
    Planned {
        /// The dataset the plan is for (the imported one, with a file).
        dataset_id: i64,
        /// Items, cells, judge calls, tokens, cost and time, and the judge.
        plan: Box<RunPlan>,
    },
    /// The run finished; each gate's verdict, in the order the gates were given.
    Finished {
        /// The run's id.
        run_id: i64,
        /// Each quality gate's verdict.
        verdicts: Vec<gate::GateVerdict>,
    },
}

/// Runs `evaluation` to its end. Everything asked is checked before any file or the
/// database is touched. A run whose judge went down ends with the judge's own error
/// (`judge.auth`, `judge.unreachable`, …), one that stopped early with `cancelled`; both
/// keep what they scored, and a resume continues them.
pub fn evaluate(
    ctx: &Ctx,
    mut evaluation: Evaluation,
    steps: &dyn EvaluationSteps,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<Evaluated> {
    evaluation.request.check(ctx)?;
    if let Some(recheck) = &evaluation.recheck {
        recheck.check(ctx)?;
    }
    let mut gates = Vec::new();
    for (spec, direction) in &evaluation.gates {
        gates.extend(gate::parse(spec, *direction)?);
    }
    if let Some(import) = &evaluation.import {
        let imported =
            datasets::import_inspected(ctx, import, progress.as_ref(), |i| steps.refused(i))?;
        steps.imported(&imported);
        evaluation.request.dataset_id = imported.dataset.id;
    }
    let request = &evaluation.request;
    if evaluation.plan_only {
        return Ok(Evaluated::Planned {
            dataset_id: request.dataset_id,
            plan: Box::new(runs::preview(ctx, request)?),
        });
    }
    let planned = runs::plan(ctx, request)?;
    let run_id = planned.run_id;
    steps.starting(run_id, planned.notice().as_deref());
    let outcome = runs::execute(ctx, planned, progress.clone(), cancel)?;
    if let (RunStatus::Done, Some(recheck)) = (outcome.status, &evaluation.recheck) {
        let calibration = runs::recheck(ctx, run_id, request, recheck, progress, cancel)?;
        steps.rechecked(&calibration);
    }
    let verdicts = conclude(
        ctx,
        outcome,
        evaluation.exports.as_ref(),
        &gates,
        evaluation.basis,
        steps,
    )?;
    Ok(Evaluated::Finished { run_id, verdicts })
}

/// After a run stopped: tells `steps` what it shows, refuses one that did not finish
/// (with its judge's error when the judge went down), writes `exports` and reads `gates`.
/// `resume` ends here too.
pub fn conclude(
    ctx: &Ctx,
    outcome: RunOutcome,
    exports: Option<&(PathBuf, Vec<ReportFormat>)>,
    gates: &[gate::Gate],
    basis: gate::Basis,
    steps: &dyn EvaluationSteps,
) -> Result<Vec<gate::GateVerdict>> {
    let run_id = outcome.run_id;
    let shown = reports::show(ctx, run_id)?;
    steps.ended(&shown, &outcome);
    if let Some(down) = outcome.judge_down {
        // The judge's own code and exit status, so a script sees why; the cells it could
        // not score stay errors a resume retries.
        return Err(Error::JudgeDown {
            code: down.code,
            message: down.message,
        });
    }
    if outcome.status != RunStatus::Done {
        return Err(Error::Cancelled);
    }
    if let Some((base, formats)) = exports {
        for path in reports::export(ctx, run_id, base, formats, None)? {
            steps.wrote(&path);
        }
    }
    Ok(gate::check(&shown.report.run.summary, gates, basis))
}
