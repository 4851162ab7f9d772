//! The judge check: how far a judge agrees with people, measured on a labelled sample
//! shipped with Ragnosis, so a user knows how much to trust the scores it gives.
//!
//! Every task goes through the same judge protocol the metrics use, so the figures
//! describe the judge as the metrics see it:
//! - claim tasks (attribution, claim support, expert claims): the judge splits the text
//!   into claims (`Claims`) and labels them against the passages (`ClaimLabels`); the
//!   text counts as supported when it has a claim and every claim is entailed. Figure:
//!   balanced accuracy against the human label.
//! - answerability: the question's information needs (`Aspects`) checked against the
//!   paragraph (`Coverage`), as `ragvue.retrieval_coverage` does; the covered share is
//!   the score. Figure: AUROC against "answerable".
//! - similarity: the answer-correctness score of one sentence with the other as its
//!   reference (a scorecard call asking only for correctness): the number
//!   `ragalyst.answer_correctness` reads. Figure: Spearman's rho against the human
//!   rating.
//! - diagnosis: each designed item is evaluated like an agentic run and its failure
//!   patterns are read; the figure is how often they name the designed failure, and how
//!   often anything fires on a good item.
//!
//! A judge call that fails leaves its case out of the figure and is counted as an error
//! with the first message kept: a failure is never scored as a disagreement.
//!
//! Owns: running the sample through a judge and the figures. Must not: store anything
//! (`store::judge_checks` does) or choose a judge (`judge::open` does).

mod batch;
pub mod certificate;
pub mod figures;
pub mod fit;
mod judging;
pub mod sample;
pub mod shipped;
mod stored;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use crate::analysis::diagnosis::{self, FailurePattern};
use crate::error::{Error, Result};
use crate::judge::{CallContext, Judge, JudgeError, Task, Verdict};
use crate::metrics::Status;
use crate::progress::{CancelToken, Progress, ProgressSink};
use crate::run::asking::{Accounting, Asker};
use crate::run::engine;
use crate::run::phases::EngineSettings;
use crate::run::{agentic, Mode};
pub use batch::run_in_batches;
pub use certificate::Certificate;
pub use figures::Estimate;
use judging::{claim_verdict, judge_case, Ledger, Outcome};
use sample::{Case, ClaimCase, DesignedCase};
pub use stored::{latest_for_config, latest_for_profile};

/// The tasks of the check with a human label to agree with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum CheckTask {
    Attribution,
    ClaimSupport,
    ExpertClaims,
    Answerability,
    Similarity,
}

impl CheckTask {
    pub const ALL: [CheckTask; 5] = [
        CheckTask::Attribution,
        CheckTask::ClaimSupport,
        CheckTask::ExpertClaims,
        CheckTask::Answerability,
        CheckTask::Similarity,
    ];

    /// What the task asks, for people, with the data set it comes from.
    pub fn title(self) -> &'static str {
        match self {
            CheckTask::Attribution => "Is a reply backed by its source? (BEGIN dialogues)",
            CheckTask::ClaimSupport => "Is a claim backed by the page it cites? (WiCE, Wikipedia)",
            CheckTask::ExpertClaims => "Is an expert's claim backed by its passages? (ExpertQA)",
            CheckTask::Answerability => "Can the passage answer the question? (SQuAD 2.0)",
            CheckTask::Similarity => "How alike are two sentences? (STS-B)",
        }
    }

    pub fn measure(self) -> Measure {
        match self {
            CheckTask::Answerability => Measure::Auroc,
            CheckTask::Similarity => Measure::Spearman,
            _ => Measure::BalancedAccuracy,
        }
    }
}

/// How agreement with people is measured on a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Measure {
    BalancedAccuracy,
    Auroc,
    Spearman,
}

impl Measure {
    /// Every measure.
    pub const ALL: [Measure; 3] = [Measure::BalancedAccuracy, Measure::Auroc, Measure::Spearman];

    /// How the measure is named ("balanced accuracy").
    pub fn label(self) -> &'static str {
        match self {
            Measure::BalancedAccuracy => "balanced accuracy",
            Measure::Auroc => "AUROC",
            Measure::Spearman => "Spearman",
        }
    }
}

/// Agreement on one task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskFigure {
    pub task: CheckTask,
    pub measure: Measure,
    /// None when no case could be judged (or the judged ones hold one class only).
    pub estimate: Option<Estimate>,
    /// Cases judged.
    pub n: u64,
    /// Cases left out because a judge call failed.
    pub errors: u64,
    pub first_error: Option<String>,
}

/// How the diagnosis did on one designed failure shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ShapeFigure {
    pub shape: String,
    /// What counts as naming it, for people: "A", "C or F", "not C, D or H", "nothing".
    pub expected: String,
    pub named: u64,
    pub n: u64,
    pub errors: u64,
}

/// How the diagnosis did on the designed failures and the good items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiagnosisFigure {
    pub shapes: Vec<ShapeFigure>,
    /// Designed failures (every shape but "good") whose failure was named.
    pub named: u64,
    pub designed: u64,
    /// Good items on which some pattern fired.
    pub false_alarms: u64,
    pub good: u64,
}

/// A finished judge check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct JudgeCheck {
    pub profile: String,
    /// The judge's `config_key`: checks are matched to runs by it.
    pub judge_config: String,
    pub model: String,
    pub prompt_versions: Vec<String>,
    pub sample_version: String,
    pub checked_at: String,
    pub seconds: f64,
    pub tasks: Vec<TaskFigure>,
    /// Balanced accuracy over the claims of the three claim tasks together: the one
    /// figure reports cite.
    pub claims: Option<Estimate>,
    pub claims_n: u64,
    pub diagnosis: DiagnosisFigure,
    /// κ, the true positive and negative rates and the probes (`certificate`). Absent
    /// from checks stored before it existed.
    #[serde(default)]
    pub certificate: Option<Certificate>,
    pub accounting: Accounting,
}

impl JudgeCheck {
    /// Whether the check describes the judge `profile` opens now: the same model and
    /// temperature, and for the built-in judge also the same rules and learned
    /// coefficients (its prompt version), which change between builds.
    pub fn describes(&self, profile: &crate::judge_profile::JudgeProfile) -> bool {
        let same_config = crate::judge::identity_of(profile).config_key() == self.judge_config;
        let same_offline_judge = profile.kind != crate::judge::ProviderKind::Offline
            || self
                .prompt_versions
                .iter()
                .any(|v| v == crate::judge::offline::current_prompt_version());
        same_config && same_offline_judge
    }

    /// One sentence for a report's methodology and the judge's line in the window.
    pub fn headline(&self) -> String {
        let claims = match self.claims {
            Some(e) => format!(
                "agreed with human labels on {:.2} of claims (balanced accuracy, 95% CI {:.2}–{:.2}, n = {})",
                e.value, e.ci_low, e.ci_high, self.claims_n
            ),
            None => "could not be compared with human labels on claims (every claim call failed)".to_string(),
        };
        let d = &self.diagnosis;
        format!(
            "On Ragnosis's judge check ({}), this judge {claims} and named the designed failure in {} of {} built cases, with a false alarm on {} of {} good ones.",
            &self.checked_at[..self.checked_at.len().min(10)],
            d.named,
            d.designed,
            d.false_alarms,
            d.good
        )
    }

    pub fn task(&self, task: CheckTask) -> Option<&TaskFigure> {
        self.tasks.iter().find(|t| t.task == task)
    }
}

/// Whether `patterns` name the failure `expect` describes (see `sample::DesignedCase`).
pub fn names(expect: &[String], patterns: &[FailurePattern]) -> bool {
    let fired = |letter: &str| patterns.iter().any(|p| letter.starts_with(p.letter()));
    let wanted: Vec<&String> = expect.iter().filter(|e| !e.starts_with('!')).collect();
    let forbidden: Vec<&str> = expect.iter().filter_map(|e| e.strip_prefix('!')).collect();
    if expect.is_empty() {
        return patterns.is_empty();
    }
    (wanted.is_empty() || wanted.iter().any(|w| fired(w))) && !forbidden.iter().any(|f| fired(f))
}

fn describe(expect: &[String]) -> String {
    let wanted: Vec<&str> = expect
        .iter()
        .filter(|e| !e.starts_with('!'))
        .map(String::as_str)
        .collect();
    let forbidden: Vec<&str> = expect.iter().filter_map(|e| e.strip_prefix('!')).collect();
    let list = |xs: &[&str], last: &str| match xs {
        [] => String::new(),
        [one] => one.to_string(),
        [init @ .., end] => format!("{} {last} {end}", init.join(", ")),
    };
    match (wanted.is_empty(), forbidden.is_empty()) {
        (true, true) => "no pattern".into(),
        (false, true) => list(&wanted, "or"),
        (true, false) => format!("not {}", list(&forbidden, "or")),
        (false, false) => format!("{}, not {}", list(&wanted, "or"), list(&forbidden, "or")),
    }
}

/// Runs the whole sample through `judge`; `profile` names the judge for the record.
/// Cancelling stops the judge's calls and returns `Error::Cancelled` with nothing kept.
pub fn run(
    profile: &str,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<JudgeCheck> {
    let runtime = crate::run::worker_runtime("the judge check")?;
    runtime.block_on(run_async(profile, judge, progress, cancel))
}

async fn run_async(
    profile: &str,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<JudgeCheck> {
    let started = Instant::now();
    let cases = sample::cases();
    let total = cases.len() as u64;
    progress.report(Progress::Started {
        stage: "judge check".into(),
        total: Some(total),
    });
    let ledger = Arc::new(Ledger::default());
    let outcomes = judge_all(cases.clone(), &judge, &ledger, &progress, cancel).await?;
    if cancel.is_cancelled() {
        return Err(Error::Cancelled);
    }
    let probes = certificate::run(&cases, &judge, &ledger, &progress, cancel).await;
    if cancel.is_cancelled() {
        return Err(Error::Cancelled);
    }
    let accounting = *ledger.accounting.lock().unwrap();
    let prompt_versions = ledger
        .prompt_versions
        .lock()
        .unwrap()
        .iter()
        .cloned()
        .collect();
    let identity = judge.identity();
    let (tasks, claims, claims_n) = task_figures(&outcomes);
    let pairs: Vec<(bool, bool)> = outcomes
        .iter()
        .filter_map(|o| match o {
            Outcome::Claim {
                predicted,
                supported,
                ..
            } => Some((*predicted, *supported)),
            _ => None,
        })
        .collect();
    progress.report(Progress::Finished {
        stage: "judge check".into(),
    });
    Ok(JudgeCheck {
        profile: profile.to_string(),
        judge_config: identity.config_key(),
        model: identity.model.clone(),
        prompt_versions,
        sample_version: sample::version(),
        checked_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        seconds: started.elapsed().as_secs_f64(),
        tasks,
        claims,
        claims_n,
        diagnosis: diagnosis_figure(&outcomes),
        certificate: Some(Certificate::new(&pairs, probes)),
        accounting,
    })
}

/// Cases in a row that fail to reach a judge that has never answered, before the check
/// stops with that error.
const UNREACHABLE_STOP: usize = 5;

/// How long the check waits for a judge's first answer before it stops, beside each
/// call's own timeout: a server that accepts connections and never answers would
/// otherwise cost every case its retries (past five minutes). Longer for a local server
/// that loads its model slowly: `RAGNOSIS_JUDGE_SILENCE_SECS`.
pub const SILENCE: Duration = Duration::from_secs(150);
pub const SILENCE_ENV: &str = "RAGNOSIS_JUDGE_SILENCE_SECS";

fn silence() -> Duration {
    std::env::var(SILENCE_ENV)
        .ok()
        .and_then(|s| s.parse().ok())
        .map_or(SILENCE, Duration::from_secs)
}

/// Every case as a task, at most twice what the judge takes at once running, so the
/// judge never waits on the check.
fn spawn_cases(
    cases: Vec<Case>,
    judge: &Arc<dyn Judge>,
    ledger: &Arc<Ledger>,
    progress: &Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> JoinSet<Outcome> {
    let ctx = CallContext {
        progress: progress.clone(),
        cancel: cancel.clone(),
        use_cache: true,
    };
    let permits = Arc::new(Semaphore::new((judge.concurrency() * 2).max(2)));
    let mut set = JoinSet::new();
    for case in cases {
        let (judge, ctx, ledger, permits) =
            (judge.clone(), ctx.clone(), ledger.clone(), permits.clone());
        set.spawn(async move {
            let _permit = permits
                .acquire_owned()
                .await
                .expect("the semaphore is never closed");
            judge_case(case, judge.as_ref(), &ctx, &ledger).await
        });
    }
    set
}

/// When the check gives up on a judge that has not answered once (`SILENCE`).
struct Deadline {
    started: Instant,
    at: tokio::time::Instant,
    host: String,
}

impl Deadline {
    fn start(judge: &Arc<dyn Judge>) -> Deadline {
        Deadline {
            started: Instant::now(),
            at: tokio::time::Instant::now() + silence(),
            host: judge.identity().base_url.clone(),
        }
    }

    /// Resolves at the deadline with the error that names the host and the wait.
    async fn passed(&self) -> Error {
        tokio::time::sleep_until(self.at).await;
        Error::Judge(JudgeError::Connection(format!(
            "nothing answered at {} in {} s: the server accepts connections but sent no reply to any judge call; \
             check that its model is loaded and working (a server that loads slowly can be given longer with \
             {SILENCE_ENV})",
            self.host,
            self.started.elapsed().as_secs()
        )))
    }
}

/// Judges every case, a bounded number at once, reporting progress; stops at the first
/// failure that would fail every call (a refused key, an unusable profile), and after a
/// few cases in a row that cannot reach a judge that never answered.
async fn judge_all(
    cases: Vec<Case>,
    judge: &Arc<dyn Judge>,
    ledger: &Arc<Ledger>,
    progress: &Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<Vec<Outcome>> {
    let total = cases.len() as u64;
    let mut set = spawn_cases(cases, judge, ledger, progress, cancel);
    let mut outcomes = Vec::with_capacity(total as usize);
    // Cases in a row that could not reach the judge at all, while it has not answered
    // once: a server that is not there would otherwise cost every case's retries.
    let mut unreachable_in_a_row = 0;
    let mut answered = false;
    let deadline = Deadline::start(judge);
    loop {
        let joined = if answered {
            set.join_next().await
        } else {
            tokio::select! {
                joined = set.join_next() => joined,
                error = deadline.passed() => {
                    cancel.cancel();
                    set.abort_all();
                    return Err(error);
                }
            }
        };
        let Some(joined) = joined else { break };
        let outcome = joined
            .map_err(|e| Error::Invalid(format!("a judge check task stopped unexpectedly: {e}")))?;
        match &outcome {
            Outcome::Failed {
                error: Some(e @ (JudgeError::Connection(_) | JudgeError::Timeout(_))),
                ..
            } if !answered => {
                unreachable_in_a_row += 1;
                if unreachable_in_a_row >= UNREACHABLE_STOP {
                    cancel.cancel();
                    set.abort_all();
                    return Err(Error::Judge(e.clone()));
                }
            }
            Outcome::Failed { .. } => {}
            _ => answered = true,
        }
        // A refused key or an unusable profile fails every call alike: stop at the first
        // and say so, rather than report a check made of nothing but errors.
        if let Outcome::Failed {
            error: Some(e @ (JudgeError::Auth { .. } | JudgeError::Config(_))),
            ..
        } = &outcome
        {
            cancel.cancel();
            set.abort_all();
            return Err(Error::Judge(e.clone()));
        }
        outcomes.push(outcome);
        progress.report(Progress::Advanced {
            done: outcomes.len() as u64,
            total: Some(total),
        });
        if outcomes.len() % 20 == 0 {
            let a = *ledger.accounting.lock().unwrap();
            progress.report(Progress::Totals {
                calls: a.calls,
                cache_hits: a.cache_hits,
                failures: a.failures,
                cost_usd: a.cost_usd,
            });
        }
    }
    Ok(outcomes)
}

fn task_figures(outcomes: &[Outcome]) -> (Vec<TaskFigure>, Option<Estimate>, u64) {
    let mut tasks = Vec::new();
    let mut pooled: Vec<(bool, bool)> = Vec::new();
    for task in CheckTask::ALL {
        let failures: Vec<&String> = outcomes
            .iter()
            .filter_map(|o| match o {
                Outcome::Failed {
                    task: Some(t),
                    message,
                    ..
                } if *t == task => Some(message),
                _ => None,
            })
            .collect();
        let (estimate, n) = match task.measure() {
            Measure::BalancedAccuracy => {
                let pairs: Vec<(bool, bool)> = outcomes
                    .iter()
                    .filter_map(|o| match o {
                        Outcome::Claim {
                            task: t,
                            predicted,
                            supported,
                        } if *t == task => Some((*predicted, *supported)),
                        _ => None,
                    })
                    .collect();
                pooled.extend(&pairs);
                (
                    figures::estimate(&pairs, figures::balanced_accuracy),
                    pairs.len(),
                )
            }
            Measure::Auroc => {
                let pairs: Vec<(f64, bool)> = outcomes
                    .iter()
                    .filter_map(|o| match o {
                        Outcome::Answerability {
                            covered,
                            answerable,
                        } => Some((*covered, *answerable)),
                        _ => None,
                    })
                    .collect();
                (figures::estimate(&pairs, figures::auroc), pairs.len())
            }
            Measure::Spearman => {
                let pairs: Vec<(f64, f64)> = outcomes
                    .iter()
                    .filter_map(|o| match o {
                        Outcome::Similarity { score, human } => Some((*score, *human)),
                        _ => None,
                    })
                    .collect();
                (figures::estimate(&pairs, figures::spearman), pairs.len())
            }
        };
        tasks.push(TaskFigure {
            task,
            measure: task.measure(),
            estimate,
            n: n as u64,
            errors: failures.len() as u64,
            first_error: failures.first().map(|m| m.to_string()),
        });
    }
    let claims = figures::estimate(&pooled, figures::balanced_accuracy);
    (tasks, claims, pooled.len() as u64)
}

fn diagnosis_figure(outcomes: &[Outcome]) -> DiagnosisFigure {
    let mut shapes: Vec<ShapeFigure> = Vec::new();
    let mut figure = DiagnosisFigure {
        shapes: Vec::new(),
        named: 0,
        designed: 0,
        false_alarms: 0,
        good: 0,
    };
    // Shapes in the sample's order, so the table reads the same every time.
    for case in sample::cases() {
        if let Case::Diagnosis(d) = case {
            if !shapes.iter().any(|s| s.shape == d.shape) {
                shapes.push(ShapeFigure {
                    shape: d.shape.clone(),
                    expected: describe(&d.expect),
                    named: 0,
                    n: 0,
                    errors: 0,
                });
            }
        }
    }
    for outcome in outcomes {
        match outcome {
            Outcome::Designed {
                shape,
                expect,
                patterns,
            } => {
                let Some(s) = shapes.iter_mut().find(|s| &s.shape == shape) else {
                    continue;
                };
                let named = names(expect, patterns);
                s.n += 1;
                s.named += named as u64;
                if expect.is_empty() {
                    figure.good += 1;
                    figure.false_alarms += !named as u64;
                } else {
                    figure.designed += 1;
                    figure.named += named as u64;
                }
            }
            Outcome::Failed {
                shape: Some(shape), ..
            } => {
                if let Some(s) = shapes.iter_mut().find(|s| &s.shape == shape) {
                    s.errors += 1;
                }
            }
            _ => {}
        }
    }
    figure.shapes = shapes;
    figure
}

#[cfg(test)]
mod tests;
