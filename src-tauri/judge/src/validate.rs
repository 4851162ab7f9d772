//! Checks a deserialised verdict against the task it answers: one entry per chunk,
//! aspect or claim; indices in range; scores in [0, 1]; known labels. Small overshoots
//! of a score are clamped, quotes longer than the prompt allows are shortened, aspect
//! texts are restored from the task; anything else wrong is an error sentence that the
//! repair request shows the judge. Pure; knows nothing about HTTP or prompts.

use std::collections::HashSet;

use super::task::{
    AdviceTask, AdviceVerdict, AnswerReview, AspectAddressed, AspectCoverage, ChunkScore,
    Criterion, Grounding, InsightsTask, InsightsVerdict, Scorecard, ScorecardTask, Task, Verdict,
    FAILURE_CATEGORIES, TAXONOMY_BELOW,
};
use ragnosis_types::item::Label;

/// How far outside [0, 1] a score may stray and still be clamped rather than rejected.
const SCORE_TOLERANCE: f64 = 0.05;

pub const CONTRADICTION_KINDS: [&str; 6] = [
    "dropped_qualifier",
    "scope_shift",
    "negation_flip",
    "temporal_misattribution",
    "causal_reversal",
    "magnitude_shift",
];
const SEVERITIES: [&str; 3] = ["low", "medium", "high"];

/// Returns the verdict, tidied, when it fits the task.
pub fn validate(task: &Task, verdict: Verdict) -> Result<Verdict, String> {
    match (task, verdict) {
        (
            Task::Aspects { .. },
            Verdict::Aspects {
                aspects,
                structure_note,
            },
        ) => needs(aspects, structure_note),
        (Task::ChunkRelevance { chunks: asked, .. }, Verdict::ChunkRelevance { chunks }) => {
            chunk_relevance(asked, chunks)
        }
        (
            Task::Coverage {
                aspects: asked,
                chunks,
                ..
            },
            Verdict::Coverage { aspects },
        ) => coverage(asked, chunks.len(), aspects),
        (Task::AnswerReview { aspects: asked, .. }, Verdict::AnswerReview(review)) => {
            answer_review(asked, review)
        }
        (Task::Grounding { chunks, .. }, Verdict::Grounding(g)) => grounding(chunks.len(), g),
        (Task::Reasoning { chunks, .. }, Verdict::Reasoning(r)) => {
            for hop in &r.hops {
                optional_index("hops[].chunk", hop.chunk, chunks.len())?;
            }
            Ok(Verdict::Reasoning(r))
        }
        (Task::Claims { .. }, Verdict::Claims { claims }) => {
            let claims = claims
                .into_iter()
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect();
            Ok(Verdict::Claims { claims })
        }
        (Task::ClaimLabels { claims, passages }, Verdict::ClaimLabels { labels }) => {
            claim_labels(claims.len(), passages.len(), labels)
        }
        (Task::Scorecard(asked), Verdict::Scorecard(card)) => scorecard(asked, card),
        (Task::Insights(asked), Verdict::Insights(reply)) => insights(asked, reply),
        // An empty draft is an answer too: the agent found nothing to ask or answer.
        (Task::DraftQuestion { .. }, Verdict::DraftQuestion { question }) => {
            Ok(Verdict::DraftQuestion {
                question: one_line(&question, "question")?,
            })
        }
        (Task::DraftAnswer { .. }, Verdict::DraftAnswer { answer }) => Ok(Verdict::DraftAnswer {
            answer: one_line(&answer, "answer")?,
        }),
        (Task::Criterion(asked), Verdict::Criterion(v)) => criterion(asked.scale, v),
        (Task::Advice(asked), Verdict::Advice(reply)) => advice(asked, reply),
        (task, verdict) => Err(format!(
            "the reply answers a {} task, not {}",
            verdict.kind().as_str(),
            task.kind().as_str()
        )),
    }
}

/// A score on the criterion's scale (pass/fail 0 or 1, a whole 1–5, or 0–1 with small
/// overshoots clamped) and a reason; a model must give both.
fn criterion(
    scale: ragnosis_types::criterion::Scale,
    mut v: super::task::CriterionVerdict,
) -> Result<Verdict, String> {
    use ragnosis_types::criterion::Scale;
    v.reasoning = v.reasoning.trim().to_string();
    if v.reasoning.is_empty() {
        return Err("\"reasoning\" is empty: say in a sentence why the item gets its score".into());
    }
    let Some(score) = v.score else {
        return Err(format!(
            "\"score\" is missing: give a number on the {} scale",
            scale.as_str()
        ));
    };
    let score = match scale {
        Scale::Unit => unit("score", score)?,
        Scale::PassFail | Scale::OneToFive if scale.holds(score) => score,
        Scale::PassFail => {
            return Err(format!(
                "\"score\" must be 1 (pass) or 0 (fail), got {score}"
            ))
        }
        Scale::OneToFive => {
            return Err(format!(
                "\"score\" must be a whole number from 1 to 5, got {score}"
            ))
        }
    };
    v.score = Some(score);
    Ok(Verdict::Criterion(v))
}

/// Advice cites only items the facts name, and says something: the paragraphs are
/// trimmed, empty ones dropped, and a reply with none, with an item the run's facts do
/// not contain, or with more than a reader would read is refused (and asked again once).
fn advice(asked: &AdviceTask, reply: AdviceVerdict) -> Result<Verdict, String> {
    let answer: Vec<String> = reply
        .answer
        .iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect();
    if answer.is_empty() {
        return Err("\"answer\" holds no paragraph".into());
    }
    if answer.len() > 12 || answer.iter().any(|p| p.chars().count() > 1500) {
        return Err("the answer is longer than two to six short paragraphs".into());
    }
    let mut items = reply.items;
    for paragraph in &answer {
        for named in named_items(paragraph) {
            if !items.contains(&named) {
                items.push(named);
            }
        }
    }
    if let Some(unknown) = items.iter().find(|i| !asked.items.contains(i)) {
        return Err(format!(
            "item {unknown} is not in the run's facts; cite only the items listed in \"items\""
        ));
    }
    Ok(Verdict::Advice(AdviceVerdict { answer, items }))
}

/// The numbers of the "[item N]" mentions in a paragraph.
fn named_items(text: &str) -> Vec<i64> {
    text.split("[item ")
        .skip(1)
        .filter_map(|rest| rest.split(']').next()?.trim().parse().ok())
        .collect()
}

/// A drafted question or answer: trimmed, spaces collapsed, and of a length a test case
/// can use (a reply of pages is not a question).
fn one_line(text: &str, what: &str) -> Result<String, String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().count() > 1_000 {
        return Err(format!(
            "the {what} is {} characters long; keep it under 1000",
            text.chars().count()
        ));
    }
    Ok(text)
}

/// The question's information needs: trimmed, distinct, at most five, at least one; the
/// grading note trimmed to at most three points (the prompt asks for one or two).
fn needs(aspects: Vec<String>, structure_note: Vec<String>) -> Result<Verdict, String> {
    let mut seen = HashSet::new();
    let aspects: Vec<String> = aspects
        .into_iter()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty() && seen.insert(a.to_lowercase()))
        .take(5)
        .collect();
    if aspects.is_empty() {
        return Err("\"aspects\" must list at least one information need".into());
    }
    let structure_note = structure_note
        .into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .take(3)
        .collect();
    Ok(Verdict::Aspects {
        aspects,
        structure_note,
    })
}

/// Exactly the criteria asked, each once, in the task's order; rubric scores on the
/// 0.2 grid; the failure taxonomy complete when correctness is below 0.9, else dropped.
fn scorecard(asked: &ScorecardTask, mut card: Scorecard) -> Result<Verdict, String> {
    let mut scores = Vec::with_capacity(asked.criteria.len());
    for criterion in &asked.criteria {
        let mut found = card.scores.iter().filter(|s| s.criterion == *criterion);
        let Some(score) = found.next() else {
            return Err(format!(
                "\"scores\" has no entry for {}",
                criterion.as_str()
            ));
        };
        if found.next().is_some() {
            return Err(format!("{} is scored twice", criterion.as_str()));
        }
        let mut score = score.clone();
        score.score = unit(criterion.as_str(), score.score)?;
        if criterion.is_rubric() {
            score.score = on_rubric(score.score);
        }
        scores.push(score);
    }
    if let Some(extra) = card
        .scores
        .iter()
        .find(|s| !asked.criteria.contains(&s.criterion))
    {
        return Err(format!(
            "{} was not asked for; score only the listed criteria",
            extra.criterion.as_str()
        ));
    }
    let low_correctness = scores
        .iter()
        .any(|s| s.criterion == Criterion::AnswerCorrectness && s.score < TAXONOMY_BELOW);
    if asked.taxonomy && low_correctness {
        for check in &card.failures {
            if !FAILURE_CATEGORIES.contains(&check.category.as_str()) {
                return Err(format!(
                    "failure category {:?} is not one of {}",
                    check.category,
                    FAILURE_CATEGORIES.join(", ")
                ));
            }
        }
        let mut ordered = Vec::with_capacity(FAILURE_CATEGORIES.len());
        for category in FAILURE_CATEGORIES {
            let Some(check) = card.failures.iter().find(|f| f.category == category) else {
                return Err(format!(
                    "\"failures\" must check every category; {category} is missing"
                ));
            };
            ordered.push(check.clone());
        }
        card.failures = ordered;
    } else {
        card.failures.clear();
    }
    card.scores = scores;
    Ok(Verdict::Scorecard(card))
}

/// The most action items a run's advice lists: more would bury the first fix.
pub const MAX_ACTIONS: usize = 4;

/// One insight per metric asked about and none for others; at most four actions, each
/// naming a metric that ran and a question that exists in the run; actions ordered high
/// to low impact.
fn insights(asked: &InsightsTask, mut reply: InsightsVerdict) -> Result<Verdict, String> {
    let ran: HashSet<&str> = asked
        .metrics
        .iter()
        .map(|m| m.metric.as_str())
        .chain(asked.baseline.iter().map(|a| a.metric.as_str()))
        .collect();
    let questions: HashSet<&str> = asked
        .metrics
        .iter()
        .flat_map(|m| m.low.iter().chain(&m.high))
        .map(|i| i.question.trim())
        .chain(asked.baseline.iter().map(|a| a.example_question.trim()))
        .collect();
    let mut ordered = Vec::with_capacity(asked.metrics.len());
    for brief in &asked.metrics {
        let Some(found) = reply.insights.iter().find(|i| i.metric == brief.metric) else {
            return Err(format!("\"insights\" has no entry for {}", brief.metric));
        };
        if found.text.trim().is_empty() {
            return Err(format!("the insight for {} is empty", brief.metric));
        }
        ordered.push(found.clone());
    }
    if let Some(other) = reply
        .insights
        .iter()
        .find(|i| !asked.metrics.iter().any(|m| m.metric == i.metric))
    {
        return Err(format!(
            "the insight names {:?}, which is not a metric of this run's data",
            other.metric
        ));
    }
    reply.insights = ordered;
    if reply.actions.len() > MAX_ACTIONS {
        return Err(format!(
            "there are {} action items; give at most {MAX_ACTIONS}",
            reply.actions.len()
        ));
    }
    for action in &mut reply.actions {
        if !["high", "medium", "low"].contains(&action.impact.as_str()) {
            return Err(format!(
                "impact {:?} is not high, medium or low",
                action.impact
            ));
        }
        if !ran.contains(action.metric.as_str()) {
            return Err(format!(
                "the action item \"{}\" names {:?}, a metric that did not run",
                action.title, action.metric
            ));
        }
        if !questions.contains(action.example_question.trim()) {
            return Err(format!(
                "the example question {:?} is not a question of this run; copy one from the data",
                action.example_question
            ));
        }
        action.example_question = action.example_question.trim().to_string();
    }
    let rank = |impact: &str| ["high", "medium", "low"].iter().position(|i| *i == impact);
    reply.actions.sort_by_key(|a| rank(&a.impact));
    Ok(Verdict::Insights(reply))
}

/// The nearest step of RAGXplain's rubric {0.2, 0.4, 0.6, 0.8, 1.0}: its lowest band is
/// 0.2, so a judge's 0 reads as 0.2.
pub fn on_rubric(x: f64) -> f64 {
    ((x * 5.0).round() / 5.0).clamp(0.2, 1.0)
}

/// One score per chunk asked about, each chunk once, sorted by index.
fn chunk_relevance(asked: &[String], mut chunks: Vec<ChunkScore>) -> Result<Verdict, String> {
    expect_count("chunk scores in \"chunks\"", asked.len(), chunks.len())?;
    let mut seen = HashSet::new();
    for c in &mut chunks {
        index_in_range("chunks[].index", c.index, asked.len())?;
        if !seen.insert(c.index) {
            return Err(format!("chunk index {} is scored twice", c.index));
        }
        c.relevance = unit("relevance", c.relevance)?;
    }
    chunks.sort_by_key(|c| c.index);
    Ok(Verdict::ChunkRelevance { chunks })
}

fn coverage(
    asked: &[String],
    chunk_count: usize,
    aspects: Vec<AspectCoverage>,
) -> Result<Verdict, String> {
    expect_count("entries in \"aspects\"", asked.len(), aspects.len())?;
    let mut aspects = align(asked, aspects, |a| &a.aspect, |a, text| a.aspect = text);
    for a in &mut aspects {
        optional_index("aspects[].chunk", a.chunk, chunk_count)?;
        tidy_coverage(a);
    }
    Ok(Verdict::Coverage { aspects })
}

fn answer_review(asked: &[String], mut review: AnswerReview) -> Result<Verdict, String> {
    review.relevance = unit("relevance", review.relevance)?;
    review.clarity = unit("clarity", review.clarity)?;
    review.coherence = unit("coherence", review.coherence)?;
    review.conciseness = unit("conciseness", review.conciseness)?;
    if asked.is_empty() {
        review.aspects.clear();
    } else {
        expect_count("entries in \"aspects\"", asked.len(), review.aspects.len())?;
        let aspects = std::mem::take(&mut review.aspects);
        review.aspects = align(asked, aspects, |a| &a.aspect, |a, text| a.aspect = text);
        review.aspects.iter_mut().for_each(tidy_addressed);
    }
    Ok(Verdict::AnswerReview(review))
}

/// Chunk references in range, empty claims dropped, contradictions of known kinds.
fn grounding(chunk_count: usize, mut g: Grounding) -> Result<Verdict, String> {
    for claim in &g.claims {
        optional_index("claims[].chunk", claim.chunk, chunk_count)?;
    }
    g.claims.retain(|c| !c.claim.trim().is_empty());
    for &i in &g.used_chunks {
        index_in_range("used_chunks", i, chunk_count)?;
    }
    g.used_chunks.sort_unstable();
    g.used_chunks.dedup();
    for c in &g.contradictions {
        if !CONTRADICTION_KINDS.contains(&c.kind.as_str()) {
            return Err(format!(
                "contradiction kind {:?} is not one of {}",
                c.kind,
                CONTRADICTION_KINDS.join(", ")
            ));
        }
        if !SEVERITIES.contains(&c.severity.as_str()) {
            return Err(format!(
                "contradiction severity {:?} is not low, medium or high",
                c.severity
            ));
        }
    }
    Ok(Verdict::Grounding(g))
}

/// One row per claim, one label per passage in every row.
fn claim_labels(
    claims: usize,
    passages: usize,
    labels: Vec<Vec<Label>>,
) -> Result<Verdict, String> {
    expect_count("rows in \"labels\" (one per claim)", claims, labels.len())?;
    for (i, row) in labels.iter().enumerate() {
        if row.len() != passages {
            return Err(format!(
                "row {i} of \"labels\" has {} labels but there are {passages} passages",
                row.len(),
            ));
        }
    }
    Ok(Verdict::ClaimLabels { labels })
}

/// A score in [0, 1]; tiny overshoots are clamped, NaN and infinities rejected.
fn unit(name: &str, x: f64) -> Result<f64, String> {
    if !x.is_finite() || !(-SCORE_TOLERANCE..=1.0 + SCORE_TOLERANCE).contains(&x) {
        return Err(format!(
            "\"{name}\" must be a number between 0 and 1, got {x}"
        ));
    }
    Ok(x.clamp(0.0, 1.0))
}

fn expect_count(what: &str, expected: usize, got: usize) -> Result<(), String> {
    if expected == got {
        Ok(())
    } else {
        Err(format!("expected {expected} {what}, got {got}"))
    }
}

fn index_in_range(field: &str, index: usize, len: usize) -> Result<(), String> {
    if index < len {
        Ok(())
    } else if len == 0 {
        Err(format!(
            "\"{field}\" refers to chunk {index} but there are no chunks"
        ))
    } else {
        Err(format!("\"{field}\" is {index}, outside 0..={}", len - 1))
    }
}

fn optional_index(field: &str, index: Option<usize>, len: usize) -> Result<(), String> {
    index.map_or(Ok(()), |i| index_in_range(field, i, len))
}

/// Puts the entries in the task's aspect order and restores the task's aspect texts.
/// Entries are matched by text when every aspect is found, else taken in order.
fn align<T>(
    task_aspects: &[String],
    mut entries: Vec<T>,
    text: impl Fn(&T) -> &String,
    set_text: impl Fn(&mut T, String),
) -> Vec<T> {
    let key = |s: &str| s.trim().to_lowercase();
    let mut order = Vec::with_capacity(task_aspects.len());
    for aspect in task_aspects {
        let found = entries
            .iter()
            .enumerate()
            .position(|(i, e)| !order.contains(&i) && key(text(e)) == key(aspect));
        match found {
            Some(i) => order.push(i),
            None => break,
        }
    }
    if order.len() == task_aspects.len() {
        let mut slots: Vec<Option<T>> = entries.into_iter().map(Some).collect();
        entries = order
            .into_iter()
            .map(|i| slots[i].take().expect("each entry used once"))
            .collect();
    }
    for (entry, aspect) in entries.iter_mut().zip(task_aspects) {
        set_text(entry, aspect.clone());
    }
    entries
}

fn tidy_coverage(a: &mut AspectCoverage) {
    if a.covered {
        a.evidence = first_words(&a.evidence, 10);
    } else {
        a.chunk = None;
        a.evidence.clear();
    }
}

fn tidy_addressed(a: &mut AspectAddressed) {
    a.evidence = if a.addressed {
        first_words(&a.evidence, 20)
    } else {
        String::new()
    };
}

fn first_words(text: &str, n: usize) -> String {
    text.split_whitespace()
        .take(n)
        .collect::<Vec<_>>()
        .join(" ")
}
