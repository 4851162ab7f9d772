//! Judging one case of the check's sample: the calls each kind of case makes, and what
//! they gave (`Outcome`); `Ledger` adds up what every case's calls cost.

use super::*;

/// What judging one case gave.
pub(super) enum Outcome {
    Claim {
        task: CheckTask,
        predicted: bool,
        supported: bool,
    },
    Answerability {
        covered: f64,
        answerable: bool,
    },
    Similarity {
        score: f64,
        human: f64,
    },
    Designed {
        shape: String,
        expect: Vec<String>,
        patterns: Vec<FailurePattern>,
    },
    Failed {
        task: Option<CheckTask>,
        shape: Option<String>,
        message: String,
        error: Option<JudgeError>,
    },
}

/// What every case's calls cost together, and the prompt versions that answered.
#[derive(Default)]
pub(crate) struct Ledger {
    pub(super) accounting: Mutex<Accounting>,
    pub(super) prompt_versions: Mutex<BTreeSet<String>>,
}

impl Ledger {
    pub(crate) fn absorb(&self, spent: &Accounting, versions: impl IntoIterator<Item = String>) {
        self.accounting.lock().unwrap().add(spent);
        self.prompt_versions.lock().unwrap().extend(versions);
    }
}

async fn claims_of(asker: &Asker<'_>, text: &str) -> std::result::Result<Vec<String>, JudgeError> {
    let task = Task::Claims {
        question: String::new(),
        text: text.to_string(),
    };
    match asker.ask(task).await? {
        Verdict::Claims { claims } => Ok(claims),
        other => Err(unexpected("claims", &other)),
    }
}

/// The share of `claims` entailed by some passage.
async fn entailed(
    asker: &Asker<'_>,
    claims: Vec<String>,
    passages: Vec<String>,
) -> std::result::Result<f64, JudgeError> {
    let n = claims.len();
    if n == 0 {
        return Ok(0.0);
    }
    match asker.ask(Task::ClaimLabels { claims, passages }).await? {
        Verdict::ClaimLabels { labels } if labels.len() == n => Ok(labels
            .iter()
            .filter(|row| row.iter().any(|l| l.is_entailment()))
            .count() as f64
            / n as f64),
        Verdict::ClaimLabels { labels } => Err(JudgeError::Unparseable {
            message: format!("{} label rows for {n} claims", labels.len()),
            raw: String::new(),
            spent: None,
        }),
        other => Err(unexpected("claim_labels", &other)),
    }
}

fn unexpected(expected: &str, got: &Verdict) -> JudgeError {
    JudgeError::Unparseable {
        message: format!("expected a {expected} verdict, got {}", got.kind().as_str()),
        raw: String::new(),
        spent: None,
    }
}

pub(super) async fn judge_case(
    case: Case,
    judge: &dyn Judge,
    ctx: &CallContext,
    ledger: &Ledger,
) -> Outcome {
    if let Case::Diagnosis(d) = case {
        return designed(d, judge, ctx, ledger).await;
    }
    let asker = Asker::new(judge, ctx);
    let outcome = judge_labelled(case, &asker).await;
    let (spent, versions) = asker.into_spent();
    ledger.absorb(&spent, versions);
    outcome
}

/// A case with a human label, through the judge protocol.
async fn judge_labelled(case: Case, asker: &Asker<'_>) -> Outcome {
    let failed = |task: Option<CheckTask>, shape: Option<String>, e: JudgeError| Outcome::Failed {
        task,
        shape,
        message: e.to_string(),
        error: Some(e),
    };
    match case {
        Case::Attribution(c) => claim_case(CheckTask::Attribution, c, asker).await,
        Case::ClaimSupport(c) => claim_case(CheckTask::ClaimSupport, c, asker).await,
        Case::ExpertClaims(c) => claim_case(CheckTask::ExpertClaims, c, asker).await,
        Case::Answerability {
            question,
            passage,
            answerable,
        } => match answerability(&question, passage, asker).await {
            Ok(covered) => Outcome::Answerability {
                covered,
                answerable,
            },
            Err(e) => failed(Some(CheckTask::Answerability), None, e),
        },
        Case::Similarity { a, b, score } => match similarity(&a, &b, asker).await {
            Ok(judged) => Outcome::Similarity {
                score: judged,
                human: score,
            },
            Err(e) => failed(Some(CheckTask::Similarity), None, e),
        },
        Case::Diagnosis(_) => unreachable!("designed cases are evaluated as items"),
    }
}

/// Whether the judge calls `text` supported by `passages`: it has a claim and every
/// claim is entailed by some passage. A text with no claim (a greeting, a question) has
/// nothing attributable.
pub(crate) async fn claim_verdict(
    asker: &Asker<'_>,
    text: &str,
    passages: Vec<String>,
) -> std::result::Result<bool, JudgeError> {
    let claims = claims_of(asker, text).await?;
    if claims.is_empty() {
        return Ok(false);
    }
    Ok(entailed(asker, claims, passages).await? == 1.0)
}

async fn claim_case(task: CheckTask, case: ClaimCase, asker: &Asker<'_>) -> Outcome {
    match claim_verdict(asker, &case.text, case.passages).await {
        Ok(predicted) => Outcome::Claim {
            task,
            predicted,
            supported: case.supported,
        },
        Err(e) => Outcome::Failed {
            task: Some(task),
            shape: None,
            message: e.to_string(),
            error: Some(e),
        },
    }
}

async fn answerability(
    question: &str,
    passage: String,
    asker: &Asker<'_>,
) -> std::result::Result<f64, JudgeError> {
    let aspects = match asker
        .ask(Task::Aspects {
            question: question.to_string(),
        })
        .await?
    {
        Verdict::Aspects { aspects, .. } if !aspects.is_empty() => aspects,
        Verdict::Aspects { .. } => {
            return Err(JudgeError::Unparseable {
                message: "no information need found in the question".into(),
                raw: String::new(),
                spent: None,
            })
        }
        other => return Err(unexpected("aspects", &other)),
    };
    let task = Task::Coverage {
        question: question.to_string(),
        aspects,
        chunks: vec![passage],
    };
    match asker.ask(task).await? {
        // The covered share, as `ragvue.retrieval_coverage` reads it (not the
        // probability a judge may give beside its decisions).
        Verdict::Coverage { aspects } if !aspects.is_empty() => {
            Ok(aspects.iter().filter(|a| a.covered).count() as f64 / aspects.len() as f64)
        }
        Verdict::Coverage { .. } => Err(JudgeError::Unparseable {
            message: "coverage of no aspect".into(),
            raw: String::new(),
            spent: None,
        }),
        other => Err(unexpected("coverage", &other)),
    }
}

/// The answer-correctness score of `a` against `b` as the reference: what
/// `ragalyst.answer_correctness` reads from the same scorecard call, so the figure
/// describes the metric users see.
async fn similarity(a: &str, b: &str, asker: &Asker<'_>) -> std::result::Result<f64, JudgeError> {
    let task = Task::Scorecard(Box::new(crate::judge::task::ScorecardTask {
        question: String::new(),
        answer: a.to_string(),
        chunks: Vec::new(),
        ground_truth: b.to_string(),
        structure_note: Vec::new(),
        criteria: vec![crate::judge::task::Criterion::AnswerCorrectness],
        examples: Vec::new(),
        taxonomy: false,
    }));
    match asker.ask(task).await? {
        Verdict::Scorecard(card) => card
            .scores
            .iter()
            .find(|s| s.criterion == crate::judge::task::Criterion::AnswerCorrectness)
            .map(|s| s.score)
            .ok_or_else(|| JudgeError::Unparseable {
                message: "no answer-correctness score".into(),
                raw: String::new(),
                spent: None,
            }),
        other => Err(unexpected("scorecard", &other)),
    }
}

async fn designed(
    case: DesignedCase,
    judge: &dyn Judge,
    ctx: &CallContext,
    ledger: &Ledger,
) -> Outcome {
    let item = case.item.to_item();
    let metrics: Vec<_> = agentic::candidates(Mode::Agentic)
        .into_iter()
        .filter(|m| agentic::choose(m, &item).0)
        .collect();
    let outcome =
        engine::evaluate_item(0, &item, &metrics, judge, ctx, &EngineSettings::default()).await;
    let versions = outcome
        .prompt_version
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::to_string);
    ledger.absorb(&outcome.accounting, versions);
    if let Some(error) = outcome.results.iter().find(|r| r.status == Status::Error) {
        return Outcome::Failed {
            task: None,
            shape: Some(case.shape),
            message: format!("{}: {}", error.metric, error.explanation),
            error: None,
        };
    }
    Outcome::Designed {
        shape: case.shape,
        expect: case.expect,
        patterns: diagnosis::patterns_of(&outcome.results),
    }
}
