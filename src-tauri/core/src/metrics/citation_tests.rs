//! Tests for `citation`: extraction with the default and custom patterns, the per-item
//! 0/1 metrics with their evidence, and the dataset summary worked out by hand.

use std::sync::Arc;

use super::*;
use crate::metrics::Status;

fn default_regex() -> Arc<Regex> {
    compile_pattern(DEFAULT_PATTERN).unwrap()
}

fn item(answer: &str, gold: &str, retrieved: &[&str]) -> Item {
    Item {
        question: "q".into(),
        answer: Some(answer.into()),
        citation_label: Some(gold.into()),
        retrieved_ids: retrieved.iter().map(|s| s.to_string()).collect(),
        ..Item::default()
    }
}

fn run(id: &str, it: &Item) -> MetricResult {
    let r = compute(id, it, &MetricConfig::default());
    assert_eq!(r.status, Status::Ok, "{id}: {}", r.explanation);
    r
}

#[test]
fn default_pattern_reads_all_four_styles_as_the_same_id() {
    let got = extract_cited(
        "See [ID: 17], [17], [doc17], [Doc-17] and 【17】.",
        &default_regex(),
    );
    assert_eq!(got, vec!["17"], "every style cites article 17, once");
}

#[test]
fn default_pattern_splits_lists_and_ignores_bracketed_words() {
    let got = extract_cited(
        "A [2][1] B [ID: 3; ID: 4] C [1, 5] [sic] [optional] [ID: abc-9]",
        &default_regex(),
    );
    assert_eq!(
        got,
        vec!["2", "1", "3", "4", "5", "abc-9"],
        "distinct ids in order of first appearance"
    );
    assert!(extract_cited("No citation here (see above).", &default_regex()).is_empty());
}

#[test]
fn gold_id_and_cited_id_are_normalised_the_same_way() {
    assert_eq!(normalize_id(" doc17 "), "17");
    assert_eq!(normalize_id("ID: 42"), "42");
    assert_eq!(
        normalize_id("docker"),
        "docker",
        "a doc- prefix is only dropped before a digit"
    );
    assert_eq!(normalize_id("idea"), "idea");
    assert_eq!(
        normalize_id("007"),
        "007",
        "leading zeros are kept: ids are strings"
    );
    let r = run(
        "citation.strict_accuracy",
        &item("Answer [17].", "doc17", &[]),
    );
    assert_eq!(r.score, Some(1.0), "gold doc17 matches [17]");
}

#[test]
fn wrong_citation_fails_both_accuracies_with_a_plain_explanation() {
    let it = item("The river is long [3].", "7", &[]);
    let r = run("citation.strict_accuracy", &it);
    assert_eq!(r.score, Some(0.0));
    assert_eq!(
        r.explanation,
        "The answer cites [3] but the gold source is 7."
    );
    assert_eq!(r.details["cited"], serde_json::json!(["3"]));
    assert!(
        r.details.get("pattern").is_none(),
        "the default pattern is named in the methodology, not in every result"
    );
    assert_eq!(run("citation.lenient_accuracy", &it).score, Some(0.0));
}

#[test]
fn citing_gold_with_others_is_lenient_but_not_strict() {
    let it = item("Yes [7] and also [3].", "7", &["7", "8"]);
    assert_eq!(run("citation.strict_accuracy", &it).score, Some(0.0));
    assert_eq!(run("citation.lenient_accuracy", &it).score, Some(1.0));
    assert_eq!(run("citation.multi_citation_rate", &it).score, Some(1.0));
    assert_eq!(run("citation.no_citation_rate", &it).score, Some(0.0));
    let r = run("citation.strict_accuracy", &it);
    assert_eq!(
        r.details["cited_not_retrieved"],
        serde_json::json!(["3"]),
        "3 was cited but never retrieved"
    );
    assert!(r.explanation.contains("also [3]"), "{}", r.explanation);
}

#[test]
fn no_citation_is_flagged_and_retrieval_evidence_is_null_without_ranks() {
    let it = item("The Nile.", "7", &[]);
    let r = run("citation.no_citation_rate", &it);
    assert_eq!(r.score, Some(1.0));
    assert_eq!(r.details["cited_not_retrieved"], serde_json::Value::Null);
    assert_eq!(run("citation.lenient_accuracy", &it).score, Some(0.0));
    assert_eq!(run("citation.multi_citation_rate", &it).score, Some(0.0));
}

#[test]
fn invalid_custom_pattern_is_an_error_not_a_zero() {
    let config = MetricConfig {
        citation_pattern: "[ID: (".into(),
        ..MetricConfig::default()
    };
    for _ in 0..2 {
        let r = compute("citation.strict_accuracy", &item("[7]", "7", &[]), &config);
        assert_eq!(r.status, Status::Error);
        assert_eq!(r.score, None);
        assert!(
            r.explanation.contains("not a valid regular expression"),
            "{}",
            r.explanation
        );
    }
}

#[test]
fn custom_pattern_is_compiled_once_and_used() {
    let pattern = r"<cite>(\w+)</cite>";
    let first = compile_pattern(pattern).unwrap();
    assert!(
        Arc::ptr_eq(&first, &compile_pattern(pattern).unwrap()),
        "second lookup hits the cache"
    );
    let config = MetricConfig {
        citation_pattern: pattern.into(),
        ..MetricConfig::default()
    };
    let r = compute(
        "citation.lenient_accuracy",
        &item("See <cite>doc4</cite> [9].", "4", &[]),
        &config,
    );
    assert_eq!(r.score, Some(1.0));
    assert_eq!(
        r.details["cited"],
        serde_json::json!(["4"]),
        "[9] does not match the custom pattern"
    );
    assert_eq!(
        r.details["pattern"], pattern,
        "a custom pattern is evidence"
    );
}

#[test]
fn summary_macro_scores_and_confusion_match_hand_computation() {
    let pairs = vec![
        ("1".to_string(), vec!["1".to_string()]), // strict hit
        ("1".to_string(), vec!["2".to_string()]), // wrong
        ("2".to_string(), vec!["3".to_string(), "2".into()]), // lenient hit, multi, gold cited second
        ("2".to_string(), vec![]),                            // no citation
        ("3".to_string(), vec!["doc3".to_string()]),          // strict hit after normalisation
        ("1".to_string(), vec!["1".to_string()]),             // strict hit
        ("1".to_string(), vec!["9".to_string()]),             // cites an id that is never gold
    ];
    let s = summarize(pairs, 2);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert_eq!(s.items, 7);
    assert!(close(s.strict_accuracy, 3.0 / 7.0) && close(s.lenient_accuracy, 4.0 / 7.0));
    assert!(close(s.no_citation_rate, 1.0 / 7.0) && close(s.multi_citation_rate, 1.0 / 7.0));
    // Article 1: cited by 2 items, both gold 1 → P 1; gold 4 times, cited in 2 → R 1/2; F1 2/3.
    // Article 2: cited by 2 (items 2, 3), 1 correct → P 1/2; R 1/2; F1 1/2.
    // Article 3: cited by 2 (items 3, 5), 1 correct → P 1/2; R 1; F1 2/3.
    // "9" is never gold, so it is not a class: macro means run over {1, 2, 3}.
    assert!(close(s.macro_precision, 2.0 / 3.0), "{}", s.macro_precision);
    assert!(close(s.macro_recall, 2.0 / 3.0), "{}", s.macro_recall);
    assert!(close(s.macro_f1, 11.0 / 18.0), "{}", s.macro_f1);
    assert_eq!(s.gold_articles, 3);
    assert_eq!(
        s.top_articles
            .iter()
            .map(|a| a.id.as_str())
            .collect::<Vec<_>>(),
        vec!["1", "2"]
    );
    assert_eq!(s.confusion.rows, vec!["1", "2", "other"]);
    assert_eq!(s.confusion.columns, vec!["1", "2", "other", "none"]);
    // Gold 1 → cited 9 lands in the "other" column; gold 3 is outside the top 2 ("other" row);
    // the item citing [3][2] with gold 2 sits on the diagonal because it cites its gold.
    assert_eq!(
        s.confusion.counts,
        vec![vec![2, 1, 1, 0], vec![0, 1, 0, 1], vec![0, 0, 1, 0]]
    );
}

#[test]
fn summary_of_nothing_is_all_zero_not_nan() {
    let s = summarize(Vec::new(), 5);
    assert_eq!((s.items, s.strict_accuracy, s.macro_f1), (0, 0.0, 0.0));
    assert_eq!(
        s.confusion.counts,
        vec![vec![0, 0]],
        "only the other row with other/none columns"
    );
}
