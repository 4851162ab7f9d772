//! The judge-free RAGVUE 0.6 metrics: `ragvue.answer_length`, `ragvue.readability`,
//! `ragvue.token_overlap`, `ragvue.context_similarity`.
//!
//! Owns: turning an answer (and its contexts) into these four scores with their
//! evidence. Must not: call a judge or touch storage. Tokens come from `crate::text`
//! (lower-cased Unicode words; stop words removed for the two overlap metrics). When the
//! text has nothing to measure (no words, no content words) the result is `Skipped` with
//! the reason, never a made-up 0.

use std::collections::{BTreeSet, HashMap};

use serde_json::json;

use super::MetricResult;
use crate::item::Item;
use crate::text;

pub fn compute(id: &str, item: &Item) -> MetricResult {
    let Some(answer) = item.answer.as_deref() else {
        return MetricResult::skipped(id, "the item has no answer");
    };
    match id {
        "ragvue.answer_length" => answer_length(id, answer),
        "ragvue.readability" => readability(id, answer),
        "ragvue.token_overlap" | "ragvue.context_similarity" => {
            if item.contexts.is_empty() {
                return MetricResult::skipped(id, "the item has no retrieved contexts");
            }
            let chunks: Vec<&str> = item.contexts.iter().map(|c| c.text.as_str()).collect();
            if id == "ragvue.token_overlap" {
                token_overlap(id, answer, &chunks)
            } else {
                context_similarity(id, answer, &chunks)
            }
        }
        _ => MetricResult::error(id, format!("{id} is not a lexical metric")),
    }
}

/// The length score for `w` words (METRICS.md): too short and very long answers lose.
pub fn length_score(w: usize) -> f64 {
    match w {
        0..=2 => 0.2,
        3..=10 => 0.2 + 0.6 * (w - 3) as f64 / 7.0,
        11..=150 => 1.0,
        151..=500 => 1.0 - 0.5 * (w - 151) as f64 / 349.0,
        _ => 0.3,
    }
}

fn answer_length(id: &str, answer: &str) -> MetricResult {
    let w = text::words(answer).len();
    let score = length_score(w);
    let verdict = match w {
        0..=2 => "is too short to be a useful answer",
        3..=10 => "is short; answers of 11 to 150 words score best",
        11..=150 => "is within the preferred 11 to 150 words",
        151..=500 => "is long; answers of 11 to 150 words score best",
        _ => "is very long (over 500 words)",
    };
    let explanation = format!("The answer has {w} word{} and {verdict}.", if w == 1 { "" } else { "s" });
    MetricResult::ok(id, score, explanation, json!({ "words": w }))
}

/// Flesch reading ease and Flesch-Kincaid grade of `text`, or `None` without words.
pub struct Flesch {
    pub reading_ease: f64,
    pub grade_level: f64,
    pub words: usize,
    pub sentences: usize,
    pub syllables: usize,
}

pub fn flesch(input: &str) -> Option<Flesch> {
    let words = text::words(input);
    if words.is_empty() {
        return None;
    }
    // Text without terminal punctuation is still one sentence.
    let sentences = text::sentences(input).len().max(1);
    let syllables: usize = words.iter().map(|w| text::syllables(w)).sum();
    let wps = words.len() as f64 / sentences as f64;
    let spw = syllables as f64 / words.len() as f64;
    Some(Flesch {
        reading_ease: 206.835 - 1.015 * wps - 84.6 * spw,
        grade_level: 0.39 * wps + 11.8 * spw - 15.59,
        words: words.len(),
        sentences,
        syllables,
    })
}

fn readability(id: &str, answer: &str) -> MetricResult {
    let Some(f) = flesch(answer) else {
        return MetricResult::skipped(id, "the answer has no words to score for readability");
    };
    let score = (f.reading_ease / 100.0).clamp(0.0, 1.0);
    let band = match f.reading_ease {
        x if x >= 80.0 => "easy to read",
        x if x >= 60.0 => "plain English",
        x if x >= 30.0 => "fairly difficult to read",
        _ => "very difficult to read",
    };
    let explanation = format!(
        "The answer is {band} (Flesch reading ease {:.0}, about school grade {:.0}).",
        f.reading_ease,
        f.grade_level.max(0.0)
    );
    let details = json!({
        "fre": round4(f.reading_ease),
        "fk_grade": round4(f.grade_level),
        "words": f.words,
        "sentences": f.sentences,
        "syllables": f.syllables,
    });
    MetricResult::ok(id, score, explanation, details)
}

/// Set F1 of content words: precision = shared / answer words, recall = shared /
/// context words, over distinct lower-cased non-stop-words.
fn token_overlap(id: &str, answer: &str, chunks: &[&str]) -> MetricResult {
    let answer_set: BTreeSet<String> = text::content_words(answer).into_iter().collect();
    if answer_set.is_empty() {
        return MetricResult::skipped(id, "the answer has no content words to compare with the contexts");
    }
    let context_set: BTreeSet<String> = chunks.iter().flat_map(|c| text::content_words(c)).collect();
    if context_set.is_empty() {
        return MetricResult::skipped(id, "the contexts have no content words to compare with the answer");
    }
    let shared: Vec<&String> = answer_set.intersection(&context_set).collect();
    let precision = shared.len() as f64 / answer_set.len() as f64;
    let recall = shared.len() as f64 / context_set.len() as f64;
    let f1 = if shared.is_empty() { 0.0 } else { 2.0 * precision * recall / (precision + recall) };
    let explanation = format!(
        "{} of the answer's {} distinct content words also appear in the retrieved contexts.",
        shared.len(),
        answer_set.len()
    );
    let answer_only: Vec<&String> = answer_set.difference(&context_set).take(20).collect();
    let details = json!({
        "precision": round4(precision),
        "recall": round4(recall),
        "answer_terms": answer_set.len(),
        "context_terms": context_set.len(),
        "shared_terms": shared.len(),
        "shared_sample": shared.iter().take(20).collect::<Vec<_>>(),
        "answer_only_sample": answer_only,
    });
    MetricResult::ok(id, f1, explanation, details)
}

/// Smoothed inverse document frequency over the item's chunks, as scikit-learn's
/// `smooth_idf`: idf(t) = ln((1 + N) / (1 + df(t))) + 1. The +1 inside acts as if one
/// extra chunk held every term, so a term no chunk contains (df = 0) gets a finite,
/// largest weight; the outer +1 keeps a term found in every chunk from vanishing (with a
/// single chunk every idf is 1 and the score is a plain term-frequency cosine).
pub fn smoothed_idf(n_chunks: usize, df: usize) -> f64 {
    ((1.0 + n_chunks as f64) / (1.0 + df as f64)).ln() + 1.0
}

/// TF-IDF cosine between the answer and the concatenated contexts. Term frequency is the
/// raw count of a content word; idf from `smoothed_idf` over the item's chunks.
fn context_similarity(id: &str, answer: &str, chunks: &[&str]) -> MetricResult {
    let answer_tf = counts(text::content_words(answer));
    if answer_tf.is_empty() {
        return MetricResult::skipped(id, "the answer has no content words to compare with the contexts");
    }
    let chunk_words: Vec<Vec<String>> = chunks.iter().map(|c| text::content_words(c)).collect();
    let mut df: HashMap<&str, usize> = HashMap::new();
    for words in &chunk_words {
        let distinct: BTreeSet<&str> = words.iter().map(String::as_str).collect();
        for w in distinct {
            *df.entry(w).or_default() += 1;
        }
    }
    if df.is_empty() {
        return MetricResult::skipped(id, "the contexts have no content words to compare with the answer");
    }
    let context_tf = counts(chunk_words.iter().flatten().cloned());
    let idf = |t: &str| smoothed_idf(chunks.len(), df.get(t).copied().unwrap_or(0));
    let norm = |tf: &HashMap<String, usize>| tf.iter().map(|(t, &n)| (n as f64 * idf(t)).powi(2)).sum::<f64>().sqrt();
    let mut contributions: Vec<(&str, f64)> = answer_tf
        .iter()
        .filter_map(|(t, &a)| context_tf.get(t).map(|&c| (t.as_str(), a as f64 * c as f64 * idf(t).powi(2))))
        .collect();
    let dot: f64 = contributions.iter().map(|(_, v)| v).sum();
    let cosine = dot / (norm(&answer_tf) * norm(&context_tf));
    contributions.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let top: Vec<_> = contributions.iter().take(10).map(|(t, v)| json!({ "term": t, "weight": round4(*v) })).collect();
    let explanation = match contributions.first() {
        None => "The answer shares no content words with the retrieved contexts.".to_string(),
        Some((t, _)) => format!(
            "The answer's wording is {} the contexts' (cosine {:.2}); the strongest shared term is \"{t}\".",
            if cosine >= 0.5 { "close to" } else if cosine >= 0.2 { "partly like" } else { "far from" },
            cosine
        ),
    };
    let details = json!({
        "cosine": round4(cosine),
        "chunks": chunks.len(),
        "idf": "ln((1+N)/(1+df))+1 over the item's chunks",
        "top_shared_terms": top,
    });
    MetricResult::ok(id, cosine, explanation, details)
}

fn counts(words: impl IntoIterator<Item = String>) -> HashMap<String, usize> {
    let mut tf = HashMap::new();
    for w in words {
        *tf.entry(w).or_default() += 1;
    }
    tf
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Context;
    use crate::metrics::Status;

    fn item(answer: &str, contexts: &[&str]) -> Item {
        Item {
            question: "q".into(),
            answer: Some(answer.into()),
            contexts: contexts.iter().map(|t| Context { id: None, text: t.to_string() }).collect(),
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
        assert!(close(length_score(3), 0.2), "3 words starts the ramp at 0.2");
        assert!(close(length_score(10), 0.8), "10 words ends the ramp at 0.8");
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
        assert_eq!(score("ragvue.readability", &item(hard, &[])), 0.0, "very hard text clamps to 0");
        assert_eq!(compute("ragvue.readability", &item("...", &[])).status, Status::Skipped);
    }

    #[test]
    fn token_overlap_is_f1_of_content_word_sets() {
        // Answer content set {nile, longest, river}; context set {nile, longest, river,
        // africa, flows}. Shared 3: P = 1, R = 3/5, F1 = 2*0.6/1.6 = 0.75.
        let it = item("The Nile is the longest river.", &["The Nile flows in Africa.", "Longest river: the Nile"]);
        assert!((score("ragvue.token_overlap", &it) - 0.75).abs() < 1e-12);
        let none = item("Bananas are yellow.", &["The Nile flows in Africa."]);
        assert_eq!(score("ragvue.token_overlap", &none), 0.0, "disjoint vocabularies overlap 0");
        let only_stop = item("It is what it is.", &["The Nile flows."]);
        assert_eq!(compute("ragvue.token_overlap", &only_stop).status, Status::Skipped);
    }

    #[test]
    fn context_similarity_is_tfidf_cosine_with_smoothed_idf() {
        let same = item("Nile river Africa", &["Nile river Africa"]);
        assert!((score("ragvue.context_similarity", &same) - 1.0).abs() < 1e-12, "identical text has cosine 1");
        let disjoint = item("bananas", &["Nile river"]);
        assert_eq!(score("ragvue.context_similarity", &disjoint), 0.0);
        // Two chunks: "nile" in both (df 2), "egypt" in one (df 1), "amazon" in none.
        // idf: nile = ln(3/3)+1 = 1; egypt = ln(3/2)+1; amazon = ln(3/1)+1.
        // answer tf {nile 1, amazon 1}; contexts tf {nile 2, egypt 1}.
        let it = item("Nile Amazon", &["Nile Egypt", "Nile"]);
        let (nile, egypt, amazon) = (1.0, (1.5f64).ln() + 1.0, 3f64.ln() + 1.0);
        let expected = (2.0 * nile * nile) / ((nile * nile + amazon * amazon).sqrt() * (4.0 * nile * nile + egypt * egypt).sqrt());
        assert!((score("ragvue.context_similarity", &it) - expected).abs() < 1e-12);
        assert_eq!(smoothed_idf(2, 0), 3f64.ln() + 1.0);
    }
}
