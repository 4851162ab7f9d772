//! Tests for `lexical`: each score checked against a value worked out by hand.

use super::*;
use crate::item::Context;
use crate::metrics::Status;

fn item(answer: &str, contexts: &[&str]) -> Item {
    Item {
        question: "q".into(),
        answer: Some(answer.into()),
        contexts: contexts
            .iter()
            .map(|t| Context {
                id: None,
                text: t.to_string(),
            })
            .collect(),
        ..Item::default()
    }
}

fn score(id: &str, it: &Item) -> f64 {
    let r = compute(id, it);
    assert_eq!(r.status, Status::Ok, "{id}: {}", r.explanation);
    r.score.unwrap()
}

#[test]
fn answer_length_follows_the_piecewise_bands() {
    let close = |a: f64, b: f64| (a - b).abs() < 1e-12;
    assert!(close(length_score(0), 0.2) && close(length_score(2), 0.2));
    assert!(
        close(length_score(3), 0.2),
        "3 words starts the ramp at 0.2"
    );
    assert!(
        close(length_score(10), 0.8),
        "10 words ends the ramp at 0.8"
    );
    assert!(close(length_score(6), 0.2 + 0.6 * 3.0 / 7.0));
    assert!(close(length_score(11), 1.0) && close(length_score(150), 1.0));
    assert!(close(length_score(151), 1.0) && close(length_score(500), 0.5));
    assert!(close(length_score(501), 0.3));
    let r = compute("ragvue.answer_length", &item("Paris is the capital.", &[]));
    assert_eq!(r.score, Some(0.2 + 0.6 / 7.0), "4 words");
    assert_eq!(r.details["words"], 4);
}

#[test]
fn readability_is_flesch_reading_ease_over_100_with_details() {
    // 6 words, 1 sentence, 6 syllables: FRE = 206.835 - 1.015*6 - 84.6*1 = 116.145.
    let r = compute("ragvue.readability", &item("The cat sat on the mat.", &[]));
    assert_eq!(r.score, Some(1.0), "FRE above 100 is clamped to 1");
    assert_eq!(r.details["fre"], 116.145);
    assert_eq!(r.details["sentences"], 1);
    // 5 words, 2 sentences, 9 syllables (ri-vers, flow, moun-tains, e-rode, slow-ly):
    // FRE = 206.835 - 1.015*2.5 - 84.6*9/5 = 52.0175; grade = 0.39*2.5 + 11.8*1.8 - 15.59.
    let f = flesch("Rivers flow. Mountains erode slowly.").unwrap();
    assert_eq!((f.words, f.sentences, f.syllables), (5, 2, 9));
    assert!((f.reading_ease - 52.0175).abs() < 1e-9);
    assert!((f.grade_level - (0.975 + 21.24 - 15.59)).abs() < 1e-9);
    let hard = "Institutionalised epistemological considerations notwithstanding, \
                interdisciplinary methodologies necessitate comprehensive reconceptualisation.";
    assert_eq!(
        score("ragvue.readability", &item(hard, &[])),
        0.0,
        "very hard text clamps to 0"
    );
    assert_eq!(
        compute("ragvue.readability", &item("...", &[])).status,
        Status::Skipped
    );
}

#[test]
fn token_overlap_is_f1_of_content_word_sets() {
    // Answer content set {nile, longest, river}. Only the second sentence shares two or
    // more of them: recall is over its set {nile, longest, river, earth}. Shared 3:
    // P = 1, R = 3/4, F1 = 2*0.75/1.75 = 6/7.
    let it = item(
        "The Nile is the longest river.",
        &[
            "The Nile flows in Africa.",
            "The Nile is the longest river on Earth.",
        ],
    );
    assert!((score("ragvue.token_overlap", &it) - 6.0 / 7.0).abs() < 1e-12);
    let none = item("Bananas are yellow.", &["The Nile flows in Africa."]);
    assert_eq!(
        score("ragvue.token_overlap", &none),
        0.0,
        "disjoint vocabularies overlap 0"
    );
    let only_stop = item("It is what it is.", &["The Nile flows."]);
    assert_eq!(
        compute("ragvue.token_overlap", &only_stop).status,
        Status::Skipped
    );
}

#[test]
fn token_overlap_does_not_collapse_when_the_contexts_are_long() {
    // A real SQuAD 2.0 article (shared/data): an answer made of one of its sentences,
    // against the whole article as five chunks. Recall over every context word gave
    // about 0.05 here whatever the answer.
    let path = crate::paths::shared_data_dir().join("squad2-sample/dev-v2.0-articles-1-8.json");
    let squad: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let chunks: Vec<String> = squad["data"][0]["paragraphs"]
        .as_array()
        .unwrap()
        .iter()
        .take(5)
        .map(|p| p["context"].as_str().unwrap().to_string())
        .collect();
    let total_words: usize = chunks.iter().map(|c| c.split_whitespace().count()).sum();
    assert!(total_words > 400, "long contexts: {total_words} words");
    let answer = crate::text::sentences(&chunks[2])[0].to_string();
    let refs: Vec<&str> = chunks.iter().map(String::as_str).collect();
    let grounded = score("ragvue.token_overlap", &item(&answer, &refs));
    assert!(
        grounded > 0.6,
        "a sentence taken from the contexts overlaps them: {grounded}"
    );
    let unrelated = score(
        "ragvue.token_overlap",
        &item("Bananas ripen quickly in warm kitchens.", &refs),
    );
    assert!(unrelated < 0.2, "{unrelated}");
}

#[test]
fn context_similarity_is_tfidf_cosine_with_smoothed_idf() {
    let same = item("Nile river Africa", &["Nile river Africa"]);
    assert!(
        (score("ragvue.context_similarity", &same) - 1.0).abs() < 1e-12,
        "identical text has cosine 1"
    );
    let disjoint = item("bananas", &["Nile river"]);
    assert_eq!(score("ragvue.context_similarity", &disjoint), 0.0);
    // Two chunks: "nile" in both (df 2), "egypt" in one (df 1), "amazon" in none.
    // idf: nile = ln(3/3)+1 = 1; egypt = ln(3/2)+1; amazon = ln(3/1)+1.
    // answer tf {nile 1, amazon 1}; contexts tf {nile 2, egypt 1}.
    let it = item("Nile Amazon", &["Nile Egypt", "Nile"]);
    let (nile, egypt, amazon) = (1.0, (1.5f64).ln() + 1.0, 3f64.ln() + 1.0);
    let expected = (2.0 * nile * nile)
        / ((nile * nile + amazon * amazon).sqrt() * (4.0 * nile * nile + egypt * egypt).sqrt());
    assert!((score("ragvue.context_similarity", &it) - expected).abs() < 1e-12);
    assert_eq!(smoothed_idf(2, 0), 3f64.ln() + 1.0);
}
