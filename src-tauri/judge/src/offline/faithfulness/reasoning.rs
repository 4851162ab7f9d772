//! `Reasoning`: the answer's reasoning hops, whether the chunks suffice to answer, and
//! whether the answer abstains (RAGVUE's multi-hop faithfulness and negative
//! rejection).
//!
//! - hops are the answer's claims in order; a hop is grounded when the chunks support
//!   it, and follows when it shares a word or name with the previous hop or the
//!   question, or opens by referring back ("It", "Therefore").
//! - the chunks suffice when every aspect of the question is covered by some chunk.
//! - the answer abstains when it refuses or says the information is not available.
//!
//! Owns: that verdict. Must not: define support or coverage (`support`, `relevance`).

use crate::offline::claims::support::{assess, SupportParams};
use crate::offline::faithfulness::grounding::{
    answer_claims, reason as support_reason, support_of,
};
use crate::offline::words::evidence::{Evidence, Sentence};
use crate::offline::{claims::split, coverage::aspects, coverage::relevance};
use crate::semantic::SemanticModel;
use crate::task::{Hop, Reasoning};
use ragnosis_types::item::Label;

pub fn reason(
    question: &str,
    answer: &str,
    chunks: &[String],
    params: &SupportParams,
    sem: Option<&SemanticModel>,
) -> Reasoning {
    let evidence = Evidence::new(chunks).with_question(question);
    let all: Vec<usize> = (0..chunks.len()).collect();
    let q = Sentence::new(question);
    let q_words: Vec<&str> = q.content_norms();
    let steps = answer_claims(question, answer, &evidence);
    let mut hops = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        let a = assess(step, &evidence, &all, params);
        let grounded = a.label == Label::Entailment;
        let words = step.words();
        let follows = i == 0
            || step.refers_back()
            || steps[i - 1].words().iter().any(|w| words.contains(w))
            || q_words.iter().any(|w| words.contains(w));
        let mut reason = support_reason(&a, step, support_of(&a, params), !chunks.is_empty());
        if !follows {
            reason = format!(
                "{} It does not connect to the previous step or the question.",
                reason.trim_end()
            );
        }
        hops.push(Hop {
            step: step.text.clone(),
            grounded,
            follows,
            chunk: a.passage,
            reason,
        });
    }

    let needs = aspects::extract(question);
    let coverage = relevance::coverage(&needs, chunks, sem);
    let missing: Vec<&str> = coverage
        .iter()
        .filter(|c| !c.covered)
        .map(|c| c.aspect.as_str())
        .collect();
    // Sufficient when the chunks cover every part of the question — or when every step
    // of a non-abstaining answer is backed by them: the contexts evidently held what the
    // answer says, and aspect matching misses parts asked with a pronoun ("does it cost
    // anything" answered by "a free first service").
    // An answer whose steps are mostly backed by the chunks did not answer beyond them:
    // calling it over-confident because an aspect was phrased in other words ("photos"
    // for "photographs") blamed correct answers.
    let backed = hops.iter().filter(|h| h.grounded).count();
    let mostly_backed = !hops.is_empty() && backed * 2 >= hops.len();
    let contexts_sufficient =
        !chunks.is_empty() && ((!needs.is_empty() && missing.is_empty()) || mostly_backed);
    let answer_abstains = split::abstains(answer);

    let backed = hops.iter().filter(|h| h.grounded && h.follows).count();
    let sufficiency = sufficiency(chunks.is_empty(), contexts_sufficient, &missing);
    let stance = if answer_abstains {
        "the answer declines to answer"
    } else {
        "the answer does not abstain"
    };
    let reason = if hops.is_empty() {
        format!("The answer makes no checkable claim; {sufficiency}, and {stance}.")
    } else {
        format!("{backed} of {} steps are backed by the contexts and follow on; {sufficiency}, and {stance}.", hops.len())
    };
    Reasoning {
        hops,
        contexts_sufficient,
        answer_abstains,
        reason,
    }
}

/// What the verdict says of the contexts: none, backing every step, covering every part
/// of the question, or the parts they miss.
fn sufficiency(no_chunks: bool, contexts_sufficient: bool, missing: &[&str]) -> String {
    if no_chunks {
        "there are no contexts".to_string()
    } else if contexts_sufficient && !missing.is_empty() {
        "the contexts back every step of the answer".to_string()
    } else if contexts_sufficient {
        "the contexts cover every part of the question".to_string()
    } else {
        format!("the contexts do not cover \"{}\"", missing.join("\", \""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(question: &str, answer: &str, chunks: &[&str]) -> Reasoning {
        let chunks: Vec<String> = chunks.iter().map(|s| s.to_string()).collect();
        reason(question, answer, &chunks, &SupportParams::default(), None)
    }

    #[test]
    fn hops_follow_the_answer_and_are_grounded_when_supported() {
        let out = r(
            "Which city is the capital of France?",
            "Paris is the capital of France. It lies on the Seine.",
            &[
                "Paris is the capital of France.",
                "The city of Paris lies on the Seine river.",
            ],
        );
        assert_eq!(out.hops.len(), 2);
        assert!(out.hops.iter().all(|h| h.grounded && h.follows), "{out:?}");
        assert!(out.contexts_sufficient && !out.answer_abstains);
    }

    #[test]
    fn unrelated_hop_does_not_follow() {
        let out = r(
            "What is the capital of France?",
            "Paris is the capital of France. Bananas are yellow.",
            &["Paris is the capital of France."],
        );
        assert!(!out.hops[1].follows && !out.hops[1].grounded, "{out:?}");
    }

    #[test]
    fn abstention_with_insufficient_contexts_is_reported() {
        let out = r(
            "Who won the 1998 World Cup?",
            "The provided documents do not contain information about that.",
            &["The Eiffel Tower is in Paris."],
        );
        assert!(out.answer_abstains && !out.contexts_sufficient, "{out:?}");
        assert!(out.hops.is_empty());
        let none = r("Who won?", "France won.", &[]);
        assert!(!none.contexts_sufficient && !none.hops[0].grounded);
    }

    #[test]
    fn an_answer_backed_step_by_step_is_not_over_confident() {
        // nw-010 of the bundled example: "does it cost anything" is not matched as an
        // aspect, yet every step of the answer is in the chunk.
        let out = r(
            "When is the first service due, and does it cost anything?",
            "The first service is due after 500 km or 3 months, whichever comes first, and it is free.",
            &["We recommend a free first service after 500 km or 3 months, whichever comes first."],
        );
        assert!(out.hops.iter().all(|h| h.grounded), "{out:?}");
        assert!(out.contexts_sufficient, "{out:?}");
        let invented = r(
            "Is there a service centre in Seattle?",
            "Yes, there is a service centre in Seattle, open six days a week.",
            &["Northwind has service centres in Portland, Denver, Austin and Chicago."],
        );
        assert!(
            !invented.contexts_sufficient,
            "an unbacked answer proves nothing: {invented:?}"
        );
    }
}
