//! The judge-free RAGVUE 0.6 metrics: `ragvue.answer_length`, `ragvue.readability`,
//! `ragvue.token_overlap`, `ragvue.context_similarity`.
//!
//! Owns: turning an answer (and its contexts) into these four scores with their
//! evidence. Must not: call a judge or touch storage. Tokens come from `crate::text`
//! (lower-cased Unicode words; stop words removed for the two overlap metrics). When the
//! text has nothing to measure (no words, no content words) the result is `Skipped` with
//! the reason, never a made-up 0.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasherDefault;

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
    let mut w = 0;
    text::for_each_word(answer, |_| w += 1);
    let score = length_score(w);
    let verdict = match w {
        0..=2 => "is too short to be a useful answer",
        3..=10 => "is short; answers of 11 to 150 words score best",
        11..=150 => "is within the preferred 11 to 150 words",
        151..=500 => "is long; answers of 11 to 150 words score best",
        _ => "is very long (over 500 words)",
    };
    let explanation = format!(
        "The answer has {w} word{} and {verdict}.",
        if w == 1 { "" } else { "s" }
    );
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
    let (mut words, mut syllables) = (0usize, 0usize);
    text::for_each_word(input, |w| {
        words += 1;
        syllables += text::syllables(w);
    });
    if words == 0 {
        return None;
    }
    // Text without terminal punctuation is still one sentence.
    let sentences = text::sentences(input).len().max(1);
    let wps = words as f64 / sentences as f64;
    let spw = syllables as f64 / words as f64;
    Some(Flesch {
        reading_ease: 206.835 - 1.015 * wps - 84.6 * spw,
        grade_level: 0.39 * wps + 11.8 * spw - 15.59,
        words,
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

/// Set F1 of content words over distinct lower-cased non-stop-words: precision = shared
/// / answer words (against all contexts); recall = shared / words of the context
/// sentences the answer draws on (those sharing at least half of its words, and at least
/// two unless it has one; all contexts when none does). Recall over every context word
/// collapsed to ~0.05 for any answer once contexts were long — a measure of context
/// length, not of overlap.
fn token_overlap(id: &str, answer: &str, chunks: &[&str]) -> MetricResult {
    let mut answer_set: HashSet<String> = HashSet::new();
    text::for_each_content_word(answer, |w| insert(&mut answer_set, w));
    if answer_set.is_empty() {
        return MetricResult::skipped(
            id,
            "the answer has no content words to compare with the contexts",
        );
    }
    let context = ContextWords::read(chunks, &answer_set);
    if context.vocabulary.is_empty() {
        return MetricResult::skipped(
            id,
            "the contexts have no content words to compare with the answer",
        );
    }
    let ContextWords {
        vocabulary,
        drawn_on,
        sentences,
        used,
    } = context;
    // Recall's base: the words of the sentences drawn on, or every context word.
    let drawn_count = drawn_on.iter().filter(|&&d| d).count();
    let every_word = drawn_count == 0;
    let recall_terms = if every_word {
        vocabulary.len()
    } else {
        drawn_count
    };
    let mut shared: Vec<&str> = Vec::new();
    let mut answer_only: Vec<&str> = Vec::new();
    let mut recalled = 0usize;
    for word in &answer_set {
        match vocabulary.get(word.as_str()) {
            Some(&n) => {
                shared.push(word);
                recalled += usize::from(every_word || drawn_on[n]);
            }
            None => answer_only.push(word),
        }
    }
    shared.sort_unstable();
    answer_only.sort_unstable();
    let precision = shared.len() as f64 / answer_set.len() as f64;
    let recall = recalled as f64 / recall_terms as f64;
    let f1 = if shared.is_empty() {
        0.0
    } else {
        2.0 * precision * recall / (precision + recall)
    };
    let explanation = format!(
        "{} of the answer's {} distinct content words also appear in the retrieved contexts.",
        shared.len(),
        answer_set.len()
    );
    let details = json!({
        "precision": round4(precision),
        "recall": round4(recall),
        "answer_terms": answer_set.len(),
        "context_terms": vocabulary.len(),
        "recall_terms": recall_terms,
        "sentences_drawn_on": used,
        "sentences": sentences,
        "shared_terms": shared.len(),
        "shared_sample": &shared[..shared.len().min(20)],
        "answer_only_sample": &answer_only[..answer_only.len().min(20)],
    });
    MetricResult::ok(id, f1, explanation, details)
}

/// The contexts' distinct content words, numbered in the order first seen, and which of
/// them lie in a sentence the answer draws on. Each word is allocated once per item; a
/// sentence is a sorted list of numbers, not a set of new strings.
struct ContextWords {
    vocabulary: HashMap<String, usize>,
    /// By word number: in a sentence the answer draws on.
    drawn_on: Vec<bool>,
    sentences: usize,
    /// Sentences drawn on.
    used: usize,
}

impl ContextWords {
    /// A sentence is drawn on when it shares at least half of the answer's words, and at
    /// least two unless the answer has one.
    fn read(chunks: &[&str], answer: &HashSet<String>) -> ContextWords {
        let needed = answer.len().min(2).max(answer.len().div_ceil(2));
        let mut words = ContextWords {
            vocabulary: HashMap::new(),
            drawn_on: Vec::new(),
            sentences: 0,
            used: 0,
        };
        let mut in_answer: Vec<bool> = Vec::new();
        let mut sentence_words: Vec<usize> = Vec::new();
        for chunk in chunks {
            for sentence in text::sentences(chunk) {
                sentence_words.clear();
                text::for_each_content_word(sentence, |w| {
                    let number = match words.vocabulary.get(w) {
                        Some(&n) => n,
                        None => {
                            let n = words.vocabulary.len();
                            words.vocabulary.insert(w.to_string(), n);
                            in_answer.push(answer.contains(w));
                            words.drawn_on.push(false);
                            n
                        }
                    };
                    sentence_words.push(number);
                });
                sentence_words.sort_unstable();
                sentence_words.dedup();
                words.sentences += 1;
                if sentence_words.iter().filter(|&&n| in_answer[n]).count() >= needed {
                    words.used += 1;
                    for &n in &sentence_words {
                        words.drawn_on[n] = true;
                    }
                }
            }
        }
        words
    }
}

/// Inserts a borrowed word, allocating only when it is new.
fn insert(set: &mut HashSet<String>, w: &str) {
    if !set.contains(w) {
        set.insert(w.to_string());
    }
}

/// Smoothed inverse document frequency over the item's chunks, as scikit-learn's
/// `smooth_idf`: idf(t) = ln((1 + N) / (1 + df(t))) + 1. The +1 inside acts as if one
/// extra chunk held every term, so a term no chunk contains (df = 0) gets a finite,
/// largest weight; the outer +1 keeps a term found in every chunk from vanishing (with a
/// single chunk every idf is 1 and the score is a plain term-frequency cosine).
pub fn smoothed_idf(n_chunks: usize, df: usize) -> f64 {
    ((1.0 + n_chunks as f64) / (1.0 + df as f64)).ln() + 1.0
}

/// Per-term counts of the contexts: total frequency, chunks containing the term, and the
/// last chunk seen (so document frequency counts each chunk once).
struct ContextTerm {
    tf: usize,
    df: usize,
    last_chunk: usize,
}

/// Word counts keyed by a hasher with fixed keys: the maps iterate in an order set by
/// their words alone, so the cosine's float sums come out the same, bit for bit, every
/// time an item is scored (std's default hasher is seeded per process).
type TermCounts<T> =
    HashMap<String, T, BuildHasherDefault<std::collections::hash_map::DefaultHasher>>;

/// The raw count of each content word of the answer.
fn answer_terms(answer: &str) -> TermCounts<usize> {
    let mut answer_tf: TermCounts<usize> = TermCounts::default();
    text::for_each_content_word(answer, |w| match answer_tf.get_mut(w) {
        Some(n) => *n += 1,
        None => {
            answer_tf.insert(w.to_string(), 1);
        }
    });
    answer_tf
}

/// Each content word of the chunks with its count over them all and the number of chunks
/// it is in.
fn context_terms(chunks: &[&str]) -> TermCounts<ContextTerm> {
    let mut context: TermCounts<ContextTerm> = TermCounts::default();
    for (k, chunk) in chunks.iter().enumerate() {
        text::for_each_content_word(chunk, |w| {
            let term = match context.get_mut(w) {
                Some(term) => term,
                None => context.entry(w.to_string()).or_insert(ContextTerm {
                    tf: 0,
                    df: 0,
                    last_chunk: usize::MAX,
                }),
            };
            term.tf += 1;
            if term.last_chunk != k {
                term.df += 1;
                term.last_chunk = k;
            }
        });
    }
    context
}

/// TF-IDF cosine between the answer and the concatenated contexts. Term frequency is the
/// raw count of a content word; idf from `smoothed_idf` over the item's chunks.
fn context_similarity(id: &str, answer: &str, chunks: &[&str]) -> MetricResult {
    let answer_tf = answer_terms(answer);
    if answer_tf.is_empty() {
        return MetricResult::skipped(
            id,
            "the answer has no content words to compare with the contexts",
        );
    }
    let context = context_terms(chunks);
    if context.is_empty() {
        return MetricResult::skipped(
            id,
            "the contexts have no content words to compare with the answer",
        );
    }
    let n = chunks.len();
    let idf = |t: &str| smoothed_idf(n, context.get(t).map_or(0, |c| c.df));
    let answer_norm = answer_tf
        .iter()
        .map(|(t, &a)| (a as f64 * idf(t)).powi(2))
        .sum::<f64>()
        .sqrt();
    let context_norm = context
        .values()
        .map(|c| (c.tf as f64 * smoothed_idf(n, c.df)).powi(2))
        .sum::<f64>()
        .sqrt();
    let mut contributions: Vec<(&str, f64)> = answer_tf
        .iter()
        .filter_map(|(t, &a)| {
            let c = context.get(t)?;
            Some((
                t.as_str(),
                a as f64 * c.tf as f64 * smoothed_idf(n, c.df).powi(2),
            ))
        })
        .collect();
    let dot: f64 = contributions.iter().map(|(_, v)| v).sum();
    let cosine = dot / (answer_norm * context_norm);
    contributions.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let top: Vec<_> = contributions
        .iter()
        .take(10)
        .map(|(t, v)| json!({ "term": t, "weight": round4(*v) }))
        .collect();
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
        "chunks": n,
        "idf": "ln((1+N)/(1+df))+1 over the item's chunks",
        "top_shared_terms": top,
    });
    MetricResult::ok(id, cosine, explanation, details)
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
#[path = "lexical_tests.rs"]
mod tests;
