//! Action items from failure patterns: a fixed rule table, written for readers who do
//! not build models. Used when there is no judge to write insights (offline), and as the
//! deterministic baseline otherwise.
//!
//! Owns: the text of every action, the impact rule and the ranking. Pure: questions for
//! the examples are passed in, so nothing here touches the store.
//!
//! Impact of a pattern, from the share of checked items it affects and its fix order
//! (earlier stages starve every later one, so the same share matters more upstream):
//!
//! | fix order                    | High    | Medium  | Low    |
//! |------------------------------|---------|---------|--------|
//! | retrieval (A, B)             | ≥ 10 %  | ≥ 3 %   | below  |
//! | grounding (C–F, I)           | ≥ 15 %  | ≥ 5 %   | below  |
//! | generation (G, H, J)         | ≥ 25 %  | ≥ 10 %  | below  |
//!
//! The share compared is the lower end of its Wilson 95% interval, not the raw share: on
//! eight items one failure is 12.5%, yet the run cannot tell that apart from 2%, and
//! calling every pattern of a small run "High" ranks nothing. On large runs the bound is
//! the share itself.
//!
//! Ranking: impact (High → Low), then fix order (METRICS.md: retrieval before grounding
//! before generation), then more items affected, then letter; the first action is the
//! diagnosis's "fix first". One action item per pattern that has items. With no pattern at all, a single
//! note says so, and names the patterns that could not be checked, so an empty list is
//! never left unexplained and a clarity-only run does not read as a clean bill of health.

use std::cmp::Reverse;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::patterns::{FailurePattern, MetricScore};
use super::PatternSummary;
use crate::analysis::stats::wilson_95;

/// The most action items a diagnosis lists: one per pattern, so every pattern with
/// items has its fix (ranked, so the first fix still comes first).
pub const MAX_ACTIONS: usize = FailurePattern::ALL.len();

/// (High, Medium) share thresholds per fix order; see the module documentation.
const THRESHOLDS: [(f64, f64); 3] = [(0.10, 0.03), (0.15, 0.05), (0.25, 0.10)];

/// How much fixing an action's pattern would change: from its share of checked items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Impact {
    High,
    Medium,
    Low,
    /// Only on the note that says no pattern was found: there is nothing to fix.
    None,
}

impl Impact {
    /// The serialised name: "high", "medium", "low", "none".
    pub fn as_str(self) -> &'static str {
        match self {
            Impact::High => "high",
            Impact::Medium => "medium",
            Impact::Low => "low",
            Impact::None => "none",
        }
    }

    /// Sort key: High first.
    pub fn rank(self) -> u8 {
        match self {
            Impact::High => 0,
            Impact::Medium => 1,
            Impact::Low => 2,
            Impact::None => 3,
        }
    }
}

/// The real question an action item points at, with the scores that flagged it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActionExample {
    /// The item's row id in the store, for opening its case.
    pub item_id: i64,
    /// The item's full question.
    pub question: String,
    /// The scores that flagged it.
    pub scores: Vec<MetricScore>,
}

impl ActionExample {
    /// The question with the scores that flagged it, as the reports and the terminal quote
    /// it: "Can I return …? (ragvue.strict_faithfulness 0.250)".
    pub fn quoted(&self) -> String {
        let scores: Vec<String> = self
            .scores
            .iter()
            .map(|s| format!("{} {:.3}", s.metric, s.score))
            .collect();
        if scores.is_empty() {
            self.question.clone()
        } else {
            format!("{} ({})", self.question, scores.join(", "))
        }
    }
}

/// One thing to fix, ranked by impact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ActionItem {
    /// `None` for the "no systematic failure found" note.
    pub pattern: Option<FailurePattern>,
    pub impact: Impact,
    /// The fix in a few words.
    pub title: String,
    /// "In N of M checked items (P%), …": what went wrong and how often.
    pub whats_wrong: String,
    /// Why the pattern happens in a RAG pipeline.
    pub why: String,
    /// The pattern's worst item; `None` on the note or when its question is not known.
    pub example: Option<ActionExample>,
    /// What to change, in concrete steps.
    pub how_to_fix: String,
    /// Items the pattern fired on; 0 on the note.
    pub count: u64,
    /// `count` over the checked items, in [0, 1]; 0 on the note.
    pub share: f64,
}

/// One row of the rule table. `wrong` continues "In N of M checked items (P%), ".
struct Rule {
    title: &'static str,
    wrong: &'static str,
    why: &'static str,
    fix: &'static str,
}

// long: a table: the advice text of every failure pattern, one match arm each
fn rule(pattern: FailurePattern) -> Rule {
    match pattern {
        FailurePattern::RetrievalMiss => Rule {
            title: "Retrieve better passages: the search often misses the answer",
            wrong: "most retrieved passages were off-topic and together they covered less than half of what the \
                    question asks, so the model had nothing correct to answer from.",
            why: "The search step fetches too few passages, ranks passages that merely share words with the question \
                  above the ones that hold the answer, or works on chunks cut so that a topic and its facts land in \
                  different pieces. Sometimes the document with the answer is not indexed at all.",
            fix: "Retrieve more candidates (raise top-k from 3–5 to 20) and add a reranker (a cross-encoder such as \
                  bge-reranker or Cohere Rerank) that keeps the best 5. Add keyword search beside vector search \
                  (hybrid BM25 + embeddings) so names, product codes and numbers are found. Re-chunk at 300–500 \
                  tokens with 10–20% overlap, splitting on headings and paragraphs rather than mid-sentence. Check \
                  that the documents the example question needs are in the index.",
        },
        FailurePattern::ContextIgnored => Rule {
            title: "Make the model use the passages it is given",
            wrong: "useful passages were retrieved, but the answer drew on fewer than half of them.",
            why: "The prompt does not tell the model to rely on the passages, the useful ones sit in the middle of a \
                  long prompt where models read least carefully, or the model prefers what it already believes.",
            fix: "Add to the prompt: \"Answer only from the numbered passages below and use every passage that is \
                  relevant to the question.\" Put the passages right before the question, most relevant first, and \
                  send fewer of them (the best 3–5 after reranking) so the useful ones are not lost in the middle. \
                  Ask for the passage number after each fact, e.g. [2], so you can see which ones were used.",
        },
        FailurePattern::Hallucination => Rule {
            title: "Stop the model from stating facts that are not in the passages",
            wrong: "fewer than half of the answer's statements were backed by the retrieved passages; names, dates \
                    or numbers were made up or changed.",
            why: "When the passages are thin or off-topic, the model fills the gap from memory or guesses, and \
                  nothing in the prompt forbids it. A high sampling temperature makes this worse.",
            fix: "Add to the prompt: \"Use only facts stated in the passages. If the passages do not contain the \
                  answer, say: I don't know based on the provided documents.\" Set the temperature to 0–0.2. \
                  Require a passage number after every sentence and regenerate answers with sentences that cite \
                  nothing. If the example's passages lack the answer, fix retrieval first.",
        },
        FailurePattern::OverConfidence => Rule {
            title: "Let the system say \"I don't know\" when the documents do not answer",
            wrong: "the system answered although the retrieved passages did not hold the answer, so what it said \
                    came from memory or a guess.",
            why: "The prompt asks for an answer every time and gives no rule for when to decline, so the model \
                  guesses instead of admitting the passages are not enough.",
            fix: "Add an abstention rule to the prompt: \"If the passages do not contain enough information to \
                  answer, reply exactly: The documents do not answer this question. Do not guess.\" Add a \
                  retrieval gate: when the best reranker score is below a cut-off you pick from 20–30 labelled \
                  questions, return that reply without calling the model. Count correct refusals as successes in \
                  your test set so the system is not pushed to answer anyway.",
        },
        FailurePattern::WrongRefusal => Rule {
            title: "Stop the system from declining questions its documents answer",
            wrong: "the system declined to answer although the retrieved passages held the answer.",
            why: "The refusal rule in the prompt is too strict or too vague (\"only answer if you are certain\"), \
                  the passages holding the answer sit where the model reads least (the middle of a long prompt), \
                  or they state the answer in other words than the question uses, so the model does not \
                  recognise it.",
            fix: "Loosen the refusal rule: \"Decline only when no passage contains the information asked for; if \
                  a passage answers part of the question, answer that part and say what is missing.\" Put the \
                  best-ranked passages first and send fewer of them (3–5 after reranking). Check the example: \
                  the passage that answers it is quoted in the case view. Do not add \"do not guess\" rules \
                  here — they make this worse.",
        },
        FailurePattern::MultiHopFailure => Rule {
            title: "Handle questions that need several facts combined",
            wrong: "a question that needs several facts combined got an answer whose chain of reasoning broke: a \
                    step was not backed by the passages or did not follow from the step before.",
            why: "Questions that combine facts (comparisons, \"who … and where …\", totals) need every piece \
                  retrieved and linked. One search usually finds only the first piece, and the model bridges the \
                  gap with a guess.",
            fix: "Split compound questions into sub-questions and search once per sub-question (query \
                  decomposition), then answer from the merged passages. Raise top-k to 10–20 for such questions. \
                  Add to the prompt: \"Work step by step: state each fact you use with its passage number, and \
                  give the final answer only after all the facts.\"",
        },
        FailurePattern::SubtleDistortion => Rule {
            title: "Keep qualifiers, numbers and dates exactly as written",
            wrong: "the answer contradicted the passages on a detail: it flipped a negation, used the opposite word \
                    (open for closed, before for after), or shifted a number or date.",
            why: "Models paraphrase, and paraphrase smooths away exceptions and limits. Long passages full of \
                  figures make it easy to attach the wrong number or date to a fact.",
            fix: "Add to the prompt: \"Keep numbers, dates, units, negations and words like only, usually and \
                  except exactly as they appear in the passages; quote the passage when in doubt.\" Set the \
                  temperature to 0–0.2. Use smaller chunks (200–400 tokens) so each fact stays next to its \
                  qualifier, and keep table headers with their rows when chunking.",
        },
        FailurePattern::GenerationQuality => Rule {
            title: "Make answers clearer and shorter",
            wrong: "the answer scored below 0.5 on coherence, clarity or conciseness: it contradicted itself, was \
                    hard to follow, or repeated itself and padded.",
            why: "The prompt gives no guidance on length or form, the max-token limit lets the model ramble (or is \
                  so low that answers stop mid-sentence), or the model is too small for long passages.",
            fix: "Add to the prompt: \"Start with the direct answer. Use at most three short sentences, or a short \
                  bulleted list for steps. Do not repeat the question or add filler.\" Set max tokens to about \
                  200–300 for short-answer questions; if answers are cut off, raise it instead. If answers stay \
                  muddled with a clear prompt, try a larger model.",
        },
        FailurePattern::Incomplete => Rule {
            title: "Cover every part of the question",
            wrong: "the answer addressed less than 60% of the question's parts.",
            why: "Questions with several parts (what and why, lists, comparisons) need an answer to each part. \
                  Either retrieval found material for only some parts, or the model stopped after the first part \
                  it could answer.",
            fix: "Search once per part: rewrite the question into one query per part (query expansion) and merge \
                  the results; raise top-k to 10–15. Raise chunk overlap to 15–20% so lists and explanations are \
                  not split across chunks. Add to the prompt: \"Answer every part of the question. If the passages \
                  do not cover a part, say which part is missing.\"",
        },
        FailurePattern::CitationFailure => Rule {
            title: "Make the answer cite the passage it used",
            wrong: "the answer cited the wrong passage, several passages where one was expected, or none.",
            why: "The prompt does not ask for a citation in a fixed form, the passages are not numbered the way \
                  the citation format expects, or the model cites every passage it was shown to be safe.",
            fix: "Number the passages in the prompt with their ids ([W01], [W02], ...) and add: \"After each fact, \
                  cite the one passage it comes from in brackets, e.g. [W01]. Cite only passages you used.\" \
                  Check that the citation pattern Ragnosis reads (Settings or --citation-pattern) matches your \
                  format.",
        },
    }
}

/// Impact of a pattern on `count` of `checked` items; see the module documentation.
pub fn impact(pattern: FailurePattern, count: u64, checked: u64) -> Impact {
    let (high, medium) = THRESHOLDS[pattern.fix_order() as usize];
    let share = wilson_95(count, checked).map_or(0.0, |(low, _)| low);
    if share >= high {
        Impact::High
    } else if share >= medium {
        Impact::Medium
    } else {
        Impact::Low
    }
}

/// The ranking key of a pattern's action; see the module documentation. The diagnosis's
/// primary stage is the stage of the pattern with the smallest key.
pub fn priority(
    summary: &PatternSummary,
    items_checked: u64,
) -> (u8, u8, Reverse<u64>, FailurePattern) {
    (
        impact(summary.pattern, summary.count, items_checked).rank(),
        summary.pattern.fix_order(),
        Reverse(summary.count),
        summary.pattern,
    )
}

/// Action items for a run's patterns, ranked and capped; `unchecked` are the patterns no
/// item could be checked for; `questions` maps the worst example item of each pattern to
/// its question.
pub fn plan(
    patterns: &[PatternSummary],
    items_checked: u64,
    unchecked: &[FailurePattern],
    questions: &BTreeMap<i64, String>,
) -> Vec<ActionItem> {
    let mut ranked: Vec<&PatternSummary> = patterns.iter().filter(|p| p.count > 0).collect();
    if ranked.is_empty() {
        return vec![no_failure_note(items_checked, unchecked)];
    }
    ranked.sort_by_key(|p| priority(p, items_checked));
    ranked
        .into_iter()
        .take(MAX_ACTIONS)
        .map(|p| action(p, items_checked, questions))
        .collect()
}

fn action(
    summary: &PatternSummary,
    items_checked: u64,
    questions: &BTreeMap<i64, String>,
) -> ActionItem {
    let rule = rule(summary.pattern);
    let example = summary.examples.first().and_then(|worst| {
        questions.get(&worst.item_id).map(|question| ActionExample {
            item_id: worst.item_id,
            question: question.clone(),
            scores: worst.scores.clone(),
        })
    });
    ActionItem {
        pattern: Some(summary.pattern),
        impact: impact(summary.pattern, summary.count, items_checked),
        title: rule.title.to_string(),
        whats_wrong: format!(
            "In {} of {items_checked} checked items ({}), {}",
            summary.count,
            percent(summary.share),
            rule.wrong
        ),
        why: rule.why.to_string(),
        example,
        how_to_fix: rule.fix.to_string(),
        count: summary.count,
        share: summary.share,
    }
}

fn no_failure_note(items_checked: u64, unchecked: &[FailurePattern]) -> ActionItem {
    let (title, wrong, why, fix) = if items_checked == 0 {
        (
            "No item could be checked for failure patterns",
            "No item has an ok score for the metrics the failure patterns read.".to_string(),
            "Those metrics were not selected, or every one of them errored or was skipped on every item.",
            "Run the RAGVUE metrics (retrieval_relevance, retrieval_coverage, strict_faithfulness and the others) \
             and look at the error list of this run if they failed.",
        )
    } else if !unchecked.is_empty() {
        let names: Vec<String> = unchecked.iter().map(|p| p.label()).collect();
        (
            "No failure found among the patterns that could be checked",
            format!(
                "None of the {items_checked} checked items matched a failure pattern, but {} of the {} patterns \
                 could not be checked because the metrics they read were not scored: {}.",
                unchecked.len(),
                FailurePattern::ALL.len(),
                names.join(", ")
            ),
            "Every item stayed above the failure thresholds on the metrics that were scored; the patterns named \
             above say nothing about this run either way.",
            "Run the agentic evaluation (or add the RAGVUE retrieval, grounding and answer metrics) to check the \
             remaining patterns. Meanwhile read the lowest-scoring items of each metric for one-off problems.",
        )
    } else {
        (
            "No systematic failure found",
            format!("None of the {items_checked} checked items matched a failure pattern."),
            "Every item stayed above the failure thresholds on the metrics that were scored.",
            "Nothing needs a systematic fix. Read the lowest-scoring items of each metric for one-off problems, \
             and re-run this diagnosis after changing the pipeline to make sure it stays this way.",
        )
    };
    ActionItem {
        pattern: None,
        impact: Impact::None,
        title: title.to_string(),
        whats_wrong: wrong,
        why: why.to_string(),
        example: None,
        how_to_fix: fix.to_string(),
        count: 0,
        share: 0.0,
    }
}

/// "30%", or "under 1%" so that a real failure never reads as "0%".
fn percent(share: f64) -> String {
    let rounded = (share * 100.0).round();
    if rounded == 0.0 && share > 0.0 {
        "under 1%".to_string()
    } else {
        format!("{rounded:.0}%")
    }
}

#[cfg(test)]
#[path = "actions_tests.rs"]
mod tests;
