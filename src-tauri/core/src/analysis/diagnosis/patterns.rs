//! The eight deterministic failure patterns of METRICS.md (A–H): which scores make each
//! fire on one item, and the pipeline stage each points at.
//!
//! Owns: the thresholds and the per-item rule check. Pure: no store, no judge. The rules
//! read only `ok` RAGVUE scores; a rule whose input is absent (not scored, skipped or
//! errored) does not fire, because a missing score is not evidence of failure. The
//! judge-free RAGVUE signals never make a rule fire; they are attached beside two
//! patterns as corroboration only (see `FailurePattern::supporting`).
//!
//! Two rules differ from METRICS.md, because measured cases showed them misfiring by
//! construction (docs/diagnosis-rules.md has the cases):
//! - B fires when the answer draws on (almost) none of the chunks, utilisation < 0.2,
//!   not < 0.5: using one of three retrieved chunks is normal, not "context ignored".
//! - H fires on completeness < 0.6 whether or not retrieval covered the question (the
//!   METRICS.md rule also asked coverage < 0.6, so a half-answered question whose answer
//!   was retrieved could never be called incomplete); a correct abstention
//!   (negative rejection 1 with coverage < 0.5) is not incomplete — it declined
//!   rightly, and A names the retrieval that failed it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const RETRIEVAL_RELEVANCE: &str = "ragvue.retrieval_relevance";
pub const RETRIEVAL_COVERAGE: &str = "ragvue.retrieval_coverage";
pub const CONTEXT_UTILIZATION: &str = "ragvue.context_utilization";
pub const STRICT_FAITHFULNESS: &str = "ragvue.strict_faithfulness";
pub const NEGATIVE_REJECTION: &str = "ragvue.negative_rejection";
pub const MULTI_HOP_FAITHFULNESS: &str = "ragvue.multi_hop_faithfulness";
pub const IMPLICIT_CONTRADICTION: &str = "ragvue.implicit_contradiction";
pub const COHERENCE: &str = "ragvue.coherence";
pub const CLARITY: &str = "ragvue.clarity";
pub const ANSWER_CONCISENESS: &str = "ragvue.answer_conciseness";
pub const ANSWER_COMPLETENESS: &str = "ragvue.answer_completeness";

const TOKEN_OVERLAP: &str = "ragvue.token_overlap";
const CONTEXT_SIMILARITY: &str = "ragvue.context_similarity";
const READABILITY: &str = "ragvue.readability";
const ANSWER_LENGTH: &str = "ragvue.answer_length";

/// Every metric some rule reads. An item with none of them scored cannot be checked.
pub const RULE_INPUTS: [&str; 11] = [
    RETRIEVAL_RELEVANCE,
    RETRIEVAL_COVERAGE,
    CONTEXT_UTILIZATION,
    STRICT_FAITHFULNESS,
    NEGATIVE_REJECTION,
    MULTI_HOP_FAITHFULNESS,
    IMPLICIT_CONTRADICTION,
    COHERENCE,
    CLARITY,
    ANSWER_CONCISENESS,
    ANSWER_COMPLETENESS,
];

/// Judge-free signals shown beside a pattern's example, never used to fire it.
pub const SUPPORTING_INPUTS: [&str; 4] = [
    TOKEN_OVERLAP,
    CONTEXT_SIMILARITY,
    READABILITY,
    ANSWER_LENGTH,
];

/// Context utilisation below this means the answer drew on (almost) no chunk.
const IGNORED: f64 = 0.2;

/// "Critical" band of METRICS.md: a score below this is a failure.
const CRITICAL: f64 = 0.5;
/// A score at or above this is trusted enough to make a precondition hold (B, F).
const TRUSTED: f64 = 0.6;
/// Completeness and coverage are read more strictly for H: an answer that misses 40% of
/// the question is already incomplete to a reader.
const INCOMPLETE: f64 = 0.6;

/// The part of the pipeline a pattern blames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Retrieval,
    RetrievalToGeneration,
    Grounding,
    Generation,
    RetrievalAndGeneration,
}

impl Stage {
    pub fn label(self) -> &'static str {
        match self {
            Stage::Retrieval => "retrieval",
            Stage::RetrievalToGeneration => "retrieval → generation",
            Stage::Grounding => "grounding",
            Stage::Generation => "generation",
            Stage::RetrievalAndGeneration => "retrieval + generation",
        }
    }
}

/// A failure pattern of METRICS.md, in letter order (which is also the fix order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailurePattern {
    /// A: retrieval_relevance < 0.5 and retrieval_coverage < 0.5.
    RetrievalMiss,
    /// B: retrieval_relevance ≥ 0.6 and context_utilization < 0.5.
    ContextIgnored,
    /// C: strict_faithfulness < 0.5.
    Hallucination,
    /// D: negative_rejection < 0.5.
    OverConfidence,
    /// E: multi_hop_faithfulness < 0.5.
    MultiHopFailure,
    /// F: strict_faithfulness ≥ 0.6 and implicit_contradiction < 0.5.
    SubtleDistortion,
    /// G: min(coherence, clarity, answer_conciseness) < 0.5, over those present.
    GenerationQuality,
    /// H: answer_completeness < 0.6 and retrieval_coverage < 0.6.
    Incomplete,
}

/// One metric's score, as evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricScore {
    pub metric: String,
    pub score: f64,
}

/// Why a pattern fired on an item.
#[derive(Debug, Clone, PartialEq)]
pub struct Trigger {
    /// The rule's inputs as they were read, in rule order.
    pub scores: Vec<MetricScore>,
    /// How badly it failed: the mean of the inputs that had to be low (for G, their
    /// minimum, which is what the rule tests). Lower is worse; used to rank examples.
    pub severity: f64,
}

impl FailurePattern {
    pub const ALL: [FailurePattern; 8] = [
        FailurePattern::RetrievalMiss,
        FailurePattern::ContextIgnored,
        FailurePattern::Hallucination,
        FailurePattern::OverConfidence,
        FailurePattern::MultiHopFailure,
        FailurePattern::SubtleDistortion,
        FailurePattern::GenerationQuality,
        FailurePattern::Incomplete,
    ];

    pub fn letter(self) -> char {
        match self {
            FailurePattern::RetrievalMiss => 'A',
            FailurePattern::ContextIgnored => 'B',
            FailurePattern::Hallucination => 'C',
            FailurePattern::OverConfidence => 'D',
            FailurePattern::MultiHopFailure => 'E',
            FailurePattern::SubtleDistortion => 'F',
            FailurePattern::GenerationQuality => 'G',
            FailurePattern::Incomplete => 'H',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            FailurePattern::RetrievalMiss => "retrieval miss",
            FailurePattern::ContextIgnored => "context ignored",
            FailurePattern::Hallucination => "hallucination",
            FailurePattern::OverConfidence => "over-confidence",
            FailurePattern::MultiHopFailure => "multi-hop failure",
            FailurePattern::SubtleDistortion => "subtle distortion",
            FailurePattern::GenerationQuality => "generation quality",
            FailurePattern::Incomplete => "incomplete",
        }
    }

    /// "A (retrieval miss)": how the pattern is named in running text.
    pub fn label(self) -> String {
        format!("{} ({})", self.letter(), self.name())
    }

    pub fn stage(self) -> Stage {
        match self {
            FailurePattern::RetrievalMiss => Stage::Retrieval,
            FailurePattern::ContextIgnored => Stage::RetrievalToGeneration,
            FailurePattern::Hallucination
            | FailurePattern::OverConfidence
            | FailurePattern::MultiHopFailure
            | FailurePattern::SubtleDistortion => Stage::Grounding,
            FailurePattern::GenerationQuality => Stage::Generation,
            FailurePattern::Incomplete => Stage::RetrievalAndGeneration,
        }
    }

    /// METRICS.md's fix order: retrieval (A, B) = 0, grounding (C–F) = 1, generation
    /// (G, H) = 2. Upstream failures starve every later stage, so they are fixed first.
    pub fn fix_order(self) -> u8 {
        match self {
            FailurePattern::RetrievalMiss | FailurePattern::ContextIgnored => 0,
            FailurePattern::Hallucination
            | FailurePattern::OverConfidence
            | FailurePattern::MultiHopFailure
            | FailurePattern::SubtleDistortion => 1,
            FailurePattern::GenerationQuality | FailurePattern::Incomplete => 2,
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            FailurePattern::RetrievalMiss => {
                "The search returned mostly off-topic passages that cover less than half of what the question asks."
            }
            FailurePattern::ContextIgnored => {
                "Useful passages were retrieved, but the answer drew on fewer than half of them."
            }
            FailurePattern::Hallucination => {
                "Fewer than half of the answer's statements are backed by the retrieved passages."
            }
            FailurePattern::OverConfidence => {
                "The system answered when the passages could not support an answer, or declined when they could."
            }
            FailurePattern::MultiHopFailure => {
                "The answer's chain of reasoning has steps the passages do not back or that do not follow from the step before."
            }
            FailurePattern::SubtleDistortion => {
                "The answer is mostly supported but changes a detail: a qualifier, negation, date, number or cause."
            }
            FailurePattern::GenerationQuality => {
                "The answer is incoherent, hard to read or padded, whatever its facts."
            }
            FailurePattern::Incomplete => {
                "The answer leaves parts of the question unanswered (whether or not the passages held them)."
            }
        }
    }

    /// The judge-free signals that corroborate this pattern when present. Only where the
    /// link is direct: an unsupported answer shares few words with its passages (C), and
    /// readability and length are surface views of clarity and conciseness (G). Low word
    /// overlap says nothing reliable about the other patterns, so they get none.
    pub fn supporting(self) -> &'static [&'static str] {
        match self {
            FailurePattern::Hallucination => &[TOKEN_OVERLAP, CONTEXT_SIMILARITY],
            FailurePattern::GenerationQuality => &[READABILITY, ANSWER_LENGTH],
            _ => &[],
        }
    }

    /// Whether an item's `ok` scores hold what the rule reads, so that "did not fire" means
    /// something. G reads whichever of its three inputs are present; H needs only
    /// completeness (coverage, when present, refines it).
    pub fn checkable(self, scores: &BTreeMap<String, f64>) -> bool {
        let has = |metric: &str| scores.contains_key(metric);
        match self {
            FailurePattern::RetrievalMiss => has(RETRIEVAL_RELEVANCE) && has(RETRIEVAL_COVERAGE),
            FailurePattern::ContextIgnored => has(RETRIEVAL_RELEVANCE) && has(CONTEXT_UTILIZATION),
            FailurePattern::Hallucination => has(STRICT_FAITHFULNESS),
            FailurePattern::OverConfidence => has(NEGATIVE_REJECTION),
            FailurePattern::MultiHopFailure => has(MULTI_HOP_FAITHFULNESS),
            FailurePattern::SubtleDistortion => {
                has(STRICT_FAITHFULNESS) && has(IMPLICIT_CONTRADICTION)
            }
            FailurePattern::GenerationQuality => {
                has(COHERENCE) || has(CLARITY) || has(ANSWER_CONCISENESS)
            }
            FailurePattern::Incomplete => has(ANSWER_COMPLETENESS),
        }
    }

    /// Whether the pattern fires on an item's `ok` scores, and on which evidence.
    pub fn check(self, scores: &BTreeMap<String, f64>) -> Option<Trigger> {
        let get = |metric: &str| scores.get(metric).copied();
        match self {
            FailurePattern::RetrievalMiss => {
                let (rr, rc) = (get(RETRIEVAL_RELEVANCE)?, get(RETRIEVAL_COVERAGE)?);
                (rr < CRITICAL && rc < CRITICAL).then(|| {
                    trigger(
                        &[(RETRIEVAL_RELEVANCE, rr), (RETRIEVAL_COVERAGE, rc)],
                        (rr + rc) / 2.0,
                    )
                })
            }
            FailurePattern::ContextIgnored => {
                let (rr, cu) = (get(RETRIEVAL_RELEVANCE)?, get(CONTEXT_UTILIZATION)?);
                (rr >= TRUSTED && cu < IGNORED)
                    .then(|| trigger(&[(RETRIEVAL_RELEVANCE, rr), (CONTEXT_UTILIZATION, cu)], cu))
            }
            FailurePattern::Hallucination => below(STRICT_FAITHFULNESS, get(STRICT_FAITHFULNESS)?),
            FailurePattern::OverConfidence => below(NEGATIVE_REJECTION, get(NEGATIVE_REJECTION)?),
            FailurePattern::MultiHopFailure => {
                below(MULTI_HOP_FAITHFULNESS, get(MULTI_HOP_FAITHFULNESS)?)
            }
            FailurePattern::SubtleDistortion => {
                let (sf, ic) = (get(STRICT_FAITHFULNESS)?, get(IMPLICIT_CONTRADICTION)?);
                (sf >= TRUSTED && ic < CRITICAL).then(|| {
                    trigger(
                        &[(STRICT_FAITHFULNESS, sf), (IMPLICIT_CONTRADICTION, ic)],
                        ic,
                    )
                })
            }
            FailurePattern::GenerationQuality => {
                let present: Vec<(&str, f64)> = [COHERENCE, CLARITY, ANSWER_CONCISENESS]
                    .into_iter()
                    .filter_map(|m| Some((m, get(m)?)))
                    .collect();
                let min = present.iter().map(|(_, s)| *s).reduce(f64::min)?;
                (min < CRITICAL).then(|| trigger(&present, min))
            }
            FailurePattern::Incomplete => {
                let ac = get(ANSWER_COMPLETENESS)?;
                let rc = get(RETRIEVAL_COVERAGE);
                let declined_rightly =
                    get(NEGATIVE_REJECTION) == Some(1.0) && rc.is_some_and(|rc| rc < CRITICAL);
                if ac >= INCOMPLETE || declined_rightly {
                    return None;
                }
                Some(match rc {
                    Some(rc) => trigger(&[(ANSWER_COMPLETENESS, ac), (RETRIEVAL_COVERAGE, rc)], ac),
                    None => trigger(&[(ANSWER_COMPLETENESS, ac)], ac),
                })
            }
        }
    }
}

fn below(metric: &str, score: f64) -> Option<Trigger> {
    (score < CRITICAL).then(|| trigger(&[(metric, score)], score))
}

fn trigger(scores: &[(&str, f64)], severity: f64) -> Trigger {
    Trigger {
        scores: scores
            .iter()
            .map(|(metric, score)| MetricScore {
                metric: metric.to_string(),
                score: *score,
            })
            .collect(),
        severity,
    }
}

/// The patterns one item shows, in letter (fix) order.
pub fn patterns_for(scores: &BTreeMap<String, f64>) -> Vec<FailurePattern> {
    FailurePattern::ALL
        .into_iter()
        .filter(|p| p.check(scores).is_some())
        .collect()
}

#[cfg(test)]
#[path = "patterns_tests.rs"]
mod tests;
