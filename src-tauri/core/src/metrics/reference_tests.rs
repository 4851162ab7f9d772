//! Tests for `reference`: ranking metrics and the answer-vs-ground-truth text metrics,
//! each against a value worked out by hand in the comment above its assertion.

use super::*;
use crate::item::Context;
use crate::metrics::Status;

fn ranked_item(ranked: &[&str], gold: &[&str]) -> Item {
    Item {
        question: "q".into(),
        retrieved_ids: ranked.iter().map(|s| s.to_string()).collect(),
        gold_context_ids: gold.iter().map(|s| s.to_string()).collect(),
        ..Item::default()
    }
}

fn text_item(answer: &str, truth: &str) -> Item {
    Item {
        question: "q".into(),
        answer: Some(answer.into()),
        ground_truth: Some(truth.into()),
        ..Item::default()
    }
}

fn k(k: usize) -> MetricConfig {
    MetricConfig {
        k,
        ..MetricConfig::default()
    }
}

fn score(id: &str, item: &Item, config: &MetricConfig) -> f64 {
    let r = compute(id, item, config);
    assert_eq!(r.status, Status::Ok, "{id}: {}", r.explanation);
    r.score.unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn mrr_uses_the_first_gold_id_found_in_ranked_order() {
    // Gold {d1, d7}; ranked d3, d7, d1: the first gold hit is d7 at rank 2.
    let item = ranked_item(&["d3", "d7", "d1"], &["d1", "d7"]);
    assert_eq!(score("reference.mrr_at_k", &item, &k(10)), 0.5);
    assert_eq!(score("reference.recall_at_k", &item, &k(10)), 1.0);
    let r = compute("reference.mrr_at_k", &item, &k(10));
    assert_eq!(r.details["rank"], 2);
    assert_eq!(r.details["top_k"], serde_json::json!(["d3", "d7", "d1"]));
}

#[test]
fn gold_below_k_counts_as_a_miss() {
    let item = ranked_item(&["d3", "d7", "d1"], &["d1", "d7"]);
    assert_eq!(
        score("reference.recall_at_k", &item, &k(1)),
        0.0,
        "rank 2 is outside the top 1"
    );
    assert_eq!(score("reference.mrr_at_k", &item, &k(1)), 0.0);
    let r = compute("reference.recall_at_k", &item, &k(1));
    assert_eq!(r.details["top_k"], serde_json::json!(["d3"]));
    assert!(
        r.explanation.contains("only at rank 2"),
        "{}",
        r.explanation
    );
    let absent = ranked_item(&["a", "b"], &["z"]);
    assert_eq!(score("reference.mrr_at_k", &absent, &k(10)), 0.0);
    assert_eq!(
        compute("reference.mrr_at_k", &absent, &k(10)).details["rank"],
        serde_json::Value::Null
    );
    assert_eq!(
        compute("reference.mrr_at_k", &absent, &k(0)).status,
        Status::Error,
        "k = 0 is a config error"
    );
}

#[test]
fn ranking_falls_back_to_context_ids_in_order() {
    let item = Item {
        question: "q".into(),
        contexts: ["x", "y", "gold"]
            .iter()
            .map(|id| Context {
                id: Some(id.to_string()),
                text: "t".into(),
            })
            .collect(),
        gold_context_ids: vec!["gold".into()],
        ..Item::default()
    };
    assert!(close(score("reference.mrr_at_k", &item, &k(10)), 1.0 / 3.0));
}

#[test]
fn exact_match_ignores_case_punctuation_and_articles() {
    assert_eq!(
        score(
            "reference.exact_match",
            &text_item("The Nile.", "nile"),
            &k(10)
        ),
        1.0
    );
    assert_eq!(
        score(
            "reference.exact_match",
            &text_item("The Nile river", "Nile"),
            &k(10)
        ),
        0.0
    );
}

#[test]
fn token_f1_matches_the_squad_definition() {
    // p = [eiffel, tower, in, paris], t = [eiffel, tower]: P = 1/2, R = 1 → F1 = 2/3.
    assert!(close(
        token_f1("The Eiffel Tower in Paris", "Eiffel Tower"),
        2.0 / 3.0
    ));
    // Counts are clipped: p = [cat, cat, cat], t = [cat]: common 1, P = 1/3, R = 1 → 0.5.
    assert!(close(token_f1("the cat cat cat", "a cat"), 0.5));
    assert_eq!(token_f1("banana", "the nile"), 0.0);
    // SQuAD v2 convention: both empty after normalisation → 1; one empty → 0.
    assert_eq!(token_f1("the", "a"), 1.0);
    assert_eq!(token_f1("the", "nile"), 0.0);
    assert!(close(
        score(
            "reference.token_f1",
            &text_item("a cat sat", "the cat sat on the mat"),
            &k(10)
        ),
        2.0 / 3.0
    ));
}

#[test]
fn rouge_l_is_the_lcs_f1_over_words() {
    // LCS of [police, killed, the, gunman] and [the, gunman, kill, police] is
    // [the, gunman] = 2: P = R = 2/4 → F1 = 0.5.
    assert!(close(
        rouge_l("police killed the gunman", "the gunman kill police"),
        0.5
    ));
    assert_eq!(rouge_l("Same words here.", "same words here"), 1.0);
    let w = |s: &str| text::words(s);
    assert_eq!(lcs_len(&w("a b c d e"), &w("a x c y e")), 3);
}

#[test]
fn bleu_of_identical_texts_is_one() {
    let item = text_item(
        "The Nile is the longest river.",
        "the nile is the longest river",
    );
    assert!(close(score("reference.bleu", &item, &k(10)), 1.0));
    assert!(
        close(
            score("reference.bleu", &text_item("Paris", "Paris"), &k(10)),
            1.0
        ),
        "one word, no NaN"
    );
}

#[test]
fn bleu_with_add_one_smoothing_matches_hand_computation() {
    // cand "the cat sat on the mat", ref "the cat is on the mat" (6 and 6 words, BP 1):
    // p1 = 5/6; bigrams 3 of 5 → (3+1)/(5+1); trigrams 1 of 4 → 2/5; 4-grams 0 of 3 → 1/4.
    // BLEU = (5/6 · 4/6 · 2/5 · 1/4)^(1/4) = (1/18)^(1/4) = 0.48549177170732344.
    let got = score(
        "reference.bleu",
        &text_item("the cat sat on the mat", "the cat is on the mat"),
        &k(10),
    );
    assert!(close(got, 0.48549177170732344), "got {got}");
    // A one-word answer to a two-word truth: all precisions 1, BP = exp(1 - 2/1) = e^-1.
    let short = score(
        "reference.bleu",
        &text_item("Paris", "Paris France"),
        &k(10),
    );
    assert!(close(short, (-1f64).exp()), "got {short}");
    assert_eq!(
        score("reference.bleu", &text_item("bananas", "the nile"), &k(10)),
        0.0,
        "no shared word"
    );
    let empty = score("reference.bleu", &text_item("...", "the nile"), &k(10));
    assert_eq!(empty, 0.0, "an answer without words scores 0, not NaN");
}
