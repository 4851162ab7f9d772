//! The embedded semantic model (all-MiniLM-L6-v2 through `ragnosis-embed`), shared by
//! the offline judge and the judge-free `reference.semantic_similarity`: loaded once per
//! process, with an in-memory embedding cache so a chunk or question met by several
//! metrics is encoded once.
//!
//! Owns: finding and loading the model, saying whether it is available and why not, and
//! the cache. Must not: decide what a similarity means — the callers map cosines onto
//! their own scales.
//!
//! `RAGNOSIS_SEMANTIC=off` turns the model off for a process (lexical evidence only),
//! for comparisons and for tests that pin the lexical judge.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use ragnosis_embed::{Embedding, Encoder};

pub use ragnosis_embed::MODEL_NAME;

pub const SWITCH_ENV: &str = "RAGNOSIS_SEMANTIC";

/// Beyond this many cached texts the cache starts over (a 100k-item run must not keep
/// every chunk's vector: 384 floats ≈ 1.5 KB each).
const CACHE_LIMIT: usize = 50_000;

pub struct SemanticModel {
    encoder: Encoder,
    dir: PathBuf,
    cache: Mutex<HashMap<String, Arc<Embedding>>>,
}

/// Whether the model is in use, for notices in the CLI, the window and reports.
#[derive(Debug, Clone, PartialEq)]
pub enum Availability {
    Loaded { dir: PathBuf },
    Absent { reason: String },
}

impl Availability {
    /// One sentence for users.
    pub fn notice(&self) -> String {
        match self {
            Availability::Loaded { .. } => {
                format!("semantic model {MODEL_NAME} in use (embedded, offline)")
            }
            Availability::Absent { reason } => format!(
                "semantic model not in use ({reason}): the offline judge compares words only; \
                 run scripts/setup.sh to install {MODEL_NAME}"
            ),
        }
    }
}

static SHARED: OnceLock<Result<Arc<SemanticModel>, String>> = OnceLock::new();

fn load_shared() -> Result<Arc<SemanticModel>, String> {
    if std::env::var(SWITCH_ENV).is_ok_and(|v| v.eq_ignore_ascii_case("off")) {
        return Err(format!("turned off by {SWITCH_ENV}=off"));
    }
    let dir =
        ragnosis_embed::locate().ok_or_else(|| "its weights are not installed".to_string())?;
    let encoder = Encoder::load(&dir).map_err(|e| e.to_string())?;
    Ok(Arc::new(SemanticModel {
        encoder,
        dir,
        cache: Mutex::new(HashMap::new()),
    }))
}

/// The process's model, loaded on first use; `None` when absent or turned off.
pub fn shared() -> Option<Arc<SemanticModel>> {
    SHARED.get_or_init(load_shared).as_ref().ok().cloned()
}

pub fn availability() -> Availability {
    match SHARED.get_or_init(load_shared) {
        Ok(model) => Availability::Loaded {
            dir: model.dir.clone(),
        },
        Err(reason) => Availability::Absent {
            reason: reason.clone(),
        },
    }
}

impl SemanticModel {
    /// Embeddings of `texts`, in order; texts not cached yet are encoded in one batch.
    pub fn embed_all(&self, texts: &[&str]) -> Vec<Arc<Embedding>> {
        let mut missing: Vec<&str> = {
            let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            texts
                .iter()
                .copied()
                .filter(|t| !cache.contains_key(*t))
                .collect()
        };
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            let fresh = self.encoder.embed_all(&missing);
            let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
            if cache.len() + fresh.len() > CACHE_LIMIT {
                cache.clear();
            }
            for (text, embedding) in missing.iter().zip(fresh) {
                cache.insert(text.to_string(), Arc::new(embedding));
            }
        }
        let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        texts
            .iter()
            .map(|t| match cache.get(*t) {
                Some(e) => e.clone(),
                // Cleared between the insert and here by another thread: encode again.
                None => Arc::new(self.encoder.embed(t)),
            })
            .collect()
    }

    /// Cosine similarity of two texts' meanings, in [-1, 1].
    pub fn similarity(&self, a: &str, b: &str) -> f64 {
        let e = self.embed_all(&[a, b]);
        ragnosis_embed::cosine(&e[0], &e[1]) as f64
    }

    /// Cosine of `query` against each candidate, in order.
    pub fn similarities(&self, query: &str, candidates: &[&str]) -> Vec<f64> {
        let mut texts = Vec::with_capacity(candidates.len() + 1);
        texts.push(query);
        texts.extend_from_slice(candidates);
        let e = self.embed_all(&texts);
        e[1..]
            .iter()
            .map(|c| ragnosis_embed::cosine(&e[0], c) as f64)
            .collect()
    }
}
