//! One item's evidence as its metrics stored it in their `details`, read once into types:
//! each retrieved chunk with its judged relevance and whether the answer used it, the
//! answer's claims with their support, the question's parts with coverage and
//! addressing, RAGXplain's grading note and RAGalyst's failure taxonomy. The window's
//! case view shows it whole; a report quotes the problems in it (`evidence::Evidence`).
//!
//! Owns: reading the detail shapes the metrics write (`metrics::ragvue`, `ragxplain`,
//! `ragalyst`); this is their one reader. Tolerant: a detail that is absent or shaped
//! differently yields nothing, never an error, because old runs and other judges may not
//! carry it.

use serde::Serialize;
use serde_json::Value;

use crate::item::Item;
use crate::judge::task::FailureCheck;
use crate::metrics::{MetricResult, Status};

/// A retrieved chunk with what the metrics said about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ContextView {
    /// The chunk's 0-based position in the retrieved list, as claims and metrics cite it.
    pub index: u32,
    /// The document id the pipeline gave the chunk, when it had one.
    pub id: Option<String>,
    /// The chunk's full text.
    pub text: String,
    /// Judge's usefulness in [0, 1] (retrieval_relevance); null when not judged.
    pub relevance: Option<f64>,
    /// The judge's reason for that relevance; null when not judged or not given.
    pub relevance_reason: Option<String>,
    /// The answer draws on it (context_utilization); null when not judged.
    pub used: Option<bool>,
}

/// A claim of the answer and whether the contexts support it (strict_faithfulness).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ClaimView {
    /// The claim as extracted from the answer.
    pub claim: String,
    /// "supported", "partially_hallucinated" or "fully_hallucinated".
    pub support: String,
    /// The judge's reason for the verdict; empty when it gave none.
    pub reason: String,
    /// Index of the chunk that supports (or best matches) it.
    pub chunk: Option<u32>,
    /// The judge said unsupported but the claim appears word for word in the contexts.
    pub verbatim_rescue: bool,
}

/// A part of the question: whether the contexts cover it and whether the answer
/// addresses it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AspectView {
    /// The part of the question, as extracted or as the item's own `aspects` gave it.
    pub aspect: String,
    /// The retrieved chunks cover it (retrieval_coverage); null when not judged.
    pub covered: Option<bool>,
    /// The answer addresses it (answer_completeness); null when not judged.
    pub addressed: Option<bool>,
    /// The judge's evidence for it, retrieval coverage's first; null when none was given.
    pub evidence: Option<String>,
}

/// Everything an item's `ok` results say beyond their scores.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CaseEvidence {
    /// Every retrieved chunk, in retrieved order.
    pub contexts: Vec<ContextView>,
    /// The relevance a chunk must reach to count as useful, as retrieval relevance used it.
    pub relevance_threshold: Option<f64>,
    /// The answer's claims with their support; empty when strict faithfulness did not score.
    pub claims: Vec<ClaimView>,
    /// The question's parts with coverage and addressing; empty when neither metric scored.
    pub aspects: Vec<AspectView>,
    /// RAGXplain's grading note: the structure a good answer to this question has.
    pub grading_note: Vec<String>,
    /// RAGalyst's failure taxonomy (every category), when correctness was below 0.9.
    pub failures: Vec<FailureCheck>,
    /// The gold context was not among the top retrieved, when the item has a ranking.
    pub missed_top_ranked: Option<bool>,
}

impl CaseEvidence {
    /// Reads the details of `item`'s `ok` results (errored and skipped ones say nothing).
    pub fn read(item: &Item, results: &[MetricResult]) -> CaseEvidence {
        let relevance = ok_details(results, "ragvue.retrieval_relevance");
        let correctness = ok_details(results, "ragalyst.answer_correctness");
        CaseEvidence {
            contexts: contexts(item, results),
            relevance_threshold: relevance.and_then(|d| d.get("tau")).and_then(Value::as_f64),
            claims: claims(results),
            aspects: aspects(results),
            grading_note: ok_details(results, "ragxplain.grading_note")
                .and_then(|d| d.get("structure_note"))
                .and_then(|n| serde_json::from_value(n.clone()).ok())
                .unwrap_or_default(),
            failures: correctness
                .and_then(|d| d.get("failures"))
                .and_then(|f| serde_json::from_value(f.clone()).ok())
                .unwrap_or_default(),
            missed_top_ranked: correctness
                .and_then(|d| d.get("missed_top_ranked"))
                .and_then(Value::as_bool),
        }
    }
}

fn ok_details<'a>(results: &'a [MetricResult], metric: &str) -> Option<&'a Value> {
    results
        .iter()
        .find(|r| r.metric == metric && r.status == Status::Ok)
        .map(|r| &r.details)
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .map(String::from)
        .filter(|s| !s.is_empty())
}

/// Each retrieved chunk with its judged relevance and whether the answer used it.
fn contexts(item: &Item, results: &[MetricResult]) -> Vec<ContextView> {
    let chunk_scores: &[Value] = ok_details(results, "ragvue.retrieval_relevance")
        .and_then(|d| d.get("chunks"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let used: Option<Vec<u64>> = ok_details(results, "ragvue.context_utilization")
        .and_then(|d| d.get("used_chunks"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_u64).collect());
    item.contexts
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let score = chunk_scores
                .iter()
                .find(|s| s.get("index").and_then(Value::as_u64) == Some(i as u64));
            ContextView {
                index: i as u32,
                id: c.id.clone(),
                text: c.text.clone(),
                relevance: score
                    .and_then(|s| s.get("relevance"))
                    .and_then(Value::as_f64),
                relevance_reason: score.and_then(|s| text(s, "reason")),
                used: used.as_ref().map(|u| u.contains(&(i as u64))),
            }
        })
        .collect()
}

/// The answer's claims as strict faithfulness labelled them.
fn claims(results: &[MetricResult]) -> Vec<ClaimView> {
    let Some(claims) = ok_details(results, "ragvue.strict_faithfulness")
        .and_then(|d| d.get("claims"))
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    claims
        .iter()
        .filter_map(|c| {
            Some(ClaimView {
                claim: text(c, "claim")?,
                support: text(c, "support").unwrap_or_else(|| "unknown".into()),
                reason: text(c, "reason").unwrap_or_default(),
                chunk: c.get("chunk").and_then(Value::as_u64).map(|n| n as u32),
                verbatim_rescue: c
                    .get("verbatim_rescue")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
        })
        .collect()
}

/// The question's aspects, merged from retrieval coverage (covered by the chunks?) and
/// answer completeness (addressed by the answer?).
fn aspects(results: &[MetricResult]) -> Vec<AspectView> {
    let mut aspects: Vec<AspectView> = Vec::new();
    for (metric, covered) in [
        ("ragvue.retrieval_coverage", true),
        ("ragvue.answer_completeness", false),
    ] {
        let flag = if covered { "covered" } else { "addressed" };
        let list = ok_details(results, metric)
            .and_then(|d| d.get("aspects"))
            .and_then(Value::as_array);
        for a in list.into_iter().flatten() {
            let Some(name) = text(a, "aspect") else {
                continue;
            };
            let at = match aspects.iter().position(|x| x.aspect == name) {
                Some(at) => at,
                None => {
                    aspects.push(AspectView {
                        aspect: name,
                        covered: None,
                        addressed: None,
                        evidence: None,
                    });
                    aspects.len() - 1
                }
            };
            let entry = &mut aspects[at];
            let value = a.get(flag).and_then(Value::as_bool);
            if covered {
                entry.covered = value;
            } else {
                entry.addressed = value;
            }
            if entry.evidence.is_none() {
                entry.evidence = text(a, "evidence");
            }
        }
    }
    aspects
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::item::Context;

    #[test]
    fn an_item_reads_as_its_chunks_claims_and_merged_aspects_and_an_errored_metric_says_nothing() {
        let item = Item {
            question: "q".into(),
            contexts: vec![
                Context {
                    id: Some("D1".into()),
                    text: "first".into(),
                },
                Context {
                    id: None,
                    text: "second".into(),
                },
            ],
            ..Default::default()
        };
        let results = vec![
            MetricResult::ok(
                "ragvue.retrieval_relevance",
                0.5,
                "",
                json!({ "tau": 0.6, "chunks": [{ "index": 1, "relevance": 0.2, "reason": "off" }] }),
            ),
            MetricResult::ok(
                "ragvue.context_utilization",
                1.0,
                "",
                json!({ "used_chunks": [0] }),
            ),
            MetricResult::ok(
                "ragvue.strict_faithfulness",
                0.5,
                "",
                json!({ "claims": [
                    { "claim": "A", "support": "supported", "chunk": 0 },
                    { "claim": "", "support": "fully_hallucinated" }
                ]}),
            ),
            MetricResult::ok(
                "ragvue.retrieval_coverage",
                0.5,
                "",
                json!({ "aspects": [{ "aspect": "cost", "covered": false, "evidence": "none" }] }),
            ),
            MetricResult::ok(
                "ragvue.answer_completeness",
                0.5,
                "",
                json!({ "aspects": [{ "aspect": "cost", "addressed": true }, { "aspect": "time", "addressed": false }] }),
            ),
            MetricResult::error("ragalyst.answer_correctness", "judge failed"),
        ];
        let case = CaseEvidence::read(&item, &results);
        assert_eq!(case.relevance_threshold, Some(0.6));
        assert_eq!(
            case.contexts
                .iter()
                .map(|c| (c.relevance, c.used))
                .collect::<Vec<_>>(),
            vec![(None, Some(true)), (Some(0.2), Some(false))]
        );
        assert_eq!(case.contexts[1].relevance_reason.as_deref(), Some("off"));
        assert_eq!(case.claims.len(), 1, "a claim with no text is left out");
        assert_eq!(case.claims[0].chunk, Some(0));
        let aspects: Vec<_> = case
            .aspects
            .iter()
            .map(|a| (a.aspect.as_str(), a.covered, a.addressed))
            .collect();
        assert_eq!(
            aspects,
            vec![
                ("cost", Some(false), Some(true)),
                ("time", None, Some(false))
            ],
            "one row per aspect, coverage and completeness merged"
        );
        assert!(case.failures.is_empty() && case.missed_top_ranked.is_none());
    }
}
