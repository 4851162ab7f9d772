//! Okapi BM25 over a corpus's chunks (k1 = 1.5, b = 0.75), with the common floor for the
//! IDF of words in more than half the chunks: such a word's IDF, negative by the formula,
//! is replaced by a quarter of the mean IDF, so frequent words never count against a
//! chunk. Tokens are lower-cased runs of letters, digits and underscores.
//!
//! Owns: tokenising, the index and the scores. Pure and deterministic: equal scores keep
//! corpus order.

use std::collections::HashMap;

const K1: f64 = 1.5;
const B: f64 = 0.75;
const EPSILON: f64 = 0.25;

/// Lower-cased word tokens.
pub fn tokens(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect()
}

pub struct Bm25 {
    /// Term → (chunk index, count) for the chunks that contain it: scoring a query touches
    /// only those chunks, not the whole corpus.
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<f64>,
    average_length: f64,
    idf: HashMap<String, f64>,
}

impl Bm25 {
    pub fn new<'a>(chunks: impl IntoIterator<Item = &'a str>) -> Bm25 {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lengths = Vec::new();
        for (i, text) in chunks.into_iter().enumerate() {
            let mut counts: HashMap<String, u32> = HashMap::new();
            let words = tokens(text);
            lengths.push(words.len() as f64);
            for w in words {
                *counts.entry(w).or_default() += 1;
            }
            for (w, c) in counts {
                postings.entry(w).or_default().push((i as u32, c));
            }
        }
        let n = lengths.len() as f64;
        let average_length = if lengths.is_empty() {
            0.0
        } else {
            lengths.iter().sum::<f64>() / n
        };
        let mut idf: HashMap<String, f64> = postings
            .iter()
            .map(|(w, list)| {
                let df = list.len() as f64;
                (w.clone(), (n - df + 0.5).ln() - (df + 0.5).ln())
            })
            .collect();
        let mean = if idf.is_empty() {
            0.0
        } else {
            idf.values().sum::<f64>() / idf.len() as f64
        };
        for v in idf.values_mut() {
            if *v < 0.0 {
                *v = EPSILON * mean;
            }
        }
        Bm25 {
            postings,
            lengths,
            average_length,
            idf,
        }
    }

    /// The score of every chunk for `query`, in corpus order.
    pub fn scores(&self, query: &str) -> Vec<f64> {
        let mut scores = vec![0.0; self.lengths.len()];
        for term in tokens(query) {
            let (Some(idf), Some(list)) = (self.idf.get(&term), self.postings.get(&term)) else {
                continue;
            };
            for &(i, count) in list {
                let f = count as f64;
                let norm = 1.0 - B + B * self.lengths[i as usize] / self.average_length;
                scores[i as usize] += idf * f * (K1 + 1.0) / (f + K1 * norm);
            }
        }
        scores
    }
}

/// The indices of the `k` best scores, best first; equal scores in corpus order.
pub fn top_k(scores: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]).then(a.cmp(b)));
    order.truncate(k);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_matching_words_rank_a_chunk_first() {
        let index = Bm25::new([
            "the cat sat on the mat",
            "the dog chased the cat",
            "a battery holds its charge for months",
        ]);
        let scores = index.scores("How long does the battery hold a charge?");
        assert_eq!(top_k(&scores, 3)[0], 2);
        assert!(
            scores[0] > 0.0 && scores[0] < scores[2] / 4.0,
            "'the', in most chunks, counts a little and never against: {scores:?}"
        );
        assert_eq!(
            tokens("Don't STOP_now, 2-3!"),
            vec!["don", "t", "stop_now", "2", "3"]
        );
    }

    #[test]
    fn ties_keep_corpus_order() {
        assert_eq!(top_k(&[0.5, 1.0, 0.5, 1.0], 3), vec![1, 3, 0]);
    }
}
