//! One item read as a whole: the patterns its scores raise (`patterns`), weighed against
//! the reference answer when the item has one, and "needs a look" where its own signals
//! disagree. Precision first: a pattern the evidence does not hold together is not named.
//!
//! Owns: the item-level decision. Pure: scores in, a reading out.
//!
//! **The reference as a witness.** Answer correctness is read in three bands (the offline
//! judge builds its score to them, and a model judge's rubric uses the same scale):
//! - at or above `AGREES` the answer says what the reference says. It is then no
//!   hallucination, distortion, over-confidence, broken chain, wrong refusal or ignored
//!   context, whatever a word-level check of the passages found; a retrieval miss is
//!   struck too when the passages back the answer. An answer stating some of the
//!   reference's claims and not others is incomplete, whatever parts the completeness
//!   check found; one stating all of them while parts read as unanswered needs a look;
//!   without its claims, an answer judged to address no part at all was misread, and
//!   half an answer stays incomplete.
//! - at or below `CONTRADICTS` the answer is wrong, and the failure is named from what
//!   else is known: the reference says the documents do not answer → over-confidence (D),
//!   and no retrieval miss (there was nothing to find);
//!   the answer declined → wrong refusal (I) when the passages hold the reference's
//!   claims, else the retrieval missed (A); the passages lack the reference's claims →
//!   retrieval miss (A); they hold them → the answer changed them: a broken chain (E) on
//!   a question that combines facts, else a distortion (F).
//! - between, the reference settles nothing and the judge's signals decide alone.
//!
//! **Needs a look.** Without a reference's verdict, three disagreements are not named: a
//! retrieval miss, or over-confidence, on an answer whose every statement the passages
//! back (over-confidence is struck there whatever the reference says, unless it says the
//! documents hold no answer), and an answer that addresses "no part" of its question
//! while every statement is backed — unless the answer states some of the reference's
//! claims and not others, which is half an answer. They are counted apart with the
//! reason, so a reader checks them instead of acting on them.
//!
//! A decline states nothing: it is a wrong refusal (I), or nothing with the retrieval
//! named (A); never a hallucination, distortion, chain, over-confidence, ignored context
//! or incomplete answer. An answer whose statements the passages back did not ignore them
//! (B).

use std::collections::BTreeMap;

use super::patterns::{
    FailurePattern, MetricScore, Trigger, ANSWER_COMPLETENESS, ANSWER_DECLINED, ANSWER_RECALL,
    CLAIM_RECALL, CORRECTNESS, MULTI_HOP_FAITHFULNESS, NEGATIVE_REJECTION, PASSAGES_HELD_ANSWER,
    REFERENCE_DECLINES, STRICT_FAITHFULNESS,
};

/// The lines the reading draws. `Thresholds::default()` is what Ragnosis uses; each value
/// was chosen leave-one-domain-out over the labelled help-desk logs
/// (`examples/diagnosis_lodo.rs`), and the others exist for that choice.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// At or above this correctness the answer agrees with the reference.
    pub agrees: f64,
    /// At or below this correctness the answer contradicts the reference.
    pub contradicts: f64,
    /// Strict faithfulness at or above this: most of the answer's statements are in the
    /// passages, so they were found and used.
    pub backed: f64,
    /// Strict faithfulness at or above this: (nearly) every statement is in the passages.
    pub all_backed: f64,
    /// Claim recall above this: the passages hold the reference's claims.
    pub held: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            agrees: AGREES,
            contradicts: CONTRADICTS,
            backed: 0.5,
            all_backed: 0.8,
            held: 0.49,
        }
    }
}

/// At or above this correctness the answer agrees with the reference (the offline
/// judge's correctness is built to this band).
pub const AGREES: f64 = 0.8;
/// At or below this correctness the answer contradicts the reference.
pub const CONTRADICTS: f64 = 0.3;

/// What the reference answer says of the item's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Witness {
    Agrees,
    Contradicts,
}

/// An item's diagnosis.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemReading {
    /// The patterns named, in letter order, with their evidence.
    pub named: Vec<(FailurePattern, Trigger)>,
    /// Why the item needs a look, when its signals disagree and nothing is named.
    pub unsure: Option<&'static str>,
    pub witness: Option<Witness>,
    /// The answer declined, and the judge found the passages lacked the answer.
    pub declined_rightly: bool,
}

impl ItemReading {
    pub fn patterns(&self) -> Vec<FailurePattern> {
        self.named.iter().map(|(p, _)| *p).collect()
    }

    /// Whether the item looks correct: the reference agrees with it, or it declined
    /// where the passages held no answer. Such an item never stands as an example of a
    /// failure: a right "I don't know" under "retrieval miss" reads as the failure.
    pub fn looks_correct(&self) -> bool {
        self.witness == Some(Witness::Agrees) || self.declined_rightly
    }
}

/// Reads one item's `ok` scores and decision facts.
pub fn read(scores: &BTreeMap<String, f64>) -> ItemReading {
    read_with(scores, &Thresholds::default())
}

/// `read` with other lines, for choosing them.
pub fn read_with(scores: &BTreeMap<String, f64>, t: &Thresholds) -> ItemReading {
    let get = |metric: &str| scores.get(metric).copied();
    let fact = |metric: &str| get(metric).map(|v| v >= 0.5);
    let mut named: BTreeMap<FailurePattern, Trigger> = FailurePattern::ALL
        .into_iter()
        .filter_map(|p| p.check(scores).map(|t| (p, t)))
        .collect();
    let declined = fact(ANSWER_DECLINED) == Some(true);
    let backed = get(STRICT_FAITHFULNESS);
    if declined {
        for p in [
            ContextIgnored,
            Hallucination,
            OverConfidence,
            MultiHopFailure,
            SubtleDistortion,
            Incomplete,
        ] {
            named.remove(&p);
        }
    }
    if backed.is_some_and(|sf| sf >= t.backed) {
        named.remove(&FailurePattern::ContextIgnored);
    }
    // Over-confidence is answering beyond the passages; an answer every statement of
    // which is in them did not (the reference can still say the documents hold no
    // answer, below). Left alone, the two signals disagree: the item needs a look.
    let beyond_passages_yet_backed = !declined
        && backed.is_some_and(|sf| sf >= t.all_backed)
        && named.remove(&FailurePattern::OverConfidence).is_some();
    let witness = get(CORRECTNESS).and_then(|c| {
        if c >= t.agrees {
            Some(Witness::Agrees)
        } else if c <= t.contradicts {
            Some(Witness::Contradicts)
        } else {
            None
        }
    });
    let unsure = match witness {
        Some(Witness::Agrees) => agreed(&mut named, scores, declined, t),
        Some(Witness::Contradicts) => contradicted(&mut named, scores, declined, t),
        None => unwitnessed(&mut named, scores, declined, beyond_passages_yet_backed, t),
    };
    let named: Vec<(FailurePattern, Trigger)> = named.into_iter().collect();
    let declined_rightly = declined
        && witness != Some(Witness::Contradicts)
        && get(NEGATIVE_REJECTION).is_some_and(|nr| nr >= 0.5);
    ItemReading {
        unsure: unsure.filter(|_| named.is_empty()),
        named,
        witness,
        declined_rightly,
    }
}

/// Without the reference's verdict, the judge's signals decide; where they disagree
/// (every statement backed, yet the passages judged off-topic, or not holding the
/// answer, or no part of the question answered) nothing is named and the reason says so.
fn unwitnessed(
    named: &mut BTreeMap<FailurePattern, Trigger>,
    scores: &BTreeMap<String, f64>,
    declined: bool,
    struck_over_confidence: bool,
    t: &Thresholds,
) -> Option<&'static str> {
    let get = |metric: &str| scores.get(metric).copied();
    if declined || !get(STRICT_FAITHFULNESS).is_some_and(|sf| sf >= t.all_backed) {
        return None;
    }
    let mut unsure = None;
    if named.remove(&FailurePattern::RetrievalMiss).is_some() {
        unsure = Some(
            "the passages were judged off-topic, yet every statement of the answer is in them",
        );
    }
    // The reference settles it when the answer states some of its claims and not
    // others: that is half an answer, whatever the parts found.
    let partly_carries_reference = get(ANSWER_RECALL).is_some_and(|r| r > 0.0 && r < 1.0);
    if get(ANSWER_COMPLETENESS) == Some(0.0)
        && !partly_carries_reference
        && named.remove(&FailurePattern::Incomplete).is_some()
    {
        unsure = Some(
            "no part of the question was judged answered, yet every statement of the answer is in the passages",
        );
    }
    if struck_over_confidence && unsure.is_none() {
        unsure = Some(
            "the passages were judged not to hold the answer, yet every statement of the answer is in them",
        );
    }
    unsure
}

fn agreed(
    named: &mut BTreeMap<FailurePattern, Trigger>,
    scores: &BTreeMap<String, f64>,
    declined: bool,
    t: &Thresholds,
) -> Option<&'static str> {
    for p in [
        ContextIgnored,
        Hallucination,
        OverConfidence,
        MultiHopFailure,
        SubtleDistortion,
        WrongRefusal,
    ] {
        named.remove(&p);
    }
    if !declined
        && scores
            .get(STRICT_FAITHFULNESS)
            .is_some_and(|sf| *sf >= t.backed)
    {
        named.remove(&RetrievalMiss);
    }
    // The reference is what a complete answer says. An answer that states some of its
    // claims and not others left the rest out, whatever parts the completeness check
    // found. Otherwise an answer judged to address no part at all was misread: it
    // agrees with the reference. One found to state all of the reference's claims
    // while some parts of the question read as unanswered is a disagreement of two
    // checks (either can misread a list or a day the other reads): it needs a look.
    let recall = scores.get(ANSWER_RECALL).copied();
    if recall.is_some_and(|r| r > 0.0 && r < 1.0) {
        return None;
    }
    if scores.get(ANSWER_COMPLETENESS) == Some(&0.0) {
        named.remove(&Incomplete);
        return None;
    }
    (recall.is_some_and(|r| r >= 1.0) && named.remove(&Incomplete).is_some()).then_some(
        "every claim of the reference is in the answer, yet part of the question was judged unanswered",
    )
}

use FailurePattern::{
    ContextIgnored, Hallucination, Incomplete, MultiHopFailure, OverConfidence, RetrievalMiss,
    SubtleDistortion, WrongRefusal,
};

/// What an answer the reference contradicts is not, by what it is named instead: the
/// reference says the documents do not answer (D); the passages lack the reference (A);
/// they hold it, and the answer changed it (E on a question that combines facts, F).
/// Where the reference says the documents do not answer, the search cannot have missed
/// the answer (no A): there was none to find, and the fix is to decline, not to retrieve.
const NOT_OVER_CONFIDENT: &[FailurePattern] = &[
    RetrievalMiss,
    SubtleDistortion,
    MultiHopFailure,
    WrongRefusal,
    Incomplete,
    ContextIgnored,
];
const NOT_A_MISS: &[FailurePattern] = &[
    SubtleDistortion,
    MultiHopFailure,
    ContextIgnored,
    Incomplete,
    WrongRefusal,
];
const NOT_A_CHANGE: &[FailurePattern] =
    &[Hallucination, OverConfidence, ContextIgnored, WrongRefusal];

fn contradicted(
    named: &mut BTreeMap<FailurePattern, Trigger>,
    scores: &BTreeMap<String, f64>,
    declined: bool,
    t: &Thresholds,
) -> Option<&'static str> {
    let get = |metric: &str| scores.get(metric).copied();
    // The passages hold the answer: the reference's claims are in them (claim recall),
    // or, without that metric, the judge found the passages sufficient.
    let held = match get(CLAIM_RECALL) {
        Some(recall) => recall > t.held,
        None => get(PASSAGES_HELD_ANSWER).is_some_and(|h| h >= 0.5),
    };
    let reference_declines = get(REFERENCE_DECLINES).is_some_and(|d| d >= 0.5);
    let (drop, name): (&[FailurePattern], FailurePattern) = if reference_declines && !declined {
        (NOT_OVER_CONFIDENT, OverConfidence)
    } else if declined {
        // The reference's claims read as found in passages the search itself judged
        // off-topic: one of the two is wrong, and which decides between "declined what
        // it had" and "the search missed it".
        if held && named.contains_key(&RetrievalMiss) {
            named.clear();
            return Some(
                "the answer declined; the reference's claims read as present in passages the search judged off-topic",
            );
        }
        if held {
            (&[OverConfidence, RetrievalMiss], WrongRefusal)
        } else {
            (&[OverConfidence, WrongRefusal], RetrievalMiss)
        }
    } else if !held {
        (NOT_A_MISS, RetrievalMiss)
    } else if get(MULTI_HOP_FAITHFULNESS).is_some() {
        (NOT_A_CHANGE, MultiHopFailure)
    } else {
        (NOT_A_CHANGE, SubtleDistortion)
    };
    for p in drop {
        named.remove(p);
    }
    named.entry(name).or_insert_with(|| witness_trigger(scores));
    None
}

/// The evidence of a pattern the reference names: correctness, and what the passages
/// hold of the reference and back of the answer.
fn witness_trigger(scores: &BTreeMap<String, f64>) -> Trigger {
    let read: Vec<(&str, f64)> = [CORRECTNESS, CLAIM_RECALL, STRICT_FAITHFULNESS]
        .into_iter()
        .filter_map(|m| Some((m, *scores.get(m)?)))
        .collect();
    Trigger {
        severity: scores.get(CORRECTNESS).copied().unwrap_or(0.0),
        scores: read
            .into_iter()
            .map(|(metric, score)| MetricScore {
                metric: metric.to_string(),
                score,
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::diagnosis::patterns::{
        IMPLICIT_CONTRADICTION, RETRIEVAL_COVERAGE, RETRIEVAL_RELEVANCE,
    };

    fn scores(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(m, s)| (m.to_string(), *s)).collect()
    }

    fn letters(pairs: &[(&str, f64)]) -> String {
        read(&scores(pairs))
            .patterns()
            .iter()
            .map(|p| p.letter())
            .collect()
    }

    #[test]
    fn an_answer_the_reference_agrees_with_is_no_grounding_failure() {
        let contradicted_passages = [
            (IMPLICIT_CONTRADICTION, 0.0),
            (STRICT_FAITHFULNESS, 0.5),
            (NEGATIVE_REJECTION, 1.0),
        ];
        assert_eq!(letters(&contradicted_passages), "F");
        let mut agreed = contradicted_passages.to_vec();
        agreed.push((CORRECTNESS, 0.95));
        assert_eq!(
            letters(&agreed),
            "",
            "the reference vetoes a mismatch with the passages"
        );
    }

    #[test]
    fn a_contradicted_answer_is_named_by_where_the_reference_stands() {
        let base = [
            (IMPLICIT_CONTRADICTION, 1.0),
            (STRICT_FAITHFULNESS, 1.0),
            (CORRECTNESS, 0.2),
        ];
        let mut held = base.to_vec();
        held.push((CLAIM_RECALL, 1.0));
        assert_eq!(
            letters(&held),
            "F",
            "the passages hold the reference: the answer changed it"
        );
        let mut chain = held.clone();
        chain.push((MULTI_HOP_FAITHFULNESS, 1.0));
        assert_eq!(letters(&chain), "E");
        let mut missed = base.to_vec();
        missed.push((CLAIM_RECALL, 0.0));
        assert_eq!(
            letters(&missed),
            "A",
            "the passages lack it: retrieval missed"
        );
        let mut should_decline = missed.clone();
        should_decline.push((REFERENCE_DECLINES, 1.0));
        assert_eq!(letters(&should_decline), "D");
        should_decline.extend([(RETRIEVAL_RELEVANCE, 0.0), (RETRIEVAL_COVERAGE, 0.0)]);
        assert_eq!(
            letters(&should_decline),
            "D",
            "no retrieval miss where the documents hold no answer"
        );
    }

    #[test]
    fn a_decline_is_a_wrong_refusal_or_a_retrieval_miss_only() {
        let declined = [
            (ANSWER_DECLINED, 1.0),
            (STRICT_FAITHFULNESS, 0.0),
            (NEGATIVE_REJECTION, 0.0),
            (CORRECTNESS, 0.0),
            (CLAIM_RECALL, 1.0),
        ];
        assert_eq!(letters(&declined), "I");
        let right = [
            (ANSWER_DECLINED, 1.0),
            (RETRIEVAL_RELEVANCE, 0.0),
            (RETRIEVAL_COVERAGE, 0.0),
            (NEGATIVE_REJECTION, 1.0),
            (CORRECTNESS, 1.0),
        ];
        assert_eq!(
            letters(&right),
            "A",
            "a right decline names only the retrieval"
        );
    }

    #[test]
    fn signals_that_disagree_without_a_reference_need_a_look() {
        let reading = read(&scores(&[
            (RETRIEVAL_RELEVANCE, 0.0),
            (RETRIEVAL_COVERAGE, 0.0),
            (STRICT_FAITHFULNESS, 1.0),
            (IMPLICIT_CONTRADICTION, 1.0),
        ]));
        assert!(reading.named.is_empty());
        assert!(reading.unsure.is_some());
        let with_reference = read(&scores(&[
            (RETRIEVAL_RELEVANCE, 0.0),
            (RETRIEVAL_COVERAGE, 0.0),
            (STRICT_FAITHFULNESS, 1.0),
            (CORRECTNESS, 0.2),
            (CLAIM_RECALL, 0.0),
        ]));
        assert_eq!(with_reference.patterns(), [FailurePattern::RetrievalMiss]);
        assert!(with_reference.unsure.is_none());
    }

    #[test]
    fn an_agreeing_reference_names_a_half_answer_and_doubts_a_whole_one() {
        let two_parts_one_found = [
            (ANSWER_COMPLETENESS, 0.5),
            (STRICT_FAITHFULNESS, 1.0),
            (CORRECTNESS, 1.0),
        ];
        assert_eq!(
            letters(&two_parts_one_found),
            "H",
            "no claims: completeness decides"
        );
        let mut all_stated = two_parts_one_found.to_vec();
        all_stated.push((ANSWER_RECALL, 1.0));
        let reading = read(&scores(&all_stated));
        assert!(reading.named.is_empty(), "{:?}", reading.named);
        assert!(
            reading.unsure.is_some(),
            "every claim of the reference stated, half the question unanswered: a look"
        );
        let none_found = [
            (ANSWER_COMPLETENESS, 0.0),
            (STRICT_FAITHFULNESS, 1.0),
            (CORRECTNESS, 0.9),
        ];
        assert_eq!(
            letters(&none_found),
            "",
            "no part found: the check misread it"
        );
        let mut half_stated = none_found.to_vec();
        half_stated.push((ANSWER_RECALL, 0.5));
        assert_eq!(letters(&half_stated), "H", "half the reference left out");
    }

    #[test]
    fn an_answer_the_passages_back_throughout_is_not_over_confident() {
        let backed = [
            (NEGATIVE_REJECTION, 0.0),
            (ANSWER_DECLINED, 0.0),
            (STRICT_FAITHFULNESS, 1.0),
        ];
        let reading = read(&scores(&backed));
        assert!(reading.named.is_empty(), "{:?}", reading.named);
        assert!(reading.unsure.is_some(), "the two signals disagree");
        let mut partly = backed.to_vec();
        partly[2] = (STRICT_FAITHFULNESS, 0.5);
        assert_eq!(letters(&partly), "D");
        let mut reference_declines = backed.to_vec();
        reference_declines.extend([(CORRECTNESS, 0.1), (REFERENCE_DECLINES, 1.0)]);
        assert_eq!(
            letters(&reference_declines),
            "D",
            "the reference says the documents hold no answer"
        );
    }

    #[test]
    fn half_of_the_reference_stated_is_an_incomplete_answer_not_a_doubt() {
        let nothing_answered = [
            (ANSWER_COMPLETENESS, 0.0),
            (STRICT_FAITHFULNESS, 1.0),
            (CORRECTNESS, 0.4),
        ];
        let reading = read(&scores(&nothing_answered));
        assert!(reading.named.is_empty() && reading.unsure.is_some());
        let mut half = nothing_answered.to_vec();
        half.push((ANSWER_RECALL, 0.5));
        assert_eq!(letters(&half), "H");
        let mut all = nothing_answered.to_vec();
        all.push((ANSWER_RECALL, 1.0));
        assert_eq!(
            letters(&all),
            "",
            "the whole reference stated: no half answer"
        );
    }
}
