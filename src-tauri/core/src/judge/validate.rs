//! Checks a deserialised verdict against the task it answers: one entry per chunk,
//! aspect or claim; indices in range; scores in [0, 1]; known labels. Small overshoots
//! of a score are clamped, quotes longer than the prompt allows are shortened, aspect
//! texts are restored from the task; anything else wrong is an error sentence that the
//! repair request shows the judge. Pure; knows nothing about HTTP or prompts.

use std::collections::HashSet;

use super::task::{
    AnswerReview, AspectAddressed, AspectCoverage, ChunkScore, Grounding, Task, Verdict,
};
use crate::item::Label;

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
        (Task::Aspects { .. }, Verdict::Aspects { aspects }) => needs(aspects),
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
        (task, verdict) => Err(format!(
            "the reply answers a {} task, not {}",
            verdict.kind().as_str(),
            task.kind().as_str()
        )),
    }
}

/// The question's information needs: trimmed, distinct, at most five, at least one.
fn needs(aspects: Vec<String>) -> Result<Verdict, String> {
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
    Ok(Verdict::Aspects { aspects })
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
