//! Tests for `ragchecker`: the real two-item example against hand-computed numbers,
//! shape errors, degenerate items and the grouped export.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::*;
use crate::item::{Context, Label::*};
use crate::metrics::Status;

const IDS: [&str; 11] = [
    "ragchecker.precision",
    "ragchecker.recall",
    "ragchecker.f1",
    "ragchecker.claim_recall",
    "ragchecker.context_precision",
    "ragchecker.context_utilization",
    "ragchecker.noise_sensitivity_relevant",
    "ragchecker.noise_sensitivity_irrelevant",
    "ragchecker.hallucination",
    "ragchecker.self_knowledge",
    "ragchecker.faithfulness",
];

fn example_path() -> PathBuf {
    crate::paths::shared_data_dir().join("ragchecker-example/claims_and_labels.json")
}

/// Claims in the file are (subject, predicate, object) triplets: joined with a space.
fn claims(v: &Value) -> Vec<String> {
    let join = |c: &Value| match c {
        Value::Array(parts) => parts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" "),
        other => other.as_str().unwrap_or_default().to_string(),
    };
    v.as_array()
        .expect("claims are a list")
        .iter()
        .map(join)
        .collect()
}

fn labels(v: &Value) -> Vec<Label> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| Label::parse(l.as_str().unwrap()).expect("known label"))
        .collect()
}

fn matrix(v: &Value) -> Vec<Vec<Label>> {
    v.as_array().unwrap().iter().map(labels).collect()
}

/// Reads the example file straight into `Item`s (independent of the importer).
fn example_items() -> Vec<Item> {
    let path = example_path();
    let raw = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let json: Value = serde_json::from_str(&raw).unwrap();
    json["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| Item {
            id: r["query_id"].as_str().map(str::to_string),
            question: r["query"].as_str().unwrap().to_string(),
            answer: r["response"].as_str().map(str::to_string),
            ground_truth: r["gt_answer"].as_str().map(str::to_string),
            contexts: r["retrieved_context"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| Context {
                    id: c["doc_id"].as_str().map(str::to_string),
                    text: c["text"].as_str().unwrap().to_string(),
                })
                .collect(),
            ragchecker: Some(RagCheckerLabels {
                response_claims: Some(claims(&r["response_claims"])),
                gt_answer_claims: Some(claims(&r["gt_answer_claims"])),
                answer2response: Some(labels(&r["answer2response"])),
                response2answer: Some(labels(&r["response2answer"])),
                retrieved2response: Some(matrix(&r["retrieved2response"])),
                retrieved2answer: Some(matrix(&r["retrieved2answer"])),
            }),
            ..Item::default()
        })
        .collect()
}

fn scores(item: &Item) -> Vec<f64> {
    IDS.iter()
        .map(|id| {
            let r = compute(id, item);
            assert_eq!(r.status, Status::Ok, "{id}: {}", r.explanation);
            r.score.unwrap()
        })
        .collect()
}

/// Expected values were derived independently of this code by a 30-line Python script
/// written from the METRICS.md Family 3 formulas (label == "Entailment" → true; chunk k
/// relevant iff any retrieved2answer[j][k]; mean over claims; 0 for empty denominators),
/// run on the same file, and pasted here as printed (Python `repr` of each float). Item 0
/// by hand: 8/11 response claims entailed by the GT; 11/22 GT claims in the response;
/// 5/22 GT claims entailed by a chunk; relevant chunks {0, 1, 3} of 4; claims 0 and 9 are
/// wrong but entailed by relevant chunks (2/11); claim 10 is wrong and unsupported (1/11);
/// claims 1-5 and 7 are correct and unsupported (6/11); claims 0, 6, 8, 9 have a chunk (4/11).
const EXPECTED: [[f64; 11]; 2] = [
    [
        0.7272727272727273,  // precision
        0.5,                 // recall
        0.5925925925925926,  // f1
        0.22727272727272727, // claim_recall
        0.75,                // context_precision
        1.0,                 // context_utilization
        0.18181818181818182, // noise_sensitivity_relevant
        0.0,                 // noise_sensitivity_irrelevant
        0.09090909090909091, // hallucination
        0.5454545454545454,  // self_knowledge
        0.36363636363636365, // faithfulness
    ],
    [
        0.8,                // precision
        0.75,               // recall
        0.7741935483870969, // f1
        1.0,                // claim_recall
        1.0,                // context_precision
        0.75,               // context_utilization
        0.2,                // noise_sensitivity_relevant
        0.0,                // noise_sensitivity_irrelevant
        0.0,                // hallucination
        0.0,                // self_knowledge
        1.0,                // faithfulness
    ],
];

#[test]
fn ragchecker_example_matches_hand_computed_values() {
    let items = example_items();
    assert_eq!(items.len(), 2, "the example file holds two items");
    for (item, expected) in items.iter().zip(EXPECTED) {
        for ((id, got), want) in IDS.iter().zip(scores(item)).zip(expected) {
            assert!(
                (got - want).abs() < 1e-12,
                "item {:?} {id}: got {got}, hand-computed {want}",
                item.id
            );
        }
    }
    // The evidence names the relevant chunks and the flagged claims.
    let r = compute("ragchecker.hallucination", &items[0]);
    assert_eq!(r.details["relevant_chunks"], serde_json::json!([0, 1, 3]));
    let flagged: Vec<u64> = r.details["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["flagged"] == true)
        .map(|c| c["index"].as_u64().unwrap())
        .collect();
    assert_eq!(
        flagged,
        vec![10],
        "only the 4,350-miles claim is wrong and unsupported"
    );
    assert_eq!(
        r.details["claims"][10]["claim"],
        "Amazon River length 4,350 miles"
    );
    let cp = compute("ragchecker.context_precision", &items[0]);
    assert_eq!(cp.details["chunks"][2]["relevant"], false);
    assert_eq!(cp.details["chunks"][2]["id"], "002");
}

#[test]
fn grouped_export_of_the_example_has_ragchecker_groups_in_percent() {
    let items = example_items();
    let pairs = items.iter().flat_map(|it| {
        IDS.iter()
            .map(move |id| (*id, compute(id, it).score.unwrap()))
    });
    let got = grouped_export_from_scores(pairs);
    // Macro means of EXPECTED's two rows, ×100, rounded to one decimal.
    let want = serde_json::json!({
        "overall_metrics": { "precision": 76.4, "recall": 62.5, "f1": 68.3 },
        "retriever_metrics": { "claim_recall": 61.4, "context_precision": 87.5 },
        "generator_metrics": {
            "context_utilization": 87.5,
            "noise_sensitivity_in_relevant": 19.1,
            "noise_sensitivity_in_irrelevant": 0.0,
            "hallucination": 4.5,
            "self_knowledge": 27.3,
            "faithfulness": 68.2
        }
    });
    assert_eq!(got, want);
}

#[test]
fn grouped_export_shows_null_for_metrics_never_scored() {
    let means = BTreeMap::from([("ragchecker.precision".to_string(), 0.12345)]);
    let got = grouped_export(&means);
    assert_eq!(got["overall_metrics"]["precision"], 12.3);
    assert_eq!(got["overall_metrics"]["recall"], Value::Null);
}

fn item_with(labels: RagCheckerLabels, n_chunks: usize) -> Item {
    Item {
        question: "q".into(),
        answer: Some("a".into()),
        ground_truth: Some("gt".into()),
        contexts: (0..n_chunks)
            .map(|k| Context {
                id: None,
                text: format!("chunk {k}"),
            })
            .collect(),
        ragchecker: Some(labels),
        ..Item::default()
    }
}

#[test]
fn inconsistent_label_lengths_are_an_error_naming_the_array() {
    let labels = RagCheckerLabels {
        response_claims: Some(vec!["c0".into(), "c1".into()]),
        gt_answer_claims: None,
        answer2response: Some(vec![Entailment, Neutral]),
        response2answer: Some(vec![Entailment]),
        retrieved2response: Some(vec![vec![Entailment, Neutral]]), // one row for two claims
        retrieved2answer: Some(vec![vec![Entailment, Neutral]]),
    };
    let r = compute("ragchecker.faithfulness", &item_with(labels.clone(), 2));
    assert_eq!(r.status, Status::Error, "a shape mismatch must not score");
    assert_eq!(r.score, None);
    assert!(
        r.explanation
            .contains("retrieved2response has length 1 but answer2response has length 2"),
        "{}",
        r.explanation
    );

    let mut wrong_width = labels.clone();
    wrong_width.retrieved2response = Some(vec![vec![Entailment, Neutral], vec![Neutral]]);
    let r = compute("ragchecker.precision", &item_with(wrong_width, 2));
    assert_eq!(r.status, Status::Error);
    assert!(
        r.explanation
            .contains("retrieved2response[1] has length 1 but the item has 2 retrieved chunks"),
        "{}",
        r.explanation
    );

    let mut wrong_claims = labels;
    wrong_claims.retrieved2response = Some(vec![vec![Entailment, Neutral], vec![Neutral, Neutral]]);
    wrong_claims.response_claims = Some(vec!["only one".into()]);
    let r = compute("ragchecker.recall", &item_with(wrong_claims, 2));
    assert!(
        r.explanation
            .contains("answer2response has length 2 but response_claims has length 1"),
        "{}",
        r.explanation
    );
}

#[test]
fn degenerate_items_score_zero_not_nan() {
    let empty = RagCheckerLabels {
        response_claims: Some(vec![]),
        gt_answer_claims: Some(vec![]),
        answer2response: Some(vec![]),
        response2answer: Some(vec![]),
        retrieved2response: Some(vec![]),
        retrieved2answer: Some(vec![]),
    };
    let item = item_with(empty, 3);
    for id in IDS {
        let r = compute(id, &item);
        assert_eq!(r.status, Status::Ok, "{id}");
        assert_eq!(r.score, Some(0.0), "{id} of an item without claims is 0");
    }
}

#[test]
fn only_entailment_counts_and_contradiction_is_not_support() {
    // Claim 0: correct, contradicted by chunk 0 only → unsupported → self-knowledge.
    // Claim 1: wrong (Contradiction vs GT), entailed by chunk 1, which entails no GT
    // claim → irrelevant-noise. GT claim 0 is only Neutral/Contradiction in every chunk.
    let labels = RagCheckerLabels {
        response_claims: None,
        gt_answer_claims: None,
        answer2response: Some(vec![Entailment, Contradiction]),
        response2answer: Some(vec![Contradiction]),
        retrieved2response: Some(vec![
            vec![Contradiction, Neutral],
            vec![Neutral, Entailment],
        ]),
        retrieved2answer: Some(vec![vec![Contradiction, Neutral]]),
    };
    let item = item_with(labels, 2);
    let got: Vec<f64> = scores(&item);
    let want = [0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 0.5, 0.5];
    for ((id, g), w) in IDS.iter().zip(got).zip(want) {
        assert_eq!(g, w, "{id}");
    }
    let cu = compute("ragchecker.context_utilization", &item);
    assert!(
        cu.explanation.contains("nothing to use"),
        "{}",
        cu.explanation
    );
}

#[test]
fn wrong_claim_backed_by_relevant_and_irrelevant_chunks_counts_as_relevant_noise_only() {
    // Chunk 0 entails the GT claim (relevant), chunk 1 does not (irrelevant); the single
    // wrong response claim is entailed by both, so it is relevant noise and not also
    // irrelevant noise: the two noise sensitivities never count a claim twice.
    let labels = RagCheckerLabels {
        response_claims: None,
        gt_answer_claims: None,
        answer2response: Some(vec![Contradiction]),
        response2answer: Some(vec![Neutral]),
        retrieved2response: Some(vec![vec![Entailment, Entailment]]),
        retrieved2answer: Some(vec![vec![Entailment, Neutral]]),
    };
    let item = item_with(labels, 2);
    assert_eq!(
        compute("ragchecker.noise_sensitivity_relevant", &item).score,
        Some(1.0)
    );
    assert_eq!(
        compute("ragchecker.noise_sensitivity_irrelevant", &item).score,
        Some(0.0)
    );
    assert_eq!(
        compute("ragchecker.hallucination", &item).score,
        Some(0.0),
        "a chunk supports it"
    );
}

#[test]
fn missing_label_set_is_an_error_not_a_zero() {
    let labels = RagCheckerLabels {
        answer2response: Some(vec![Entailment]),
        ..RagCheckerLabels::default()
    };
    let r = compute("ragchecker.precision", &item_with(labels, 1));
    assert_eq!(r.status, Status::Error);
    assert!(
        r.explanation.contains("no response2answer"),
        "{}",
        r.explanation
    );
}
