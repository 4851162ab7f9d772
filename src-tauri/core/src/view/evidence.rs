//! The evidence behind a low score: the unsupported claims, irrelevant chunks and missing
//! aspects among what an item's metrics stored (`case::CaseEvidence`, their one reader).
//! What a report's reader needs to believe a diagnosis without opening the raw results.

use serde::{Deserialize, Serialize};

use super::case::{AspectView, CaseEvidence};
use crate::analysis::diagnosis::FailurePattern;
use crate::item::Item;
use crate::metrics::MetricResult;

/// Where an aspect can be missing.
const FROM_CHUNKS: &str = "retrieved chunks";
const FROM_ANSWER: &str = "answer";

/// Characters of a chunk quoted next to an irrelevant-chunk finding.
const CHUNK_EXCERPT: usize = 240;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimEvidence {
    pub claim: String,
    /// "partially unsupported" or "unsupported".
    pub support: String,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChunkEvidence {
    /// 1-based rank of the chunk as retrieved.
    pub rank: usize,
    pub doc_id: Option<String>,
    pub relevance: f64,
    pub reason: String,
    pub excerpt: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AspectEvidence {
    pub aspect: String,
    /// Where it is missing: "retrieved chunks" or "answer".
    pub missing_from: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    pub unsupported_claims: Vec<ClaimEvidence>,
    pub irrelevant_chunks: Vec<ChunkEvidence>,
    pub missing_aspects: Vec<AspectEvidence>,
}

impl Evidence {
    pub fn is_empty(&self) -> bool {
        self.unsupported_claims.is_empty()
            && self.irrelevant_chunks.is_empty()
            && self.missing_aspects.is_empty()
    }

    /// Keeps the evidence that bears on `pattern`: retrieval patterns show chunks and
    /// aspects the retrieval missed, grounding patterns the unsupported claims,
    /// incompleteness the missing aspects. Generation quality keeps everything: no
    /// structured detail speaks for it alone.
    pub fn focus(mut self, pattern: FailurePattern) -> Evidence {
        let (claims, chunks, aspects) = match pattern {
            FailurePattern::RetrievalMiss => (false, true, true),
            FailurePattern::ContextIgnored => (true, false, true),
            FailurePattern::Hallucination
            | FailurePattern::OverConfidence
            | FailurePattern::MultiHopFailure
            | FailurePattern::SubtleDistortion => (true, false, false),
            FailurePattern::Incomplete => (false, false, true),
            FailurePattern::GenerationQuality => (true, true, true),
            // The answer itself (a refusal, a citation) is the evidence; the case view
            // quotes it.
            FailurePattern::WrongRefusal | FailurePattern::CitationFailure => (false, false, false),
        };
        if !claims {
            self.unsupported_claims.clear();
        }
        if !chunks {
            self.irrelevant_chunks.clear();
        }
        if !aspects {
            self.missing_aspects.clear();
        }
        if pattern == FailurePattern::RetrievalMiss {
            self.missing_aspects
                .retain(|a| a.missing_from == FROM_CHUNKS);
        }
        self
    }

    /// The problems in one item's `ok` results: its claims judged unsupported, its chunks
    /// below the relevance threshold, the aspects its chunks or its answer miss.
    pub fn from_results(item: &Item, results: &[MetricResult]) -> Evidence {
        Evidence::of(&CaseEvidence::read(item, results))
    }

    /// The problems in an item's evidence, read once by `CaseEvidence`.
    pub fn of(case: &CaseEvidence) -> Evidence {
        let unsupported_claims = case
            .claims
            .iter()
            .filter_map(|c| {
                let support = match c.support.as_str() {
                    "partially_hallucinated" => "partially unsupported",
                    "fully_hallucinated" => "unsupported",
                    _ => return None,
                };
                Some(ClaimEvidence {
                    claim: c.claim.clone(),
                    support: support.to_string(),
                    reason: c.reason.clone(),
                })
            })
            .collect();
        // A run that did not store its threshold used the metric's default.
        let tau = case
            .relevance_threshold
            .unwrap_or(crate::metrics::ragvue::DEFAULT_TAU);
        let irrelevant_chunks = case
            .contexts
            .iter()
            .filter_map(|c| {
                let relevance = c.relevance.filter(|r| *r < tau)?;
                Some(ChunkEvidence {
                    rank: c.index as usize + 1,
                    doc_id: c.id.clone(),
                    relevance,
                    reason: c.relevance_reason.clone().unwrap_or_default(),
                    excerpt: excerpt(&c.text, CHUNK_EXCERPT),
                })
            })
            .collect();
        let missing = |from: &'static str, flag: fn(&AspectView) -> Option<bool>| {
            case.aspects
                .iter()
                .filter(move |a| flag(a) == Some(false))
                .map(move |a| AspectEvidence {
                    aspect: a.aspect.clone(),
                    missing_from: from.to_string(),
                })
        };
        let missing_aspects = missing(FROM_CHUNKS, |a| a.covered)
            .chain(missing(FROM_ANSWER, |a| a.addressed))
            .collect();
        Evidence {
            unsupported_claims,
            irrelevant_chunks,
            missing_aspects,
        }
    }
}

/// The first `max_chars` characters, with "…" when something was cut.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let mut chars = text.chars();
    let cut: String = chars.by_ref().take(max_chars).collect();
    if chars.next().is_some() {
        format!("{}…", cut.trim_end())
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::item::Context;

    #[test]
    fn reads_unsupported_claims_irrelevant_chunks_and_missing_aspects() {
        let item = Item {
            question: "q".into(),
            contexts: vec![
                Context {
                    id: Some("D1".into()),
                    text: "useful".into(),
                },
                Context {
                    id: None,
                    text: "off topic text".into(),
                },
            ],
            ..Default::default()
        };
        let results = vec![
            MetricResult::ok(
                "ragvue.strict_faithfulness",
                0.5,
                "",
                json!({ "claims": [
                    { "claim": "A", "support": "supported", "reason": "" },
                    { "claim": "B", "support": "fully_hallucinated", "reason": "no chunk says B" }
                ]}),
            ),
            MetricResult::ok(
                "ragvue.retrieval_relevance",
                0.5,
                "",
                json!({ "tau": 0.7, "chunks": [
                    { "index": 0, "relevance": 0.9, "reason": "" },
                    { "index": 1, "relevance": 0.1, "reason": "unrelated" }
                ]}),
            ),
            MetricResult::ok(
                "ragvue.answer_completeness",
                0.5,
                "",
                json!({ "aspects": [{ "aspect": "cost", "addressed": false }, { "aspect": "time", "addressed": true }] }),
            ),
            MetricResult::error("ragvue.retrieval_coverage", "judge failed"),
        ];
        let e = Evidence::from_results(&item, &results);
        assert_eq!(
            e.unsupported_claims.len(),
            1,
            "supported claims are not evidence of failure"
        );
        assert_eq!(e.unsupported_claims[0].support, "unsupported");
        assert_eq!(e.irrelevant_chunks.len(), 1);
        assert_eq!(
            (
                e.irrelevant_chunks[0].rank,
                e.irrelevant_chunks[0].excerpt.as_str()
            ),
            (2, "off topic text")
        );
        assert_eq!(
            e.missing_aspects,
            vec![AspectEvidence {
                aspect: "cost".into(),
                missing_from: "answer".into()
            }]
        );
        let grounding = e.clone().focus(FailurePattern::Hallucination);
        assert_eq!(
            grounding.unsupported_claims.len(),
            1,
            "a hallucination is shown by its unsupported claims"
        );
        assert!(grounding.irrelevant_chunks.is_empty() && grounding.missing_aspects.is_empty());
        let retrieval = e.focus(FailurePattern::RetrievalMiss);
        assert!(retrieval.unsupported_claims.is_empty());
        assert_eq!(retrieval.irrelevant_chunks.len(), 1);
        assert!(
            retrieval.missing_aspects.is_empty(),
            "an aspect the answer missed is not a retrieval miss"
        );
    }

    #[test]
    fn excerpt_marks_a_cut() {
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(excerpt("abc", 3), "abc");
    }
}
