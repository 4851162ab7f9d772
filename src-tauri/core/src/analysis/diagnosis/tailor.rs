//! Actions read against the user's pipeline profile: where the profile says something
//! the generic fix speaks to (top-k, chunk size, reranker, temperature, the prompt), the
//! action opens with what to change in this pipeline, e.g. "Your top-k is 3 with no
//! reranker: retrieve 8–10 and rerank to the best 3–5." The generic advice follows
//! unchanged. Nothing is said about what the profile leaves out.
//!
//! The cut-offs are the usual ranges of retrieval practice (3–5 passages after reranking,
//! chunks of 200–500 tokens, temperature 0–0.2 for grounded answers), not values fitted
//! to any dataset: each rule only names a setting outside the range the generic fix
//! already recommends.

use super::actions::ActionItem;
use super::patterns::FailurePattern;
use crate::pipeline::PipelineProfile;

/// Above this many passages, a generator is handed more than it reads.
const MANY_PASSAGES: u32 = 6;
/// At or below this many passages, an answer spread over several chunks is cut off.
const FEW_PASSAGES: u32 = 3;
/// Chunks longer than this bury a fact among others.
const LONG_CHUNKS: u32 = 600;
/// Temperatures above this let a generator wander from the passages.
const WARM: f64 = 0.3;

/// Prefixes each action's fix with what its pattern means for `profile`, where it says.
pub fn tailor(actions: &mut [ActionItem], profile: &PipelineProfile) {
    for action in actions {
        let Some(pattern) = action.pattern else {
            continue;
        };
        let advice = advice(pattern, profile);
        if !advice.is_empty() {
            action.how_to_fix = format!(
                "For your pipeline: {} Then: {}",
                advice.join(" "),
                action.how_to_fix
            );
        }
    }
}

/// The sentences for one pattern, in the order a user would act on them.
pub fn advice(pattern: FailurePattern, p: &PipelineProfile) -> Vec<String> {
    use FailurePattern::*;
    match pattern {
        RetrievalMiss | Incomplete => finding(pattern, p),
        ContextIgnored | WrongRefusal => handing_over(p),
        Hallucination | OverConfidence | SubtleDistortion | MultiHopFailure => {
            grounding(pattern, p)
        }
        GenerationQuality => match p.temperature.filter(|t| *t > 0.7) {
            Some(t) => vec![format!(
                "Your generator runs at temperature {t}: lower it (0.2–0.5) for clearer answers."
            )],
            None => Vec::new(),
        },
        CitationFailure => Vec::new(),
    }
}

/// The passages that answer were not found (A) or not all of them (H).
fn finding(pattern: FailurePattern, p: &PipelineProfile) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(k) = p.top_k.filter(|k| *k <= FEW_PASSAGES) {
        out.push(if p.has_no_reranker() {
            format!("Your top-k is {k} with no reranker: retrieve 8–10 passages and rerank them to the best 3–5.")
        } else {
            format!("Your top-k is {k}: retrieve more passages (8–10) before any cut.")
        });
    }
    if let Some(size) = p.chunk_size.filter(|s| *s > LONG_CHUNKS) {
        out.push(format!(
            "Your chunks of {size} mix several facts, which blurs the match: try 200–500 with some overlap."
        ));
    }
    if p.chunk_overlap == Some(0) {
        out.push("Your chunks do not overlap: an overlap of 10–20 % keeps a fact that straddles two chunks findable.".into());
    }
    let keyword = p.retriever.as_deref().is_some_and(|r| {
        let r = r.to_ascii_lowercase();
        r.contains("bm25") || r.contains("keyword") || r.contains("lexical")
    });
    if pattern == FailurePattern::RetrievalMiss && keyword {
        out.push("A keyword retriever misses paraphrased questions: add dense retrieval (hybrid search).".into());
    }
    out
}

/// The passages were found but not used (B), or the answer declined despite them (I).
fn handing_over(p: &PipelineProfile) -> Vec<String> {
    let no_reranker = p.has_no_reranker();
    if let Some(k) = p.top_k.filter(|k| *k > MANY_PASSAGES) {
        vec![format!(
            "Your generator gets {k} passages: send fewer (3–5){}.",
            if no_reranker { ", reranked first" } else { "" }
        )]
    } else if no_reranker {
        vec!["There is no reranker: rerank so the passage that answers comes first.".into()]
    } else {
        Vec::new()
    }
}

/// The answer says what the passages do not (C, D, E, F).
fn grounding(pattern: FailurePattern, p: &PipelineProfile) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = p.temperature.filter(|t| *t > WARM) {
        out.push(format!(
            "Your generator runs at temperature {t}: set 0–0.2 for answers that must stay with the passages."
        ));
    }
    if pattern == FailurePattern::SubtleDistortion {
        if let Some(size) = p.chunk_size.filter(|s| *s > LONG_CHUNKS) {
            out.push(format!(
                "Your chunks of {size} separate numbers from their qualifiers less well than 200–500 would."
            ));
        }
    }
    let declines = p.prompt_notes.as_deref().map(|n| {
        let n = n.to_ascii_lowercase();
        [
            "declin",
            "refus",
            "don't know",
            "do not know",
            "not in the",
            "say so",
        ]
        .iter()
        .any(|w| n.contains(w))
    });
    if pattern == FailurePattern::OverConfidence && declines == Some(false) {
        out.push("Your prompt notes say nothing about declining: tell the model to say so when the passages do not answer.".into());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> PipelineProfile {
        PipelineProfile {
            retriever: Some("BM25".into()),
            chunk_size: Some(1024),
            chunk_overlap: Some(0),
            top_k: Some(3),
            reranker: Some("none".into()),
            temperature: Some(0.7),
            ..Default::default()
        }
    }

    #[test]
    fn a_retrieval_miss_names_the_settings_the_profile_gives() {
        let said = advice(FailurePattern::RetrievalMiss, &profile()).join(" ");
        assert!(
            said.starts_with("Your top-k is 3 with no reranker"),
            "{said}"
        );
        assert!(said.contains("chunks of 1024"), "{said}");
        assert!(said.contains("do not overlap"), "{said}");
        assert!(said.contains("hybrid search"), "{said}");
    }

    #[test]
    fn a_profile_inside_the_usual_ranges_adds_nothing() {
        let fine = PipelineProfile {
            retriever: Some("hybrid".into()),
            chunk_size: Some(400),
            chunk_overlap: Some(50),
            top_k: Some(5),
            reranker: Some("bge-reranker".into()),
            temperature: Some(0.1),
            prompt_notes: Some("decline when the passages do not say".into()),
            ..Default::default()
        };
        for p in FailurePattern::ALL {
            assert_eq!(advice(p, &fine), Vec::<String>::new(), "{p:?}");
        }
        assert!(advice(FailurePattern::RetrievalMiss, &PipelineProfile::default()).is_empty());
    }

    #[test]
    fn the_fix_opens_with_the_pipeline_and_keeps_the_generic_advice() {
        let mut actions = vec![ActionItem {
            pattern: Some(FailurePattern::Hallucination),
            impact: super::super::actions::Impact::High,
            title: "t".into(),
            whats_wrong: "w".into(),
            why: "y".into(),
            example: None,
            how_to_fix: "Ground the prompt.".into(),
            count: 3,
            share: 0.3,
        }];
        tailor(&mut actions, &profile());
        assert_eq!(
            actions[0].how_to_fix,
            "For your pipeline: Your generator runs at temperature 0.7: set 0–0.2 for answers that must stay with the passages. Then: Ground the prompt."
        );
    }
}
