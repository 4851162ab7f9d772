//! The encoder with the real all-MiniLM-L6-v2 weights (installed by scripts/setup.sh).
//! Where `RAGNOSIS_MODEL=required` (scripts/test.sh sets it) a missing model fails the
//! test; elsewhere it is skipped with a note.
//!
//! Pinned numbers come from `reference_embeddings.py` beside this file: the same
//! weights run with numpy in float64 and tokenised by Hugging Face's `tokenizers`.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ragnosis_embed::{cosine, Encoder};

fn encoder() -> Option<&'static Encoder> {
    static ENCODER: OnceLock<Option<Encoder>> = OnceLock::new();
    ENCODER
        .get_or_init(|| match ragnosis_embed::locate() {
            Some(dir) => Some(Encoder::load(&dir).expect("the installed model loads")),
            None if std::env::var("RAGNOSIS_MODEL").as_deref() == Ok("required") => {
                panic!("RAGNOSIS_MODEL=required but no model was found: run scripts/setup.sh")
            }
            None => {
                eprintln!("skipped: no embedding model installed (scripts/setup.sh installs it)");
                None
            }
        })
        .as_ref()
}

#[test]
fn embeddings_match_an_independent_numpy_forward_pass() {
    let Some(encoder) = encoder() else { return };
    let cases: [(&str, [f32; 4]); 3] = [
        (
            "The cat sits on the mat.",
            [0.13418, -0.0329, -0.0248, 0.04144],
        ),
        (
            "Ein Café in Zürich — naïve résumé, 12-year-old's $5 voucher!",
            [-0.03302, 0.10155, 0.01113, 0.01314],
        ),
        (
            "Do not charge a battery colder than 0 °C.",
            [-0.02152, 0.0726, -0.05522, 0.0571],
        ),
    ];
    // One batch: stacking sequences must not let them see each other.
    let texts: Vec<&str> = cases.iter().map(|(text, _)| *text).collect();
    let embeddings = encoder.embed_all(&texts);
    assert_eq!(embeddings[1], encoder.embed(texts[1]), "batched = alone");
    for ((text, expected), got) in cases.iter().zip(&embeddings) {
        assert_eq!(got.len(), 384);
        for (g, e) in got.iter().zip(expected) {
            assert!(
                (g - e).abs() < 2e-4,
                "{text}: {:?} vs {expected:?}",
                &got[..4]
            );
        }
    }
    assert!((cosine(&embeddings[0], &embeddings[2]) - -0.03114).abs() < 2e-4);
}

#[test]
fn token_counts_match_the_reference_tokenizer() {
    let Some(encoder) = encoder() else { return };
    // Hugging Face tokenizers: 9 and 22 ids with [CLS] and [SEP].
    assert_eq!(encoder.token_count("The cat sits on the mat."), 9);
    assert_eq!(
        encoder.token_count("Ein Café in Zürich — naïve résumé, 12-year-old's $5 voucher!"),
        22
    );
}

/// STS-B train, the first 600 pairs: Spearman of cosine against the human 0–5 scores.
/// All 4,249 pairs of the file give 0.810 (examples/stsb.rs prints it).
#[test]
fn similarity_follows_human_judgements_on_sts_b() {
    let Some(encoder) = encoder() else { return };
    let pairs = stsb_pairs(600);
    assert!(pairs.len() >= 500, "the STS-B file must be readable");
    let firsts: Vec<&str> = pairs.iter().map(|p| p.0.as_str()).collect();
    let seconds: Vec<&str> = pairs.iter().map(|p| p.1.as_str()).collect();
    let (a, b) = (encoder.embed_all(&firsts), encoder.embed_all(&seconds));
    let human: Vec<f64> = pairs.iter().map(|p| p.2).collect();
    let model: Vec<f64> = a.iter().zip(&b).map(|(x, y)| cosine(x, y) as f64).collect();
    let rho = spearman(&human, &model);
    eprintln!(
        "STS-B train, first {} pairs: Spearman {rho:.3}",
        pairs.len()
    );
    assert!(
        rho > 0.83,
        "Spearman {rho:.3} is far below the model's 0.867"
    );
}

fn stsb_path() -> PathBuf {
    // RAGNOSIS_SHARED_DATA (set by scripts/test.sh) wins over the compiled-in path, so a
    // binary from another checkout's build reads this checkout's data.
    std::env::var_os("RAGNOSIS_SHARED_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
        .join("stsb-train/train.tsv")
}

/// (sentence 1, sentence 2, score) from GLUE's STS-B TSV (score, then the two sentences
/// in the last three columns).
pub fn stsb_pairs(limit: usize) -> Vec<(String, String, f64)> {
    let text = std::fs::read_to_string(stsb_path()).expect("shared/data/stsb-train/train.tsv");
    // No header row: a line whose score does not parse is passed over.
    text.lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let n = cols.len();
            let score = cols.get(n.checked_sub(1)?)?.parse().ok()?;
            Some((cols[n - 3].to_string(), cols[n - 2].to_string(), score))
        })
        .take(limit)
        .collect()
}

pub fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let (ma, mb) = (ra.iter().sum::<f64>() / n, rb.iter().sum::<f64>() / n);
    let cov: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = ra.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = rb.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// Average ranks (ties share the mean of their positions).
fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && values[order[j + 1]] == values[order[i]] {
            j += 1;
        }
        for &k in &order[i..=j] {
            ranks[k] = (i + j) as f64 / 2.0;
        }
        i = j + 1;
    }
    ranks
}

/// A tuned copy of some layers, int8 with a scale per row, laid over the shipped model:
/// here one layer of the model itself requantised, so the result must stay the model's
/// meaning (near 1.0 cosine to the plain embedding) yet come from the overlay (not equal).
/// A layer of the wrong shape is refused.
#[test]
fn an_int8_overlay_of_a_layer_is_read_over_the_shipped_model() {
    let Some(plain) = encoder() else { return };
    let dir = ragnosis_embed::locate().expect("located");
    let name = "encoder.layer.5.output.dense.weight";
    let (rows, cols) = (384usize, 1536usize);
    let model = std::fs::read(dir.join("model.safetensors")).unwrap();
    let header_len = u64::from_le_bytes(model[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&model[8..8 + header_len]).unwrap();
    let range = &header[name]["data_offsets"];
    let start = 8 + header_len + range[0].as_u64().unwrap() as usize;
    let weights: Vec<f32> = model[start..start + rows * cols * 4]
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    let mut quantised = Vec::with_capacity(rows * cols);
    let mut scales = Vec::with_capacity(rows);
    for row in weights.chunks_exact(cols) {
        let scale = row.iter().fold(0f32, |m, v| m.max(v.abs())).max(1e-12) / 127.0;
        scales.push(scale);
        quantised.extend(
            row.iter()
                .map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8 as u8),
        );
    }
    let file = |shape: [usize; 2]| {
        let header = serde_json::json!({
            name: {"dtype": "I8", "shape": shape, "data_offsets": [0, rows * cols]},
            format!("{name}.scale"): {"dtype": "F32", "shape": [shape[0]], "data_offsets": [rows * cols, rows * cols + shape[0] * 4]},
        })
        .to_string();
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header.as_bytes());
        bytes.extend_from_slice(&quantised);
        for s in &scales[..shape[0]] {
            bytes.extend_from_slice(&s.to_le_bytes());
        }
        bytes
    };
    let tuned = Encoder::load_tuned(&dir, Some(&file([rows, cols]))).expect("the overlay fits");
    let text = "The warranty covers the frame for ten years.";
    let (a, b) = (plain.embed(text), tuned.embed(text));
    assert_ne!(a, b, "the overlay's layer is used");
    assert!(cosine(&a, &b) > 0.999, "{}", cosine(&a, &b));
    let wrong = Encoder::load_tuned(&dir, Some(&file([rows / 2, cols * 2])));
    assert!(
        wrong
            .as_ref()
            .is_err_and(|e| e.to_string().contains("has shape [192, 3072]")),
        "a layer of another shape is refused: {:?}",
        wrong.as_ref().err()
    );
}
