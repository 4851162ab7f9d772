//! Evaluating one item: judge-free metrics inline; judged metrics through the judge tasks
//! they need, each task asked at most once per item; synthesised overalls last.
//!
//! Task plan for an item with question, answer and contexts under the full RAGVUE set:
//! phase 1 asks Aspects, ChunkRelevance, Grounding and Reasoning concurrently; phase 2
//! asks Coverage and AnswerReview (both need the aspects) — six calls. RAGChecker
//! metrics without supplied labels add three (GT claims and two label matrices); the
//! answer's claims come from the Grounding verdict. RAGXplain and RAGalyst add one
//! scorecard call in phase 2: the grading note comes with the aspects, answerability is
//! the Reasoning verdict's sufficiency judgement, and the failure taxonomy is part of
//! the scorecard — ten calls for the four families together.
//!
//! A failed task turns every metric that needed it into an error naming the failure,
//! with the judge's raw output in the details; other metrics of the item still score.

use serde::Serialize;
use serde_json::json;

use super::asking::{wrong_verdict, Accounting, Asker};
use super::phases::{EngineSettings, FirstPhase, SecondPhase};
use super::verdicts::{from, ragvue_metric, scorecard_metric, Verdicts};
use crate::item::{Item, Label, RagCheckerLabels};
use crate::judge::few_shot::MAX_EXAMPLES;
use crate::judge::task::{CorrectnessExample, Criterion, Grounding, ScorecardTask};
use crate::judge::{CallContext, Judge, JudgeError, Task, TaskKind, Verdict};
use crate::metrics::overall;
use crate::metrics::{self, ragchecker, Family, MetricResult, MetricSpec, Status};

/// What evaluating one item produced and cost.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ItemOutcome {
    pub item_id: i64,
    pub results: Vec<MetricResult>,
    pub judge_config: String,
    /// The prompt versions of the verdicts behind this item's judged results (one in
    /// practice; joined with "," if a judge answered under several), stored with them so
    /// a report names what actually judged.
    pub prompt_version: Option<String>,
    /// Results whose prompt version is their own, not the item's: a criterion's
    /// (metric id, version), so adding criteria to a run leaves the version recorded
    /// with the built-in metrics as it was.
    pub metric_versions: Vec<(String, String)>,
    pub accounting: Accounting,
}

/// Which judge tasks the chosen metrics need.
struct Needs {
    chunks: bool,
    coverage: bool,
    review: bool,
    completeness: bool,
    grounding: bool,
    reasoning: bool,
    ragchecker: bool,
    /// The grading note (asked with the aspects).
    note: bool,
    /// Scorecard criteria, in catalogue order; empty when no scorecard is needed.
    criteria: Vec<Criterion>,
}

impl Needs {
    fn of(item: &Item, judged: &[&MetricSpec]) -> Needs {
        let has = |name: &str| judged.iter().any(|m| m.id == name);
        let ragchecker = judged.iter().any(|m| m.family == Family::RagChecker)
            && !item.has(crate::item::Field::RagCheckerLabels);
        Needs {
            chunks: has("ragvue.retrieval_relevance"),
            coverage: has("ragvue.retrieval_coverage"),
            review: [
                "ragvue.answer_relevance",
                "ragvue.answer_completeness",
                "ragvue.clarity",
                "ragvue.coherence",
                "ragvue.answer_conciseness",
            ]
            .iter()
            .any(|m| has(m)),
            completeness: has("ragvue.answer_completeness"),
            grounding: ragchecker
                || [
                    "ragvue.strict_faithfulness",
                    "ragvue.context_utilization",
                    "ragvue.implicit_contradiction",
                ]
                .iter()
                .any(|m| has(m)),
            reasoning: has("ragvue.negative_rejection")
                || has("ragvue.multi_hop_faithfulness")
                || has("ragalyst.answerability"),
            ragchecker,
            note: has("ragxplain.grading_note"),
            criteria: Criterion::ALL
                .into_iter()
                .filter(|c| has(c.metric_id()))
                .collect(),
        }
    }

    fn aspects(&self, item: &Item) -> bool {
        ((self.coverage || self.completeness) && item.aspects.is_empty()) || self.note
    }
}

/// The scorecard task for an item; `note` is the grading note when it is rated.
fn scorecard_task(
    item: &Item,
    criteria: Vec<Criterion>,
    note: Vec<String>,
    few_shot: &[CorrectnessExample],
) -> Task {
    let correctness = criteria.contains(&Criterion::AnswerCorrectness);
    Task::Scorecard(Box::new(ScorecardTask {
        question: item.question.clone(),
        answer: item.answer.clone().unwrap_or_default(),
        chunks: item.contexts.iter().map(|c| c.text.clone()).collect(),
        ground_truth: item.ground_truth.clone().unwrap_or_default(),
        structure_note: note,
        examples: if correctness {
            few_shot.iter().take(MAX_EXAMPLES).cloned().collect()
        } else {
            Vec::new()
        },
        criteria,
        taxonomy: correctness,
    }))
}

/// The metrics of `metrics` a judge is asked for on `item`: judged, not synthesised, with
/// their fields present, and RAGChecker's only when the item carries no labels.
fn judged_metrics(item: &Item, metrics: &[&'static MetricSpec]) -> Vec<&'static MetricSpec> {
    metrics
        .iter()
        .copied()
        .filter(|m| m.judge && !m.synthesised && metrics::missing_fields(item, m.needs).is_empty())
        .filter(|m| {
            !(m.family == Family::RagChecker && item.has(crate::item::Field::RagCheckerLabels))
        })
        .collect()
}

/// RAGChecker's tasks: the reference's claims, then both label matrices, estimated with
/// the texts (the matrices depend on the claims extracted).
fn ragchecker_tasks(item: &Item, question: String, answer: String) -> [Task; 3] {
    let gt = item.ground_truth.clone().unwrap_or_default();
    [
        Task::Claims {
            question,
            text: gt.clone(),
        },
        // The label matrices depend on the extracted claims; estimate with the texts.
        Task::ClaimLabels {
            claims: vec![answer.clone()],
            passages: vec![gt.clone()],
        },
        Task::ClaimLabels {
            claims: vec![gt],
            passages: vec![answer],
        },
    ]
}

/// The judge tasks evaluating `metrics` on `item` would ask, for planning (a user's
/// criteria are planned by `run::criteria`). Tasks that depend on another verdict
/// (coverage and review need the aspects) are estimated with the item's own aspects when
/// it has them, else with the question as the one aspect.
pub fn planned_tasks(
    item: &Item,
    metrics: &[&'static MetricSpec],
    few_shot: &[CorrectnessExample],
) -> Vec<Task> {
    let judged = judged_metrics(item, metrics);
    if judged.is_empty() {
        return Vec::new();
    }
    let needs = Needs::of(item, &judged);
    let question = item.question.clone();
    let answer = item.answer.clone().unwrap_or_default();
    let chunks: Vec<String> = item.contexts.iter().map(|c| c.text.clone()).collect();
    let aspects = if item.aspects.is_empty() {
        vec![question.clone()]
    } else {
        item.aspects.clone()
    };
    let mut tasks = Vec::new();
    if needs.aspects(item) {
        tasks.push(Task::Aspects {
            question: question.clone(),
        });
    }
    if needs.chunks {
        tasks.push(Task::ChunkRelevance {
            question: question.clone(),
            chunks: chunks.clone(),
        });
    }
    if needs.grounding {
        tasks.push(Task::Grounding {
            question: question.clone(),
            answer: answer.clone(),
            chunks: chunks.clone(),
        });
    }
    if needs.reasoning {
        tasks.push(Task::Reasoning {
            question: question.clone(),
            answer: answer.clone(),
            chunks: chunks.clone(),
        });
    }
    if needs.coverage {
        tasks.push(Task::Coverage {
            question: question.clone(),
            aspects: aspects.clone(),
            chunks: chunks.clone(),
        });
    }
    if needs.review {
        let review_aspects = if needs.completeness {
            aspects
        } else {
            Vec::new()
        };
        tasks.push(Task::AnswerReview {
            question: question.clone(),
            answer: answer.clone(),
            aspects: review_aspects,
        });
    }
    if !needs.criteria.is_empty() {
        let note = if needs.note {
            vec![question.clone()]
        } else {
            Vec::new()
        };
        tasks.push(scorecard_task(item, needs.criteria.clone(), note, few_shot));
    }
    if needs.ragchecker {
        tasks.extend(ragchecker_tasks(item, question, answer));
    }
    tasks
}

/// Evaluates `metrics` on one item. Never fails as a whole: every problem becomes the
/// result of the metric it affects.
/// The language of an item the built-in offline judge cannot read (anything but
/// English, when the item's question and answer tell clearly); `None` for any other
/// judge, or an English or unclear item.
fn foreign_to_the_offline_judge(item: &Item, judge: &dyn Judge) -> Option<String> {
    if judge.identity().kind != crate::judge::ProviderKind::Offline {
        return None;
    }
    let answer = item.answer.as_deref().unwrap_or_default();
    crate::dataset::language::guess_of(&[&item.question, answer]).filter(|l| l != "en")
}

/// An item's metrics sorted by how each is computed: judged, synthesised from the
/// others, the user's criteria, and the results of those skipped or computed at once.
struct Sorted {
    results: Vec<MetricResult>,
    judged: Vec<&'static MetricSpec>,
    synthesised: Vec<&'static MetricSpec>,
    own: Vec<&'static MetricSpec>,
}

/// Sorts `metrics` for `item`: a metric missing a field, or judged by the offline judge
/// on a language it cannot read, is skipped; a judge-free one is computed here.
fn sort_metrics(
    item: &Item,
    metrics: &[&'static MetricSpec],
    foreign: Option<&str>,
    settings: &EngineSettings,
) -> Sorted {
    let mut results: Vec<MetricResult> = Vec::with_capacity(metrics.len());
    let mut judged: Vec<&'static MetricSpec> = Vec::new();
    let mut synthesised: Vec<&'static MetricSpec> = Vec::new();
    let mut own: Vec<&'static MetricSpec> = Vec::new();
    for spec in metrics {
        let missing = metrics::missing_fields(item, spec.needs);
        if spec.family == Family::Criteria {
            // The run's recorded definition says what the criterion reads.
            own.push(spec);
        } else if !missing.is_empty() {
            results.push(MetricResult::skipped(
                spec.id,
                metrics::skip_reason(&missing),
            ));
        } else if let (true, Some(language)) = (spec.judge, foreign) {
            // Its rules read English words: on another language they would score
            // near 0 and call it a failure.
            results.push(MetricResult::skipped(
                spec.id,
                format!(
                    "not measured for this language: the item reads as {language}, and the built-in offline judge reads English only (use a language model judge)"
                ),
            ));
        } else if spec.synthesised {
            synthesised.push(spec);
        } else if spec.judge
            && !(spec.family == Family::RagChecker
                && item.has(crate::item::Field::RagCheckerLabels))
        {
            judged.push(spec);
        } else {
            results.push(metrics::compute(spec, item, &settings.metric_config));
        }
    }
    Sorted {
        results,
        judged,
        synthesised,
        own,
    }
}

/// Says on every result that was measured that the item's long fields were read from
/// their beginning, and where they were cut.
fn note_shortened(results: &mut [MetricResult], cuts: &[super::shortened::Cut]) {
    let note = super::shortened::note(cuts);
    for result in results.iter_mut().filter(|r| r.status != Status::Skipped) {
        result.explanation = format!("{} {note}", result.explanation).trim().to_string();
        if let serde_json::Value::Object(map) = &mut result.details {
            map.insert("shortened".into(), json!(cuts));
        } else {
            result.details = json!({ "shortened": cuts });
        }
    }
}

/// One item: judge-free metrics, judged phases, criteria and overalls, in the order they
/// depend on each other.
pub async fn evaluate_item(
    item_id: i64,
    item: &Item,
    metrics: &[&'static MetricSpec],
    judge: &dyn Judge,
    ctx: &CallContext,
    settings: &EngineSettings,
) -> ItemOutcome {
    // Fields past the judging limits are read from their beginning, and said so.
    let (shortened, cuts) = super::shortened::for_judging(item);
    let item: &Item = &shortened;
    let foreign = foreign_to_the_offline_judge(item, judge);
    let Sorted {
        mut results,
        judged,
        synthesised,
        own,
    } = sort_metrics(item, metrics, foreign.as_deref(), settings);
    let asker = Asker::new(judge, ctx);
    let (built_in, scored) = tokio::join!(
        async {
            if judged.is_empty() {
                Vec::new()
            } else {
                judge_metrics(item, &judged, &asker, settings).await
            }
        },
        super::criteria::evaluate(item, &own, &settings.criteria, judge, ctx),
    );
    results.extend(built_in);
    results.extend(scored.results);
    for spec in synthesised {
        results.push(overall::synthesise(spec.id, &results, &settings.weights));
    }
    if !cuts.is_empty() {
        note_shortened(&mut results, &cuts);
    }
    let (mut accounting, versions) = asker.into_spent();
    accounting.add(&scored.accounting);
    let prompt_version =
        (!versions.is_empty()).then(|| versions.into_iter().collect::<Vec<_>>().join(","));
    ItemOutcome {
        item_id,
        results,
        judge_config: judge.identity().config_key(),
        prompt_version,
        metric_versions: scored.versions,
        accounting,
    }
}

async fn judge_metrics(
    item: &Item,
    judged: &[&'static MetricSpec],
    asker: &Asker<'_>,
    settings: &EngineSettings,
) -> Vec<MetricResult> {
    let needs = Needs::of(item, judged);
    let first = ask_about_item(item, &needs, asker).await;
    let aspects_failed = first.aspects.as_ref().and_then(|a| a.as_ref().err());
    let second =
        ask_about_aspects_and_claims(item, &needs, asker, &first, &settings.few_shot).await;
    let verdicts = Verdicts {
        chunk_scores: first.chunk_scores.as_ref(),
        coverage: second.coverage.as_ref(),
        review: second.review.as_ref(),
        aspects_failed,
        grounding: first.grounding.as_ref(),
        reasoning: first.reasoning.as_ref(),
    };
    judged
        .iter()
        .map(|spec| match spec.family {
            Family::RagChecker => from(second.labels.as_ref(), spec.id, |l| {
                let mut labelled = item.clone();
                labelled.ragchecker = Some(l.clone());
                ragchecker::compute(spec.id, &labelled)
            }),
            Family::Ragxplain | Family::Ragalyst => {
                scorecard_metric(spec.id, item, settings, &first, &second)
            }
            _ => ragvue_metric(spec.id, item, settings, &verdicts),
        })
        .collect()
}

/// The texts of the item's retrieved passages, in rank order.
fn context_texts(item: &Item) -> Vec<String> {
    item.contexts
        .iter()
        .map(|c| c.text.clone())
        .collect::<Vec<_>>()
}

/// Phase one: the tasks that need no other verdict, asked together (one call for a
/// model) and read back each on its own.
async fn ask_about_item(item: &Item, needs: &Needs, asker: &Asker<'_>) -> FirstPhase {
    let question = || item.question.clone();
    let answer = || item.answer.clone().unwrap_or_default();
    let chunks = || context_texts(item);
    let user_aspects = (!item.aspects.is_empty()).then(|| item.aspects.clone());
    let asked = [
        needs.aspects(item).then(|| Task::Aspects {
            question: question(),
        }),
        needs.chunks.then(|| Task::ChunkRelevance {
            question: question(),
            chunks: chunks(),
        }),
        needs.grounding.then(|| Task::Grounding {
            question: question(),
            answer: answer(),
            chunks: chunks(),
        }),
        needs.reasoning.then(|| Task::Reasoning {
            question: question(),
            answer: answer(),
            chunks: chunks(),
        }),
        needs.ragchecker.then(|| Task::Claims {
            question: question(),
            text: item.ground_truth.clone().unwrap_or_default(),
        }),
    ];
    let mut answers = Answers::ask(asker, &asked).await;
    let read = answers.next("aspects", |v| match v {
        Verdict::Aspects {
            aspects,
            structure_note,
        } => Ok((aspects, structure_note)),
        other => Err(other.kind()),
    });
    let chunk_scores = answers.next("chunk relevance", |v| match v {
        Verdict::ChunkRelevance { chunks } => Ok(chunks),
        other => Err(other.kind()),
    });
    let grounding = answers.next("grounding", |v| match v {
        Verdict::Grounding(g) => Ok(g),
        other => Err(other.kind()),
    });
    let reasoning = answers.next("reasoning", |v| match v {
        Verdict::Reasoning(r) => Ok(r),
        other => Err(other.kind()),
    });
    let gt_claims = answers.next("claims", |v| match v {
        Verdict::Claims { claims } => Ok(claims),
        other => Err(other.kind()),
    });
    let (aspects, note) = match read {
        Some(Ok((aspects, note))) => (Some(Ok(aspects)), Some(Ok(note))),
        Some(Err(e)) => (Some(Err(e.clone())), Some(Err(e))),
        None => (None, None),
    };
    let note = note.filter(|_| needs.note);
    let aspects = aspects.filter(|_| needs.coverage || needs.completeness);
    FirstPhase {
        aspects: user_aspects.map(Ok).or(aspects),
        note,
        chunk_scores,
        grounding,
        reasoning,
        gt_claims,
    }
}

/// The answers to a phase's tasks, read back in the order the tasks were listed; a task
/// not asked (`None`) has no answer.
struct Answers<'t> {
    asked: std::slice::Iter<'t, Option<Task>>,
    answers: std::vec::IntoIter<Result<Verdict, JudgeError>>,
}

impl<'t> Answers<'t> {
    async fn ask(asker: &Asker<'_>, asked: &'t [Option<Task>]) -> Answers<'t> {
        let tasks: Vec<Task> = asked.iter().flatten().cloned().collect();
        Answers {
            asked: asked.iter(),
            answers: asker.ask_together(&tasks).await.into_iter(),
        }
    }

    /// The answer to the next listed task, `what` it is, picked out of its verdict.
    fn next<T>(
        &mut self,
        what: &str,
        pick: fn(Verdict) -> Result<T, TaskKind>,
    ) -> Option<Result<T, JudgeError>> {
        self.asked.next()?.as_ref()?;
        let answer = self.answers.next()?;
        Some(answer.and_then(|v| pick(v).map_err(|got| wrong_verdict(what, got))))
    }
}

async fn ask_about_aspects_and_claims(
    item: &Item,
    needs: &Needs,
    asker: &Asker<'_>,
    first: &FirstPhase,
    few_shot: &[CorrectnessExample],
) -> SecondPhase {
    let aspect_list = first
        .aspects
        .as_ref()
        .and_then(|a| a.as_ref().ok())
        .cloned()
        .unwrap_or_default();
    let aspects_failed = first.aspects.as_ref().and_then(|a| a.as_ref().err());
    // A failed grading note fails only grading_note (see `scorecard_metric`): the other
    // criteria are still asked.
    let note = first.note.as_ref().and_then(|n| n.as_ref().ok()).cloned();
    let criteria: Vec<Criterion> = needs
        .criteria
        .iter()
        .copied()
        .filter(|c| *c != Criterion::GradingNote || note.as_ref().is_some_and(|n| !n.is_empty()))
        .collect();
    let asked = [
        (needs.coverage && aspects_failed.is_none()).then(|| Task::Coverage {
            question: item.question.clone(),
            aspects: aspect_list.clone(),
            chunks: context_texts(item),
        }),
        // Completeness needs the aspects; the other review scores do not, so a failed
        // aspect extraction only fails completeness (see `ragvue_metric`).
        needs.review.then(|| Task::AnswerReview {
            question: item.question.clone(),
            answer: item.answer.clone().unwrap_or_default(),
            aspects: if needs.completeness {
                aspect_list.clone()
            } else {
                Vec::new()
            },
        }),
        (!criteria.is_empty())
            .then(|| scorecard_task(item, criteria.clone(), note.unwrap_or_default(), few_shot)),
    ];
    let (mut answers, labels) = tokio::join!(
        Answers::ask(asker, &asked),
        maybe(needs.ragchecker, || ragchecker_labels(
            item,
            asker,
            first.grounding.as_ref(),
            first.gt_claims.as_ref()
        )),
    );
    let coverage = answers
        .next("coverage", |v| match v {
            Verdict::Coverage { aspects } => Ok(aspects),
            other => Err(other.kind()),
        })
        .or_else(|| {
            aspects_failed
                .filter(|_| needs.coverage)
                .map(|e| Err(e.clone()))
        });
    let review = answers.next("answer review", |v| match v {
        Verdict::AnswerReview(r) => Ok(r),
        other => Err(other.kind()),
    });
    let scorecard = answers.next("scorecard", |v| match v {
        Verdict::Scorecard(card) => Ok(card),
        other => Err(other.kind()),
    });
    SecondPhase {
        coverage,
        review,
        labels,
        scorecard,
    }
}

/// Labels for RAGChecker: the answer's claims (from grounding) and the GT claims, each
/// checked against [the other text, chunk 0, chunk 1, ...] in one call per side.
async fn ragchecker_labels(
    item: &Item,
    asker: &Asker<'_>,
    grounding: Option<&Result<Grounding, JudgeError>>,
    gt_claims: Option<&Result<Vec<String>, JudgeError>>,
) -> Result<RagCheckerLabels, JudgeError> {
    let response_claims: Vec<String> = match grounding {
        Some(Ok(g)) => g.claims.iter().map(|c| c.claim.clone()).collect(),
        Some(Err(e)) => return Err(e.clone()),
        None => Vec::new(),
    };
    let gt_claims = match gt_claims {
        Some(Ok(c)) => c.clone(),
        Some(Err(e)) => return Err(e.clone()),
        None => Vec::new(),
    };
    let chunks: Vec<String> = item.contexts.iter().map(|c| c.text.clone()).collect();
    let gt = item.ground_truth.clone().unwrap_or_default();
    let answer = item.answer.clone().unwrap_or_default();
    let ((answer2response, retrieved2response), (response2answer, retrieved2answer)) =
        if asker.judge.weighs_passages_together() {
            // Against the other text and against the chunks apart: read together, the
            // ground truth would vouch for every claim it states as if a chunk did.
            let (a2r, ret2r, r2a, ret2a) = tokio::join!(
                label_matrix(asker, &response_claims, vec![gt]),
                label_matrix(asker, &response_claims, chunks.clone()),
                label_matrix(asker, &gt_claims, vec![answer]),
                label_matrix(asker, &gt_claims, chunks),
            );
            let first = |rows: Vec<Vec<Label>>| rows.into_iter().map(|r| r[0]).collect();
            ((first(a2r?), ret2r?), (first(r2a?), ret2a?))
        } else {
            // One call per side: the other text, then the chunks, each labelled on its own.
            let with = |first: &str| {
                std::iter::once(first.to_string())
                    .chain(chunks.iter().cloned())
                    .collect::<Vec<_>>()
            };
            let (response_side, gt_side) = tokio::join!(
                label_matrix(asker, &response_claims, with(&gt)),
                label_matrix(asker, &gt_claims, with(&answer)),
            );
            let split = |rows: Vec<Vec<Label>>| -> (Vec<Label>, Vec<Vec<Label>>) {
                rows.into_iter().map(|r| (r[0], r[1..].to_vec())).unzip()
            };
            (split(response_side?), split(gt_side?))
        };
    Ok(RagCheckerLabels {
        response_claims: Some(response_claims),
        gt_answer_claims: Some(gt_claims),
        answer2response: Some(answer2response),
        response2answer: Some(response2answer),
        retrieved2response: Some(retrieved2response),
        retrieved2answer: Some(retrieved2answer),
    })
}

async fn label_matrix(
    asker: &Asker<'_>,
    claims: &[String],
    passages: Vec<String>,
) -> Result<Vec<Vec<Label>>, JudgeError> {
    if claims.is_empty() {
        return Ok(Vec::new());
    }
    if passages.is_empty() {
        return Ok(vec![Vec::new(); claims.len()]);
    }
    let width = passages.len();
    match asker
        .ask(Task::ClaimLabels {
            claims: claims.to_vec(),
            passages,
        })
        .await?
    {
        Verdict::ClaimLabels { labels }
            if labels.len() == claims.len() && labels.iter().all(|r| r.len() == width) =>
        {
            Ok(labels)
        }
        Verdict::ClaimLabels { .. } => Err(JudgeError::Unparseable {
            message: "the label matrix does not match the claims and passages".into(),
            raw: String::new(),
            spent: None,
        }),
        other => Err(wrong_verdict("claim labels", other.kind())),
    }
}

async fn maybe<T, F, Fut>(needed: bool, f: F) -> Option<Result<T, JudgeError>>
where
    F: FnOnce() -> Fut,
    Fut: std::future::Future<Output = Result<T, JudgeError>>,
{
    if needed {
        Some(f().await)
    } else {
        None
    }
}
