//! Whether evidence backs a claim. Two tests must both pass: the claim's content words
//! (stemmed, weighted by rarity within the item) are covered by the evidence, and every
//! high-risk anchor (name, number, year, month) is found there exactly. On top:
//! RAGVUE's safety net (a claim found verbatim is supported), and two contradiction
//! checks against the best-matching evidence sentence: a negation flip ("no liquid
//! water" vs "liquid rivers") and an anchor substitution (1969 for 1968, London for
//! Paris).
//!
//! Owns: the `Assessment` of a claim (`claim::Claim`) and the tuned `SupportParams`.
//! Must not: split claims or build verdicts; those are `claims` and `grounding`.

use std::collections::HashSet;

use crate::offline::claims::claim::Claim;
use crate::offline::claims::conflicts::{
    aligned_swap, context_swap, negation_flip, reversal, substitution, unit_shift, Conflict,
};
use crate::offline::claims::scoping::other_entitys_value;
use crate::offline::words::anchors::Anchor;
use crate::offline::words::evidence::{Evidence, Sentence};
use ragnosis_types::item::Label;

/// Thresholds of the support decision, tuned on WiCE-dev and BEGIN-dev (see
/// `calibration` and `examples/offline_judge_eval.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SupportParams {
    /// Weighted share of the claim's content words the evidence must contain.
    pub entail_coverage: f64,
    /// Below this share a claim that is not supported is fully hallucinated; at or
    /// above it, partially.
    pub partial_coverage: f64,
    /// Share of the claim the best evidence sentence must cover before a differing
    /// anchor there counts as a substitution (so unrelated sentences are not compared).
    pub related_coverage: f64,
    /// Share of the claim the best sentence must cover for the claim to count as a
    /// restatement of it, where an opposite word or a name or number swapped in from
    /// elsewhere in the item is a contradiction.
    pub restated_coverage: f64,
    /// Share of the claim's predicate words (those outside its names and numbers) the
    /// judged passage itself must cover, when the other passages of the item supply
    /// the rest.
    pub passage_coverage: f64,
    /// Share of the words outside the claim's names and numbers the evidence must
    /// contain.
    pub predicate_coverage: f64,
}

impl Default for SupportParams {
    fn default() -> Self {
        SupportParams {
            entail_coverage: 0.45,
            predicate_coverage: 0.2,
            passage_coverage: 0.2,
            partial_coverage: 0.4,
            related_coverage: 0.4,
            restated_coverage: 0.7,
        }
    }
}

/// The outcome of checking one claim against a set of passages.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    pub label: Label,
    /// Weighted share of the claim's content words the passages in scope contain.
    pub coverage: f64,
    /// The passage holding the best-matching sentence.
    pub passage: Option<usize>,
    /// The best-matching evidence sentence.
    pub sentence: Option<String>,
    /// Claim anchors no passage in scope confirms, as written.
    pub missing_anchors: Vec<String>,
    /// Claim content words no passage in scope contains, as written.
    pub missing_words: Vec<String>,
    pub conflict: Option<Conflict>,
    pub verbatim: bool,
    /// The measurements behind the label, read by the learned decision (`learned`).
    pub measures: Measures,
}

/// The numbers `assess` decides on, kept for the learned decision: each a weighted share
/// of the claim's content words found.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Measures {
    /// Found anywhere in the item's passages.
    pub item: f64,
    /// Of the words outside the claim's names and numbers, found anywhere in the item.
    pub predicate: f64,
    /// Found in the single best-matching sentence.
    pub best_sentence: f64,
    /// Claim anchors (names, numbers, dates) and how many of them no passage confirms.
    pub anchors: usize,
    pub missing_anchors: usize,
}

impl Assessment {
    fn nothing(label: Label) -> Assessment {
        Assessment {
            label,
            coverage: 0.0,
            passage: None,
            sentence: None,
            missing_anchors: Vec::new(),
            missing_words: Vec::new(),
            conflict: None,
            verbatim: false,
            measures: Measures::default(),
        }
    }
}

/// Checks `claim` against the passages of `evidence` listed in `scope` (all of them for
/// grounding, one for a claim × passage label).
///
/// Entailment needs all of:
/// - the item's passages together cover `entail_coverage` of the claim's weighted
///   content words, and `predicate_coverage` of those outside its names and numbers;
/// - the passages in scope cover `passage_coverage` of its predicate words themselves;
/// - every anchor of the claim occurs in some passage of the item. Names and numbers
///   are checked over the whole item, not the one passage: passages of a document
///   refer back to names given elsewhere ("He", "the company").
/// - no contradiction with the best-matching sentence, and the claim is not about the
///   speaker; a bare answer must sit in a sentence that shares the question's words.
///
/// A claim found word for word in scope is entailed whatever the other checks say.
pub fn assess(
    claim: &Claim,
    evidence: &Evidence,
    scope: &[usize],
    params: &SupportParams,
) -> Assessment {
    let scope: Vec<usize> = scope
        .iter()
        .copied()
        .filter(|&i| i < evidence.len())
        .collect();
    if claim.is_empty() || scope.is_empty() {
        return Assessment::nothing(Label::Neutral);
    }
    let m = Measure::new(claim, evidence, scope);
    let item_cov = m.share(false, |n| evidence.contains(n));
    let predicate_cov = m.share(true, |n| evidence.contains(n));
    let scope_cov = m.share(false, |n| m.in_scope(n));
    // What the judged passages themselves contribute: their share of the predicate,
    // so a passage that only repeats the claim's name does not entail it.
    let has_predicate = claim
        .terms
        .iter()
        .any(|(n, _)| !m.anchor_norms.contains(n.as_str()));
    let passage_share = if has_predicate {
        m.share(true, |n| m.in_scope(n))
    } else {
        scope_cov
    };
    let best = m.best_sentence();
    let missing = missing_anchors(claim, evidence);
    let missing_words: Vec<String> = claim
        .terms
        .iter()
        .filter(|(n, _)| !m.in_scope(n))
        .map(|(_, s)| s.clone())
        .collect();
    let verbatim = claim.squad.split(' ').count() >= 2
        && !claim.terms.is_empty()
        && m.scope
            .iter()
            .any(|&p| evidence.passages[p].contains_squad(&claim.squad));
    let conflict = best.and_then(|best| m.conflict(best, &missing, params));

    let label = if verbatim {
        Label::Entailment
    } else if conflict.is_some() {
        Label::Contradiction
    } else if !claim.personal
        && item_cov >= params.entail_coverage
        && predicate_cov >= params.predicate_coverage
        && passage_share >= params.passage_coverage
        && missing.is_empty()
        && m.context_ok(best)
    {
        Label::Entailment
    } else {
        Label::Neutral
    };
    Assessment {
        label,
        coverage: if verbatim { 1.0 } else { scope_cov },
        passage: best.map(|b| b.0),
        sentence: best.map(|b| b.1.text.clone()),
        missing_anchors: missing.iter().map(|a| a.text.clone()).collect(),
        missing_words,
        conflict,
        verbatim,
        measures: Measures {
            item: item_cov,
            predicate: predicate_cov,
            best_sentence: best.map_or(0.0, |b| b.2),
            anchors: claim.anchors.len(),
            missing_anchors: missing.len(),
        },
    }
}

/// The claim's anchors the item does not state (nor the claim work out). A number
/// counts as found only with its unit where the claim gives one.
fn missing_anchors<'c>(claim: &'c Claim, evidence: &Evidence) -> Vec<&'c Anchor> {
    claim
        .anchors
        .iter()
        .filter(|a| {
            !a.norms
                .iter()
                .all(|n| evidence.contains(n) || claim.worked_out.contains(n))
                || a.norms.iter().any(|n| claim.unmeasured.contains(n))
        })
        .collect()
}

/// A claim measured against the passages in scope: the pieces `assess` combines.
struct Measure<'a> {
    claim: &'a Claim,
    evidence: &'a Evidence,
    scope: Vec<usize>,
    /// Inverse document frequency of each of the claim's words, in `claim.terms` order.
    weights: Vec<f64>,
    /// Words that belong to the claim's names and numbers (the rest is its predicate).
    anchor_norms: HashSet<&'a str>,
}

/// The best-matching sentence: its passage, the sentence, and the claim's share in it.
type Best<'a> = (usize, &'a Sentence, f64);

impl<'a> Measure<'a> {
    fn new(claim: &'a Claim, evidence: &'a Evidence, scope: Vec<usize>) -> Measure<'a> {
        Measure {
            weights: claim.terms.iter().map(|(n, _)| evidence.idf(n)).collect(),
            anchor_norms: claim
                .anchors
                .iter()
                .flat_map(|a| a.norms.iter().map(String::as_str))
                .collect(),
            claim,
            evidence,
            scope,
        }
    }

    /// Weighted share of the claim's words (or of its predicate words) that `covered` finds.
    fn share(&self, predicate_only: bool, covered: impl Fn(&str) -> bool) -> f64 {
        let mut found = 0.0;
        let mut total = 0.0;
        for ((n, _), w) in self.claim.terms.iter().zip(&self.weights) {
            if predicate_only && self.anchor_norms.contains(n.as_str()) {
                continue;
            }
            total += w;
            if covered(n) {
                found += w;
            }
        }
        if total == 0.0 {
            1.0
        } else {
            found / total
        }
    }

    fn in_scope(&self, n: &str) -> bool {
        self.scope
            .iter()
            .any(|&p| self.evidence.passages[p].norms.contains(n))
    }

    /// The share of the question's words (kept for a bare answer) the sentence has.
    fn context_share(&self, s: &Sentence) -> f64 {
        let context = &self.claim.context;
        if context.is_empty() {
            return 0.0;
        }
        context
            .iter()
            .filter(|n| s.norms.contains(n.as_str()))
            .count() as f64
            / context.len() as f64
    }

    /// The best-matching sentence in scope: most of the claim, then most of the
    /// question's words (for a bare answer), then most anchors.
    fn best_sentence(&self) -> Option<Best<'a>> {
        let mut best: Option<Best<'a>> = None;
        let mut best_rank = f64::MIN;
        for &p in &self.scope {
            for s in &self.evidence.passages[p].sentences {
                let cov = self.share(false, |n| s.norms.contains(n));
                let anchors_here = self
                    .claim
                    .anchors
                    .iter()
                    .filter(|a| a.norms.iter().all(|n| s.norms.contains(n)))
                    .count();
                let rank = cov + 0.3 * self.context_share(s) + 0.01 * anchors_here as f64;
                if rank > best_rank {
                    best_rank = rank;
                    best = Some((p, s, cov));
                }
            }
        }
        best
    }

    /// A contradiction with the best sentence. `missing` are the claim's anchors found
    /// nowhere in the item. When the claim restates the sentence closely, a name or
    /// number found only elsewhere in the item, where the sentence has another of its
    /// kind, is a swap too ("$57,000" for the sentence's "$38,000"), even though the
    /// item does mention it.
    fn conflict(
        &self,
        best: Best<'_>,
        missing: &[&Anchor],
        params: &SupportParams,
    ) -> Option<Conflict> {
        let (claim, evidence) = (self.claim, self.evidence);
        let (_, s, cov) = best;
        let restated = cov >= params.restated_coverage;
        let locally_missing = || -> Vec<&Anchor> {
            claim
                .anchors
                .iter()
                .filter(|a| !a.norms.iter().all(|n| s.norms.contains(n)))
                .collect()
        };
        // A name or date of the claim that the best sentence lacks may stand in another
        // sentence, which then speaks for that part of the claim: "open on Sundays" is
        // matched best by the opening-hours sentence, but "closed on Sundays" is where
        // the library says no.
        let anchored_elsewhere = || {
            let lacking = locally_missing();
            if lacking.is_empty() {
                return None;
            }
            self.scope
                .iter()
                .flat_map(|&p| &evidence.passages[p].sentences)
                .filter(|other| !std::ptr::eq(*other, s))
                .filter(|other| {
                    lacking
                        .iter()
                        .all(|a| a.norms.iter().all(|n| other.norms.contains(n)))
                })
                .find_map(|other| negation_flip(claim, other).or_else(|| reversal(claim, other)))
        };
        negation_flip(claim, s)
            .or_else(|| reversal(claim, s))
            .or_else(anchored_elsewhere)
            .or_else(|| {
                (cov >= params.related_coverage)
                    .then(|| unit_shift(claim, s))
                    .flatten()
            })
            .or_else(|| {
                (cov >= params.related_coverage)
                    .then(|| substitution(claim, missing, s, evidence))
                    .flatten()
            })
            .or_else(|| {
                restated
                    .then(|| {
                        context_swap(claim, s)
                            .or_else(|| substitution(claim, &locally_missing(), s, evidence))
                            .or_else(|| aligned_swap(claim, s))
                    })
                    .flatten()
            })
            .or_else(|| {
                other_entitys_value(
                    &claim.sentence,
                    &claim.anchors,
                    &claim.worked_out,
                    evidence,
                    &self.scope,
                )
            })
    }

    /// A bare answer must sit in a sentence that shares the question's words (and its
    /// names, when it has any).
    fn context_ok(&self, best: Option<Best<'_>>) -> bool {
        let claim = self.claim;
        claim.context.is_empty()
            || best.is_some_and(|(_, s, _)| {
                self.context_share(s) > 0.0
                    && (claim.context_anchors.is_empty()
                        || claim
                            .context_anchors
                            .iter()
                            .any(|a| a.norms.iter().all(|n| s.norms.contains(n))))
            })
    }
}
