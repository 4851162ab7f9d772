//! What the semantic model's cosines mean for the offline judge's verdicts: the maps
//! from sentence-embedding similarity (all-MiniLM-L6-v2) onto the protocol's bands, and
//! the thresholds at which an aspect counts as covered or addressed.
//!
//! Calibrated on shared/data (SQuAD 2.0 questions against their own and neighbouring
//! paragraphs; STS-B pairs) and on the bundled example; the figures are in the closing
//! notes of the judge-fidelity work. Owns: those numbers. Must not: compute embeddings
//! (that is `crate::semantic`) or decide verdicts alone — lexical evidence still names
//! the words found, and callers combine both.

use crate::semantic::SemanticModel;

/// Cosine (question against the chunk's closest sentence or the whole chunk) at which a
/// chunk is as close as a passage that holds the answer usually is: SQuAD 2.0 questions
/// against their own paragraph's closest sentence give a median of 0.64 (p25 0.55);
/// against a neighbouring paragraph of the same article, whole, 0.33 (p75 0.47).
const ANSWERING: f64 = 0.62;
/// Where "highly useful" (0.7, the relevance threshold) starts.
const USEFUL: f64 = 0.5;
/// Cosine below which a chunk is about something else.
const UNRELATED: f64 = 0.25;
/// Cosine at which an aspect (a short information need) is stated by a sentence.
pub const ASPECT_STATED: f64 = 0.6;

/// Cosine below which an answer sentence is about something other than the question.
pub const OFF_TOPIC: f64 = 0.25;

/// Maps a question–answer cosine onto answer relevance: answers that address their
/// question sit around 0.5–0.8 with this model; unrelated text below 0.2.
pub fn answer_band(cosine: f64) -> f64 {
    if cosine >= 0.6 {
        1.0
    } else if cosine >= 0.35 {
        0.7 + 0.3 * (cosine - 0.35) / 0.25
    } else if cosine >= 0.2 {
        0.4 + 0.3 * (cosine - 0.2) / 0.15
    } else {
        0.4 * cosine.max(0.0) / 0.2
    }
}

/// Maps a question–chunk cosine onto the chunk-relevance bands: ≥ `ANSWERING` is 0.9+
/// ("contains the answer"), then highly useful, background, and irrelevant below
/// `UNRELATED`.
pub fn chunk_band(cosine: f64) -> f64 {
    let s = if cosine >= ANSWERING {
        0.9 + 0.1 * ((cosine - ANSWERING) / 0.2).min(1.0)
    } else if cosine >= USEFUL {
        0.7 + 0.1 * (cosine - USEFUL) / (ANSWERING - USEFUL)
    } else if cosine >= UNRELATED {
        0.3 + 0.3 * (cosine - UNRELATED) / (USEFUL - UNRELATED)
    } else {
        0.2 * (cosine.max(0.0) / UNRELATED)
    };
    (s.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

/// The question's closest passage of `texts` by meaning: (index, cosine).
pub fn closest(model: &SemanticModel, query: &str, texts: &[&str]) -> Option<(usize, f64)> {
    model
        .similarities(query, texts)
        .into_iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(&b.1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_bands_rise_with_similarity_and_stay_in_range() {
        let points = [-0.3, 0.0, 0.1, 0.2, 0.35, 0.5, 0.55, 0.62, 0.7, 1.0];
        let bands: Vec<f64> = points.iter().map(|c| chunk_band(*c)).collect();
        assert!(
            bands.windows(2).all(|w| w[0] <= w[1]),
            "monotone: {bands:?}"
        );
        assert_eq!(bands[0], 0.0);
        assert!(bands[3] <= 0.2, "unrelated stays irrelevant");
        assert!((0.3..=0.6).contains(&bands[4]), "background");
        assert!(bands[5] >= 0.7, "useful from 0.5");
        assert!(bands[7] >= 0.9 && bands[9] == 1.0, "answering passages");
        let answers: Vec<f64> = points.iter().map(|c| answer_band(*c)).collect();
        assert!(
            answers.windows(2).all(|w| w[0] <= w[1]),
            "monotone: {answers:?}"
        );
    }
}
