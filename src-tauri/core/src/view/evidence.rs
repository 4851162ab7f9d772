//! The evidence behind a low score, read back from the structured `details` the metrics
//! stored: unsupported claims, irrelevant chunks, missing aspects. What a reader needs
//! to believe a diagnosis without opening the raw results.
//!
//! Owns: reading those detail shapes (written by `metrics::ragvue`). Tolerant: a detail
//! that is absent or shaped differently yields no evidence, never an error, because old
//! runs and other judges may not carry it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::analysis::diagnosis::FailurePattern;
use crate::item::Item;
use crate::metrics::{MetricResult, Status};

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

    /// Collects the evidence of one item's `ok` results.
    pub fn from_results(item: &Item, results: &[MetricResult]) -> Evidence {
        let mut evidence = Evidence::default();
        for result in results.iter().filter(|r| r.status == Status::Ok) {
            match result.metric.as_str() {
                "ragvue.strict_faithfulness" => evidence.add_claims(&result.details),
                "ragvue.retrieval_relevance" => evidence.add_chunks(item, &result.details),
                "ragvue.retrieval_coverage" => {
                    evidence.add_aspects(&result.details, "covered", FROM_CHUNKS)
                }
                "ragvue.answer_completeness" => {
                    evidence.add_aspects(&result.details, "addressed", FROM_ANSWER)
                }
                _ => {}
            }
        }
        evidence
    }

    fn add_claims(&mut self, details: &Value) {
        for claim in array(details, "claims") {
            let support = match claim.get("support").and_then(Value::as_str) {
                Some("partially_hallucinated") => "partially unsupported",
                Some("fully_hallucinated") => "unsupported",
                _ => continue,
            };
            self.unsupported_claims.push(ClaimEvidence {
                claim: text(claim, "claim"),
                support: support.to_string(),
                reason: text(claim, "reason"),
            });
        }
    }

    fn add_chunks(&mut self, item: &Item, details: &Value) {
        let tau = details.get("tau").and_then(Value::as_f64).unwrap_or(0.7);
        for chunk in array(details, "chunks") {
            let (Some(index), Some(relevance)) = (
                chunk.get("index").and_then(Value::as_u64),
                chunk.get("relevance").and_then(Value::as_f64),
            ) else {
                continue;
            };
            if relevance >= tau {
                continue;
            }
            let context = item.contexts.get(index as usize);
            self.irrelevant_chunks.push(ChunkEvidence {
                rank: index as usize + 1,
                doc_id: context.and_then(|c| c.id.clone()),
                relevance,
                reason: text(chunk, "reason"),
                excerpt: context
                    .map(|c| excerpt(&c.text, CHUNK_EXCERPT))
                    .unwrap_or_default(),
            });
        }
    }

    fn add_aspects(&mut self, details: &Value, flag: &str, missing_from: &str) {
        for aspect in array(details, "aspects") {
            if aspect.get(flag).and_then(Value::as_bool) == Some(false) {
                self.missing_aspects.push(AspectEvidence {
                    aspect: text(aspect, "aspect"),
                    missing_from: missing_from.to_string(),
                });
            }
        }
    }
}

fn array<'a>(details: &'a Value, key: &str) -> &'a [Value] {
    details
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

fn text(value: &Value, key: &str) -> String {
    value
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
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
