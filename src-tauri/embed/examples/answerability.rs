//! How well a question's cosine with its paragraph tells answerable SQuAD 2.0 questions
//! from unanswerable ones, on the articles the answerability tuning never saw (dev
//! articles 7-8), for the shipped model and for a tuned copy of its layers:
//!
//!     cargo run --release -p ragnosis-embed --example answerability -- \
//!         [--tuned assets/offline-judge/answerability-encoder.safetensors] [--shared ../shared/data]
//!
//! The training script (`scripts/train-answerability-encoder.py`) prints the same figure
//! from PyTorch; the two agree to the third decimal when this crate reads the file right.

use std::path::PathBuf;

use ragnosis_embed::{cosine, locate, Encoder};

const HELD_OUT_FROM: usize = 6;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let shared = value("--shared")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("RAGNOSIS_SHARED_DATA").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("../shared/data"));
    let dir = locate().expect("the model is not installed (scripts/setup.sh)");
    let path = shared.join("squad2-sample/dev-v2.0-articles-1-8.json");
    let squad: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("SQuAD dev sample")).unwrap();
    let mut pairs: Vec<(String, String, bool)> = Vec::new();
    for article in squad["data"].as_array().unwrap().iter().skip(HELD_OUT_FROM) {
        for p in article["paragraphs"].as_array().unwrap() {
            let context = p["context"].as_str().unwrap().to_string();
            for qa in p["qas"].as_array().unwrap() {
                let impossible = qa["is_impossible"].as_bool().unwrap_or(false);
                pairs.push((
                    qa["question"].as_str().unwrap().to_string(),
                    context.clone(),
                    !impossible,
                ));
            }
        }
    }
    let labels: Vec<bool> = pairs.iter().map(|p| p.2).collect();
    let score = |encoder: &Encoder| -> f64 {
        let questions: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
        let passages: Vec<&str> = pairs.iter().map(|p| p.1.as_str()).collect();
        let (q, p) = (encoder.embed_all(&questions), encoder.embed_all(&passages));
        let cosines: Vec<f64> = q.iter().zip(&p).map(|(a, b)| cosine(a, b) as f64).collect();
        auroc(&cosines, &labels)
    };
    println!(
        "held-out questions: {} ({} answerable)",
        pairs.len(),
        labels.iter().filter(|l| **l).count()
    );
    let base = Encoder::load(&dir).expect("model");
    println!(
        "shipped model, question-paragraph cosine AUROC {:.4}",
        score(&base)
    );
    if let Some(tuned) = value("--tuned") {
        let bytes = std::fs::read(&tuned).expect("tuned file");
        let encoder = Encoder::load_tuned(&dir, Some(&bytes)).expect("tuned model");
        println!("tuned ({tuned}), AUROC {:.4}", score(&encoder));
    }
}

/// Area under the ROC curve by ranks (ties share their mean rank).
fn auroc(scores: &[f64], labels: &[bool]) -> f64 {
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[a].total_cmp(&scores[b]));
    let mut ranks = vec![0.0; scores.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && scores[order[j + 1]] == scores[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            ranks[k] = (i + j) as f64 / 2.0 + 1.0;
        }
        i = j + 1;
    }
    let positives = labels.iter().filter(|l| **l).count() as f64;
    let negatives = labels.len() as f64 - positives;
    let rank_sum: f64 = ranks
        .iter()
        .zip(labels)
        .filter(|(_, l)| **l)
        .map(|(r, _)| r)
        .sum();
    (rank_sum - positives * (positives + 1.0) / 2.0) / (positives * negatives)
}
