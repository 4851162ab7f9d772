//! Agreement with the reference answer: whether the answer says what the ground truth
//! says, read the way a person checks it — the figures, the yes or no, the claims — not
//! as one sentence similarity, which ranks "closed on Sundays" next to "open on Sundays"
//! and a wrong total next to the right one.
//!
//! Owns: the offline judge's answer correctness and its three-way reading (agrees,
//! contradicts, neither for sure). Must not: look at the passages; the reference is the
//! witness here, and grounding is another verdict.
//!
//! The score is built so that its bands mean the reading: at or above `AGREES` the answer
//! agrees with the reference, at or below `CONTRADICTS` it contradicts it, between them
//! it is partly right or the check cannot tell. The diagnosis reads those bands (a
//! model judge's correctness rubric uses the same scale: 1 correct, 0 wrong).

use std::collections::HashSet;

use crate::offline::claims::claim::Claim;
use crate::offline::claims::split;
use crate::offline::claims::support::{assess, SupportParams};
use crate::offline::words::evidence::{Evidence, Sentence};
use crate::semantic::SemanticModel;
use ragnosis_types::item::Label;

/// At or above: the answer agrees with the reference.
pub const AGREES: f64 = 0.8;
/// At or below: the answer contradicts the reference.
pub const CONTRADICTS: f64 = 0.3;

/// What the check found, for the rationale.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    Agrees,
    Contradicts,
    Unsure,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub score: f64,
    pub reading: Reading,
    pub rationale: String,
}

fn agreement(score: f64, reading: Reading, rationale: String) -> Agreement {
    let score = match reading {
        Reading::Agrees => score.clamp(AGREES, 1.0),
        Reading::Contradicts => score.clamp(0.0, CONTRADICTS),
        Reading::Unsure => score.clamp(CONTRADICTS + 0.01, AGREES - 0.01),
    };
    Agreement {
        score,
        reading,
        rationale,
    }
}

/// The leading yes or no of a text, if it opens with one ("No, …", "Sure! Yes: …", "I'm
/// afraid not").
fn polarity(text: &str) -> Option<bool> {
    split::leading_yes_no(text)
}

/// The figures a text states, in comparison form, less those the question gives (an
/// answer need not repeat "your 260 EUR ticket").
fn figures(text: &str, given: &HashSet<String>) -> Vec<String> {
    let mut seen = HashSet::new();
    ragnosis_types::text::sentences(text)
        .into_iter()
        .flat_map(|s| Sentence::new(s).tokens)
        // Amounts and times; a code with digits ("UN3480", "v3") names something.
        .filter(|t| {
            (t.norm.parse::<f64>().is_ok() || t.norm.contains(':'))
                && (t.lower.chars().any(|c| c.is_ascii_digit()) || (t.quantity && t.content))
        })
        .map(|t| t.norm)
        .filter(|n| !given.contains(n) && seen.insert(n.clone()))
        .collect()
}

/// Whether `answer` contradicts `truth` by a reversed statement: a claim of either that
/// the other denies (a negation or an opposite word).
fn reversed(answer: &str, truth: &str, params: &SupportParams) -> bool {
    let one_way = |claims_of: &str, against: &str| {
        let evidence = Evidence::new(&[against.to_string()]);
        // Only a close restatement with one word turned: a short reference set against
        // a long answer shares few words with each claim, and loose matches read the
        // answer's own "not" or "closed" as a reversal of the reference's.
        split::split(claims_of).iter().any(|c| {
            let a = assess(&Claim::new(c, &evidence), &evidence, &[0], params);
            a.coverage >= params.restated_coverage
                && a.conflict.is_some_and(|k| k.kind == "negation_flip")
        })
    };
    one_way(truth, answer) || one_way(answer, truth)
}

/// The share of the reference's claims the answer states.
fn carried(answer: &str, truth: &str, params: &SupportParams) -> Option<f64> {
    let truth_claims = split::split(truth);
    if truth_claims.is_empty() {
        return None;
    }
    let evidence = Evidence::new(&[answer.to_string()]);
    let entailed = truth_claims
        .iter()
        .filter(|c| {
            assess(&Claim::new(c, &evidence), &evidence, &[0], params).label == Label::Entailment
        })
        .count();
    Some(entailed as f64 / truth_claims.len() as f64)
}

// long: the checks in the order a person makes them (declines, yes or no, figures, claims),
// each returning its reading
/// Whether the answer agrees with the reference answer `truth` to `question`.
pub fn check(
    question: &str,
    answer: &str,
    truth: &str,
    chunks: &[String],
    params: &SupportParams,
    semantic: Option<&SemanticModel>,
) -> Agreement {
    // A reference declines wherever it says the documents lack the answer ("The warranty
    // covers defects only; the documents say nothing about theft.").
    let truth_declines = split::abstains(truth) || crate::offline::says_documents_lack(truth);
    let answer_declines = split::abstains(answer);
    match (answer_declines, truth_declines) {
        (true, true) => {
            return agreement(
                1.0,
                Reading::Agrees,
                "The answer declines, and the reference says the documents do not answer either (offline check).".into(),
            )
        }
        (true, false) => {
            return agreement(
                0.0,
                Reading::Contradicts,
                "The answer declines, but the reference answers the question (offline check).".into(),
            )
        }
        (false, true) => {
            return agreement(
                0.1,
                Reading::Contradicts,
                "The reference says the documents do not answer this, yet the answer gives one (offline check).".into(),
            )
        }
        (false, false) => {}
    }
    let cosine = semantic.map(|m| m.similarity(answer, truth).max(0.0));
    let share = carried(answer, truth, params);
    let base = cosine.unwrap_or(0.0).max(share.unwrap_or(0.0));
    if let (Some(a), Some(t)) = (polarity(answer), polarity(truth)) {
        if a != t {
            let said = |yes: bool| if yes { "yes" } else { "no" };
            return agreement(
                base,
                Reading::Contradicts,
                format!(
                    "The answer says {}, the reference says {} (offline check).",
                    said(a),
                    said(t)
                ),
            );
        }
    }
    if reversed(answer, truth, params) {
        return agreement(
            base,
            Reading::Contradicts,
            "The answer reverses a statement of the reference: a negation or an opposite word (offline check).".into(),
        );
    }
    let asked = Sentence::new(question);
    let given: HashSet<String> = asked.tokens.iter().map(|t| t.norm.clone()).collect();
    let (ours, theirs) = (figures(answer, &given), figures(truth, &given));
    let reference = Evidence::new(&[truth.to_string()]).with_question(question);
    let missing: Vec<&String> = theirs.iter().filter(|n| !ours.contains(n)).collect();
    // The answer's figures the reference states: operands of the answer's arithmetic.
    let operands: Vec<f64> = ours
        .iter()
        .filter(|n| theirs.contains(n))
        .filter_map(|n| n.parse().ok())
        .collect();
    let other: Vec<&String> = ours
        .iter()
        .filter(|n| !theirs.contains(n) && !reference.works_out(n, &operands))
        .collect();
    let clash = missing.iter().find_map(|m| {
        other
            .iter()
            .find(|o| o.contains(':') == m.contains(':'))
            .map(|o| (m, o))
    });
    if let Some((m, o)) = clash {
        return agreement(
            base,
            Reading::Contradicts,
            format!("The reference gives {m} where the answer gives {o} (offline check)."),
        );
    }
    // The reference vouches only for what it says: a figure the answer adds that neither
    // it nor the passages state ("14 March" against "In March 2024") is the answer's own,
    // and the check cannot call the answer right.
    let passages = Evidence::new(chunks).with_question(question);
    let stated: Vec<f64> = ours
        .iter()
        .filter(|n| passages.contains(n))
        .filter_map(|n| n.parse().ok())
        .collect();
    if let Some(unvouched) = other
        .iter()
        .find(|n| !passages.contains(n) && !passages.works_out(n, &stated))
    {
        return agreement(
            base * AGREES,
            Reading::Unsure,
            format!(
                "The answer agrees with the reference, but adds the figure {unvouched}, which neither the reference nor the passages state (offline check)."
            ),
        );
    }
    let similar = cosine.unwrap_or(0.0);
    let carries = share.unwrap_or(0.0);
    let figures_agree = !theirs.is_empty() && missing.is_empty();
    // A reference that is only a figure ("14 days.") is all figures; two or more figures
    // restated, with no clash and no reversal, are its substance.
    let agrees = if figures_agree {
        theirs.len() >= 2 || carries >= 0.5 || similar >= 0.6 || split::is_fragment(truth)
    } else {
        missing.is_empty() && (carries >= 0.67 || similar >= 0.8)
    };
    let detail = match (share, cosine) {
        (Some(s), Some(c)) => format!(
            "it states {:.0}% of the reference's claims, meaning similarity {c:.2}",
            s * 100.0
        ),
        (Some(s), None) => format!("it states {:.0}% of the reference's claims", s * 100.0),
        (None, Some(c)) => format!("meaning similarity {c:.2}"),
        (None, None) => "nothing to compare".into(),
    };
    let figures_said = if theirs.is_empty() {
        String::new()
    } else if missing.is_empty() {
        "; every figure of the reference is in the answer".into()
    } else {
        format!(
            "; the answer lacks the reference's {}",
            quantities_list(&missing)
        )
    };
    if agrees {
        agreement(
            AGREES + (1.0 - AGREES) * base,
            Reading::Agrees,
            format!(
                "The answer agrees with the reference: {detail}{figures_said} (offline check)."
            ),
        )
    } else {
        agreement(
            base * AGREES,
            Reading::Unsure,
            format!("The answer agrees with the reference only in part: {detail}{figures_said} (offline check)."),
        )
    }
}

fn quantities_list(missing: &[&String]) -> String {
    missing
        .iter()
        .take(3)
        .map(|n| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(question: &str, answer: &str, truth: &str) -> Reading {
        check(
            question,
            answer,
            truth,
            &[],
            &SupportParams::default(),
            None,
        )
        .reading
    }

    #[test]
    fn the_same_figures_in_other_words_agree() {
        assert_eq!(
            reading(
                "How long will you hold my prescription?",
                "We'll keep it for you for two weeks.",
                "14 days."
            ),
            Reading::Agrees
        );
        assert_eq!(
            reading(
                "I paid 260 EUR for a Flex ticket. How much do I get back if I cancel?",
                "You'd get 230 EUR back, minus nothing else, as the 30 EUR fee is deducted.",
                "230 EUR (260 EUR minus the 30 EUR Flex fee)."
            ),
            Reading::Agrees
        );
    }

    #[test]
    fn another_figure_or_the_other_answer_contradicts() {
        assert_eq!(
            reading(
                "How long is lost property kept?",
                "Lost property is kept for 45 days.",
                "28 days."
            ),
            Reading::Contradicts
        );
        assert_eq!(
            reading(
                "Can I get a refund?",
                "Yes, you can get a full refund.",
                "No, weekly passes are non-refundable."
            ),
            Reading::Contradicts
        );
        assert_eq!(
            reading(
                "What does the student account cost?",
                "The Student account costs £5 a month.",
                "The documents do not cover a Student account."
            ),
            Reading::Contradicts
        );
    }

    #[test]
    fn a_figure_neither_the_reference_nor_the_passages_state_leaves_it_unsure() {
        let chunks = ["Firmware 4.2 was released on 6 March 2024.".to_string()];
        let read = |answer: &str| {
            check(
                "When did firmware 4.2 come out?",
                answer,
                "In March 2024.",
                &chunks,
                &SupportParams::default(),
                None,
            )
            .reading
        };
        assert_eq!(read("It was released on 14 March 2024."), Reading::Unsure);
        assert_eq!(read("It was released on 6 March 2024."), Reading::Agrees);
    }

    #[test]
    fn two_declines_agree_and_half_an_answer_is_not_agreement() {
        assert_eq!(
            reading(
                "Is there wifi on the trams?",
                "I'm afraid the information I have says nothing about wifi on trams.",
                "The transit documents do not say whether trams have wifi."
            ),
            Reading::Agrees
        );
        assert_eq!(
            reading(
                "How much is the Silver pass and who can buy it?",
                "The Silver pass costs €29 a month.",
                "€29 a month, for residents aged 65 or over."
            ),
            Reading::Unsure
        );
    }
}
