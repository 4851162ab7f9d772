//! The deterministic failure patterns: METRICS.md's eight (A–H) and two more (I wrong
//! refusal, J citation failure), kept from overlapping: which scores make each
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

pub const CITATION_STRICT: &str = "citation.strict_accuracy";
pub const CITATION_NONE: &str = "citation.no_citation_rate";
pub const CITATION_MULTI: &str = "citation.multi_citation_rate";

/// The ground-truth comparison, read as a witness (`reading`).
pub const CORRECTNESS: &str = "ragalyst.answer_correctness";
/// The share of the reference's claims the passages hold: whether they held the answer.
pub const CLAIM_RECALL: &str = "ragchecker.claim_recall";
/// The share of the reference's claims the answer states.
pub const ANSWER_RECALL: &str = "ragchecker.recall";
/// A fact of the correctness result (1 = yes): the reference itself says the documents
/// do not answer.
pub const REFERENCE_DECLINES: &str = "ragalyst.answer_correctness/reference_declines";

/// Two facts of the negative-rejection verdict, read from its details and carried
/// beside the scores (1 = yes, 0 = no): whether the answer declined, and whether the
/// retrieved passages held the answer. Its score alone (right or wrong behaviour)
/// cannot tell a wrong refusal from an over-confident answer, whose fixes are opposite.
pub const ANSWER_DECLINED: &str = "ragvue.negative_rejection/answer_declined";
pub const PASSAGES_HELD_ANSWER: &str = "ragvue.negative_rejection/passages_held_answer";

/// Bumped whenever a rule changes, so stored per-item pattern letters are rebuilt.
pub const RULES_VERSION: u32 = 7;

const TOKEN_OVERLAP: &str = "ragvue.token_overlap";
const CONTEXT_SIMILARITY: &str = "ragvue.context_similarity";
const READABILITY: &str = "ragvue.readability";
const ANSWER_LENGTH: &str = "ragvue.answer_length";

/// Every metric some rule reads. An item with none of them scored cannot be checked.
/// (The reference's witnesses, `CORRECTNESS` and `CLAIM_RECALL`, only weigh what these
/// raise.)
pub const RULE_INPUTS: [&str; 14] = [
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
    CITATION_STRICT,
    CITATION_NONE,
    CITATION_MULTI,
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
/// A score at or above this is trusted enough to make a precondition hold (B).
const TRUSTED: f64 = 0.6;
/// Completeness and coverage are read more strictly for H: an answer that misses 40% of
/// the question is already incomplete to a reader.
const INCOMPLETE: f64 = 0.6;

/// The part of the pipeline a pattern blames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Stage {
    Retrieval,
    RetrievalToGeneration,
    Grounding,
    Generation,
    RetrievalAndGeneration,
}

impl Stage {
    /// Every stage, in fix order.
    pub const ALL: [Stage; 5] = [
        Stage::Retrieval,
        Stage::RetrievalToGeneration,
        Stage::Grounding,
        Stage::Generation,
        Stage::RetrievalAndGeneration,
    ];

    /// How the stage is named in running text ("retrieval → generation").
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
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum FailurePattern {
    /// A: retrieval_relevance < 0.5 and retrieval_coverage < 0.5.
    RetrievalMiss,
    /// B: retrieval_relevance ≥ 0.6 (or retrieval_coverage ≥ 0.6) and context_utilization
    /// < 0.2, with no contradiction of the passages.
    ContextIgnored,
    /// C: strict_faithfulness < 0.5.
    Hallucination,
    /// D: negative_rejection < 0.5 on an answer that did not decline.
    OverConfidence,
    /// E: a question that combines facts, answered by a chain with a step the passages do
    /// not back (0 < multi_hop_faithfulness < 1).
    MultiHopFailure,
    /// F: implicit_contradiction < 0.5 (a contradiction of the passages).
    SubtleDistortion,
    /// G: min(coherence, clarity, answer_conciseness) < 0.5, over those present.
    GenerationQuality,
    /// H: answer_completeness < 0.6, unless the answer declined.
    Incomplete,
    /// I: the answer declined although the retrieved passages held the answer.
    WrongRefusal,
    /// J: the answer cites the wrong source, several, or none (citation accuracy).
    CitationFailure,
}

/// One metric's score, as evidence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricScore {
    /// The metric's id ("ragvue.strict_faithfulness").
    pub metric: String,
    /// Its score on the item, in [0, 1].
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
    pub const ALL: [FailurePattern; 10] = [
        FailurePattern::RetrievalMiss,
        FailurePattern::ContextIgnored,
        FailurePattern::Hallucination,
        FailurePattern::OverConfidence,
        FailurePattern::MultiHopFailure,
        FailurePattern::SubtleDistortion,
        FailurePattern::GenerationQuality,
        FailurePattern::Incomplete,
        FailurePattern::WrongRefusal,
        FailurePattern::CitationFailure,
    ];

    /// The pattern with this letter ('F' or 'f').
    pub fn from_letter(letter: char) -> Option<FailurePattern> {
        let letter = letter.to_ascii_uppercase();
        FailurePattern::ALL
            .into_iter()
            .find(|p| p.letter() == letter)
    }

    /// The pattern a user names by its letter ("F") or its name ("subtle distortion"),
    /// case aside, or a program by its serialised name ("subtle_distortion", as the
    /// diagnosis it read spells it).
    pub fn named(text: &str) -> Option<FailurePattern> {
        let text = text.trim();
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => FailurePattern::from_letter(c),
            _ => FailurePattern::ALL.into_iter().find(|p| {
                text.eq_ignore_ascii_case(p.name())
                    || serde_json::to_value(p).is_ok_and(|name| name == text)
            }),
        }
    }

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
            FailurePattern::WrongRefusal => 'I',
            FailurePattern::CitationFailure => 'J',
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
            FailurePattern::WrongRefusal => "wrong refusal",
            FailurePattern::CitationFailure => "citation failure",
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
            FailurePattern::GenerationQuality | FailurePattern::CitationFailure => {
                Stage::Generation
            }
            FailurePattern::Incomplete => Stage::RetrievalAndGeneration,
            FailurePattern::WrongRefusal => Stage::Grounding,
        }
    }

    /// METRICS.md's fix order: retrieval (A, B) = 0, grounding (C–F, and I, the
    /// refusal rule) = 1, generation (G, H, J) = 2. Upstream failures starve every later
    /// stage, so they are fixed first.
    pub fn fix_order(self) -> u8 {
        match self {
            FailurePattern::RetrievalMiss | FailurePattern::ContextIgnored => 0,
            FailurePattern::Hallucination
            | FailurePattern::OverConfidence
            | FailurePattern::MultiHopFailure
            | FailurePattern::SubtleDistortion
            | FailurePattern::WrongRefusal => 1,
            FailurePattern::GenerationQuality
            | FailurePattern::Incomplete
            | FailurePattern::CitationFailure => 2,
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
                "The system answered although the retrieved passages do not hold the answer."
            }
            FailurePattern::MultiHopFailure => {
                "The question needs several facts combined, and the answer's chain of reasoning has steps the passages do not back or that do not follow from the step before."
            }
            FailurePattern::SubtleDistortion => {
                "The answer contradicts the passages on a detail: a negation, an opposite, a date or a number."
            }
            FailurePattern::GenerationQuality => {
                "The answer is incoherent, hard to read or padded, whatever its facts."
            }
            FailurePattern::Incomplete => {
                "The answer leaves parts of the question unanswered (whether or not the passages held them)."
            }
            FailurePattern::WrongRefusal => {
                "The system declined to answer although the retrieved passages held the answer."
            }
            FailurePattern::CitationFailure => {
                "The answer cites the wrong source, several sources, or none, where one was expected."
            }
        }
    }

    /// Whether a good score on the item contradicts the pattern: an answer the ground
    /// truth calls correct (answer correctness ≥ 0.8) is a poor example of a grounding or
    /// generation failure. Retrieval and citation patterns are not doubted by it: a right
    /// answer can come from memory, past a missed retrieval or a wrong citation.
    pub fn doubted(self, scores: &BTreeMap<String, f64>) -> bool {
        let retrieval_or_citation = matches!(
            self,
            FailurePattern::RetrievalMiss
                | FailurePattern::ContextIgnored
                | FailurePattern::CitationFailure
        );
        !retrieval_or_citation && scores.get(CORRECTNESS).is_some_and(|c| *c >= 0.8)
    }

    /// Whether every run with the usual metrics can check the pattern. E applies only to
    /// questions that combine facts and J only to data with citation labels: a run
    /// without them has not failed to check those patterns, they do not apply to it.
    pub fn expected_everywhere(self) -> bool {
        !matches!(
            self,
            FailurePattern::MultiHopFailure | FailurePattern::CitationFailure
        )
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
            FailurePattern::OverConfidence | FailurePattern::WrongRefusal => {
                has(NEGATIVE_REJECTION)
            }
            FailurePattern::MultiHopFailure => has(MULTI_HOP_FAITHFULNESS),
            FailurePattern::SubtleDistortion => has(IMPLICIT_CONTRADICTION),
            FailurePattern::GenerationQuality => {
                has(COHERENCE) || has(CLARITY) || has(ANSWER_CONCISENESS)
            }
            FailurePattern::Incomplete => has(ANSWER_COMPLETENESS),
            FailurePattern::CitationFailure => has(CITATION_STRICT),
        }
    }

    // long: a table: the trigger of every failure pattern, one match arm each, so their exclusions
    // can be read side by side
    /// Whether the pattern fires on an item's `ok` scores, and on which evidence.
    ///
    /// The patterns are kept apart so that one failure is named once, by its most
    /// specific pattern: a contradiction is F, not also C; a chain of reasoning with
    /// some steps backed is E, not also C; a decline is I (wrong refusal) or nothing,
    /// never D, B or H, whose fixes would make it worse.
    pub fn check(self, scores: &BTreeMap<String, f64>) -> Option<Trigger> {
        let get = |metric: &str| scores.get(metric).copied();
        let declined = get(ANSWER_DECLINED).map(|v| v >= 0.5);
        let contradicted = get(IMPLICIT_CONTRADICTION).is_some_and(|ic| ic < CRITICAL);
        let chain_partly_backed =
            get(MULTI_HOP_FAITHFULNESS).is_some_and(|mh| mh > 0.0 && mh < 1.0);
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
            // Useful passages: enough of them relevant, or some of them covering the
            // question (one answering chunk of three is plenty to answer from). An answer
            // that contradicts them used them wrongly (F), it did not ignore them.
            FailurePattern::ContextIgnored => {
                let (rr, cu) = (get(RETRIEVAL_RELEVANCE)?, get(CONTEXT_UTILIZATION)?);
                let covered = get(RETRIEVAL_COVERAGE).is_some_and(|rc| rc >= TRUSTED);
                ((rr >= TRUSTED || covered)
                    && cu < IGNORED
                    && declined != Some(true)
                    && !contradicted)
                    .then(|| trigger(&[(RETRIEVAL_RELEVANCE, rr), (CONTEXT_UTILIZATION, cu)], cu))
            }
            FailurePattern::Hallucination => {
                if contradicted || chain_partly_backed {
                    return None;
                }
                below(STRICT_FAITHFULNESS, get(STRICT_FAITHFULNESS)?)
            }
            FailurePattern::OverConfidence => {
                if declined == Some(true) {
                    return None;
                }
                below(NEGATIVE_REJECTION, get(NEGATIVE_REJECTION)?)
            }
            FailurePattern::WrongRefusal => {
                if declined != Some(true) {
                    return None;
                }
                below(NEGATIVE_REJECTION, get(NEGATIVE_REJECTION)?)
            }
            // Scored only for questions that combine facts: there, one broken step breaks
            // the answer (the combination is usually the last step), so any step the
            // passages do not back counts. A chain with no step backed is C.
            FailurePattern::MultiHopFailure => {
                let mh = get(MULTI_HOP_FAITHFULNESS)?;
                // A contradicted step is F's, named once.
                (!contradicted
                    && (chain_partly_backed
                        || (mh < CRITICAL && get(STRICT_FAITHFULNESS).is_none())))
                .then(|| trigger(&[(MULTI_HOP_FAITHFULNESS, mh)], mh))
            }
            FailurePattern::SubtleDistortion => {
                let ic = get(IMPLICIT_CONTRADICTION)?;
                if ic >= CRITICAL {
                    return None;
                }
                Some(match get(STRICT_FAITHFULNESS) {
                    Some(sf) => trigger(
                        &[(IMPLICIT_CONTRADICTION, ic), (STRICT_FAITHFULNESS, sf)],
                        ic,
                    ),
                    None => trigger(&[(IMPLICIT_CONTRADICTION, ic)], ic),
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
                // A decline answers no part by design: right (A names the retrieval) or
                // wrong (I), it is not an incomplete answer. Runs stored before the
                // decline was recorded read it off the score; where it was recorded, an
                // answer that did not decline is judged on its completeness even when
                // the passages missed the question (each step it took was backed).
                let declined_rightly = declined.is_none()
                    && get(NEGATIVE_REJECTION) == Some(1.0)
                    && rc.is_some_and(|rc| rc < CRITICAL);
                if ac >= INCOMPLETE || declined == Some(true) || declined_rightly {
                    return None;
                }
                Some(match rc {
                    Some(rc) => trigger(&[(ANSWER_COMPLETENESS, ac), (RETRIEVAL_COVERAGE, rc)], ac),
                    None => trigger(&[(ANSWER_COMPLETENESS, ac)], ac),
                })
            }
            FailurePattern::CitationFailure => {
                let strict = get(CITATION_STRICT)?;
                if strict >= CRITICAL || declined == Some(true) {
                    return None;
                }
                let read: Vec<(&str, f64)> = [CITATION_STRICT, CITATION_NONE, CITATION_MULTI]
                    .into_iter()
                    .filter_map(|m| Some((m, get(m)?)))
                    .collect();
                Some(trigger(&read, strict))
            }
        }
    }
}

/// The boolean fields of a negative-rejection result's details that `check` reads, and
/// the pseudo-score each becomes (see `ANSWER_DECLINED`).
pub const DECISION_FLAGS: [(&str, &str); 2] = [
    ("answer_abstains", ANSWER_DECLINED),
    ("contexts_sufficient", PASSAGES_HELD_ANSWER),
];

/// The decision facts of a negative-rejection result's details, as the pseudo-scores
/// `check` reads. Empty when the details do not record them.
pub fn decision_facts(details: &serde_json::Value) -> Vec<(&'static str, f64)> {
    let flags =
        DECISION_FLAGS.map(|(key, _)| details.get(key).and_then(serde_json::Value::as_bool));
    facts_of(flags)
}

/// The boolean field of an answer-correctness result's details that the reading uses,
/// and its pseudo-score (`REFERENCE_DECLINES`).
pub const REFERENCE_FLAG: (&str, &str) = ("reference_declines", REFERENCE_DECLINES);

/// The reference fact of an answer-correctness result's details, if recorded.
pub fn reference_fact(details: &serde_json::Value) -> Option<(&'static str, f64)> {
    let flag = details.get(REFERENCE_FLAG.0)?.as_bool()?;
    Some((REFERENCE_FLAG.1, f64::from(u8::from(flag))))
}

/// The decision facts of `DECISION_FLAGS`' values, in its order.
pub fn facts_of(flags: [Option<bool>; 2]) -> Vec<(&'static str, f64)> {
    DECISION_FLAGS
        .iter()
        .zip(flags)
        .filter_map(|((_, fact), flag)| flag.map(|f| (*fact, f64::from(u8::from(f)))))
        .collect()
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

#[cfg(test)]
#[path = "patterns_tests.rs"]
mod tests;
