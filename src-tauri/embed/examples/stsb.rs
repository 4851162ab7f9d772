//! Prints the encoder's quality and speed on the GLUE STS-B train file in shared/data:
//! Spearman of cosine against the human scores, and sentences per second.
//!     cargo run --release -p ragnosis-embed --example stsb

use std::time::Instant;

use ragnosis_embed::{cosine, Encoder};

#[path = "../tests/model.rs"]
#[allow(dead_code, unused_imports)]
mod model;

fn main() {
    let dir = ragnosis_embed::locate().expect("no model: run scripts/setup.sh");
    let started = Instant::now();
    let encoder = Encoder::load(&dir).expect("model loads");
    println!(
        "load: {:.2} s from {}",
        started.elapsed().as_secs_f64(),
        dir.display()
    );
    let pairs = model::stsb_pairs(usize::MAX);
    let texts: Vec<&str> = pairs
        .iter()
        .flat_map(|p| [p.0.as_str(), p.1.as_str()])
        .collect();
    let started = Instant::now();
    let embeddings = encoder.embed_all(&texts);
    let seconds = started.elapsed().as_secs_f64();
    let human: Vec<f64> = pairs.iter().map(|p| p.2).collect();
    let model: Vec<f64> = embeddings
        .chunks(2)
        .map(|e| cosine(&e[0], &e[1]) as f64)
        .collect();
    println!(
        "STS-B train: {} pairs, Spearman {:.4}; {} sentences in {seconds:.1} s = {:.0} sentences/s (one thread)",
        pairs.len(),
        model::spearman(&human, &model),
        texts.len(),
        texts.len() as f64 / seconds
    );
}
