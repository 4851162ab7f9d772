//! Retriever evaluation (RAGalyst §V-A): for a dataset whose items name their gold
//! chunks, rank a corpus for every question with each retriever and report Recall@K (a
//! gold chunk in the top K) and MRR@K (1 / rank of the first gold chunk, 0 beyond K),
//! each with a bootstrap 95% interval, and throughput.
//!
//! Owns: the retrievers — BM25 (`bm25`), the embedded all-MiniLM-L6-v2 model and any
//! OpenAI-compatible embeddings endpoint saved as a judge profile (through the judge
//! layer: key from the keyring, limits, retries), whose chunk vectors are cached in
//! SQLite by model and text hash — and the figures. Items
//! whose gold ids name no chunk of the corpus cannot be scored and are counted apart,
//! never as misses.

pub mod bm25;

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::judge_check::figures::{estimate, Estimate};
use crate::progress::{Progress, ProgressSink};
use crate::secrets::SecretStore;
use crate::semantic;
use crate::store::{self, corpora::Chunk, Store};

/// The embedded model's name, as cached embeddings are keyed.
pub const EMBEDDED: &str = "all-MiniLM-L6-v2";

/// Which retriever ranks the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Retriever {
    Bm25,
    /// The embedded sentence model (cosine of mean-pooled vectors).
    Embedded,
    /// An OpenAI-compatible `/v1/embeddings` endpoint: a judge profile's service, with
    /// `model` (or the profile's model) as the embedding model.
    Endpoint {
        profile: String,
        model: Option<String>,
    },
}

impl Retriever {
    pub fn name(&self) -> String {
        match self {
            Retriever::Bm25 => "BM25".into(),
            Retriever::Embedded => EMBEDDED.into(),
            Retriever::Endpoint { profile, model } => match model {
                Some(m) => format!("{m} ({profile})"),
                None => profile.clone(),
            },
        }
    }
}

impl std::str::FromStr for Retriever {
    type Err = Error;

    fn from_str(s: &str) -> Result<Retriever> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("endpoint:") {
            // endpoint:PROFILE or endpoint:PROFILE@MODEL
            let (profile, model) = match rest.split_once('@') {
                Some((p, m)) => (p.trim(), Some(m.trim()).filter(|m| !m.is_empty())),
                None => (rest.trim(), None),
            };
            if profile.is_empty() {
                return Err(Error::Invalid(
                    "name the judge profile of the embeddings endpoint: endpoint:PROFILE[@MODEL]"
                        .into(),
                ));
            }
            return Ok(Retriever::Endpoint {
                profile: profile.to_string(),
                model: model.map(str::to_string),
            });
        }
        match s.to_ascii_lowercase().as_str() {
            "bm25" => Ok(Retriever::Bm25),
            "embedded" | "minilm" | "all-minilm-l6-v2" => Ok(Retriever::Embedded),
            other => Err(Error::Invalid(format!(
                "unknown retriever '{other}' (use bm25, embedded or endpoint:PROFILE[@MODEL])"
            ))),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RetrieverFigures {
    pub retriever: String,
    pub recall_at_k: Option<Estimate>,
    pub mrr_at_k: Option<Estimate>,
    /// Seconds to index the corpus (embedding it, for a model) and rank every question.
    pub seconds: f64,
    pub queries_per_second: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RetrievalEval {
    pub dataset_id: i64,
    pub corpus_id: i64,
    pub k: u64,
    pub chunks: u64,
    /// Questions with at least one gold chunk in the corpus: the ones scored.
    pub queries: u64,
    /// Questions whose gold ids name no chunk of the corpus (or that have none).
    pub without_gold: u64,
    pub retrievers: Vec<RetrieverFigures>,
}

/// A question and the indices of its gold chunks in the corpus.
type GoldQuery = (String, Vec<usize>);

/// (question, gold chunk indices) of every item with gold in the corpus, and how many
/// items have none there.
fn gold_queries(
    conn: &rusqlite::Connection,
    dataset_id: i64,
    index_of: &std::collections::HashMap<&str, usize>,
) -> Result<(Vec<GoldQuery>, u64)> {
    let mut queries: Vec<GoldQuery> = Vec::new();
    let mut without_gold = 0u64;
    store::items::for_each(conn, dataset_id, |stored| {
        let gold: Vec<usize> = stored
            .item
            .gold_context_ids
            .iter()
            .filter_map(|id| index_of.get(id.as_str()).copied())
            .collect();
        if gold.is_empty() {
            without_gold += 1;
        } else {
            queries.push((stored.item.question, gold));
        }
    })?;
    Ok((queries, without_gold))
}

/// One retriever's figures from its rankings: recall and MRR at K against the gold
/// chunks, with the time it took.
fn retriever_figures(
    label: String,
    queries: &[(String, Vec<usize>)],
    rankings: &[Vec<usize>],
    seconds: f64,
) -> RetrieverFigures {
    let (mut hits, mut reciprocal) = (Vec::new(), Vec::new());
    for ((_, gold), ranking) in queries.iter().zip(rankings) {
        let first = ranking.iter().position(|i| gold.contains(i));
        hits.push(if first.is_some() { 1.0 } else { 0.0 });
        reciprocal.push(first.map_or(0.0, |r| 1.0 / (r + 1) as f64));
    }
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    RetrieverFigures {
        retriever: label,
        recall_at_k: estimate(&hits, mean),
        mrr_at_k: estimate(&reciprocal, mean),
        seconds,
        queries_per_second: queries.len() as f64 / seconds.max(1e-9),
    }
}

/// Evaluates `retrievers` on the dataset's questions against the corpus; an endpoint's
/// key comes from `keyring`. The questions with gold chunks are gathered first, then each
/// retriever ranks them and its rankings are scored.
pub fn evaluate(
    store: &Store,
    dataset_id: i64,
    corpus_id: i64,
    retrievers: &[Retriever],
    k: usize,
    keyring: &dyn SecretStore,
    progress: &dyn ProgressSink,
) -> Result<RetrievalEval> {
    if k == 0 {
        return Err(Error::Invalid("K must be at least 1".into()));
    }
    let conn = store.conn();
    store::corpora::get(conn, corpus_id)?;
    let chunks = store::corpora::chunks(conn, corpus_id)?;
    if chunks.is_empty() {
        return Err(Error::Invalid(format!("corpus {corpus_id} has no chunks")));
    }
    let index_of: std::collections::HashMap<&str, usize> = chunks
        .iter()
        .enumerate()
        .map(|(i, c)| (c.key.as_str(), i))
        .collect();
    let (queries, without_gold) = gold_queries(conn, dataset_id, &index_of)?;
    store::datasets::get(conn, dataset_id)?;
    if queries.is_empty() {
        return Err(Error::Invalid(format!(
            "no question of dataset {dataset_id} names a chunk of corpus {corpus_id} as its gold context \
             (gold_context_ids must use the corpus's chunk ids, e.g. \"{}\")",
            chunks[0].key
        )));
    }
    let mut out = Vec::new();
    for retriever in retrievers {
        progress.report(Progress::Started {
            stage: format!("ranking with {}", retriever.name()),
            total: Some(queries.len() as u64),
        });
        let started = Instant::now();
        let (label, rankings) = rank(store, retriever, &chunks, &queries, k, keyring, progress)?;
        let seconds = started.elapsed().as_secs_f64();
        out.push(retriever_figures(label, &queries, &rankings, seconds));
    }
    Ok(RetrievalEval {
        dataset_id,
        corpus_id,
        k: k as u64,
        chunks: chunks.len() as u64,
        queries: queries.len() as u64,
        without_gold,
        retrievers: out,
    })
}

/// The retriever's label and the top-`k` chunk indices for every query, in query order.
fn rank(
    store: &Store,
    retriever: &Retriever,
    chunks: &[Chunk],
    queries: &[(String, Vec<usize>)],
    k: usize,
    keyring: &dyn SecretStore,
    progress: &dyn ProgressSink,
) -> Result<(String, Vec<Vec<usize>>)> {
    let report = |done: usize| {
        if done.is_multiple_of(100) || done == queries.len() {
            progress.report(Progress::Advanced {
                done: done as u64,
                total: Some(queries.len() as u64),
            });
        }
    };
    match retriever {
        Retriever::Bm25 => {
            let index = bm25::Bm25::new(chunks.iter().map(|c| c.text.as_str()));
            let ranked = queries
                .iter()
                .enumerate()
                .map(|(i, (q, _))| {
                    report(i + 1);
                    bm25::top_k(&index.scores(q), k)
                })
                .collect();
            Ok((retriever.name(), ranked))
        }
        Retriever::Embedded => {
            let model = semantic::shared().ok_or_else(|| {
                Error::Invalid(format!(
                    "the embedded model is not available ({}); run scripts/setup.sh to install it",
                    semantic::availability().notice()
                ))
            })?;
            let embed = |texts: &[&str]| -> Result<Vec<Vec<f32>>> {
                Ok(model
                    .embed_all(texts)
                    .into_iter()
                    .map(|v| v.to_vec())
                    .collect())
            };
            let vectors = chunk_vectors(store, EMBEDDED, chunks, 64, &embed)?;
            let ranked = rank_by_cosine(&vectors, queries, k, 64, &embed, &report)?;
            Ok((retriever.name(), ranked))
        }
        Retriever::Endpoint { profile, model } => {
            let embedder =
                crate::judge::open::open_embedder(store, profile, model.as_deref(), keyring)?;
            let runtime = crate::run::worker_runtime("the embeddings requests")?;
            let ctx = crate::judge::CallContext {
                progress: std::sync::Arc::new(crate::progress::NoProgress),
                cancel: crate::progress::CancelToken::new(),
                use_cache: false,
            };
            let embed = |texts: &[&str]| -> Result<Vec<Vec<f32>>> {
                runtime.block_on(embedder.embed(texts, &ctx)).map_err(|e| {
                    Error::Invalid(format!(
                        "the embeddings endpoint of profile {profile} failed: {e}"
                    ))
                })
            };
            let batch = crate::judge::embeddings::BATCH;
            let vectors = chunk_vectors(store, &embedder.cache_key, chunks, batch, &embed)?;
            let ranked = rank_by_cosine(&vectors, queries, k, batch, &embed, &report)?;
            Ok((embedder.label(), ranked))
        }
    }
}

/// Texts in, one vector per text out: the embedded model or an endpoint.
type Embed<'a> = dyn Fn(&[&str]) -> Result<Vec<Vec<f32>>> + 'a;

/// Ranks the chunks by cosine similarity to each query's vector.
fn rank_by_cosine(
    vectors: &[Vec<f32>],
    queries: &[(String, Vec<usize>)],
    k: usize,
    batch: usize,
    embed: &Embed,
    report: &dyn Fn(usize),
) -> Result<Vec<Vec<usize>>> {
    let texts: Vec<&str> = queries.iter().map(|(q, _)| q.as_str()).collect();
    let mut out = Vec::with_capacity(queries.len());
    for (i, group) in texts.chunks(batch).enumerate() {
        for (j, query) in embed(group)?.iter().enumerate() {
            let scores: Vec<f64> = vectors
                .iter()
                .map(|v| ragnosis_embed::cosine(query, v) as f64)
                .collect();
            out.push(bm25::top_k(&scores, k));
            report(i * batch + j + 1);
        }
    }
    Ok(out)
}

/// Every chunk's vector, from the cache where `model` embedded the same text before;
/// fresh vectors are stored batch by batch, so an interrupted evaluation keeps them.
fn chunk_vectors(
    store: &Store,
    model: &str,
    chunks: &[Chunk],
    batch: usize,
    embed: &Embed,
) -> Result<Vec<Vec<f32>>> {
    let conn = store.conn();
    let hashes: Vec<String> = chunks
        .iter()
        .map(|c| blake3::hash(c.text.as_bytes()).to_hex().to_string())
        .collect();
    let mut vectors: Vec<Option<Vec<f32>>> = hashes
        .iter()
        .map(|h| store::corpora::embedding(conn, model, h))
        .collect::<Result<_>>()?;
    let missing: Vec<usize> = (0..chunks.len())
        .filter(|i| vectors[*i].is_none())
        .collect();
    for batch in missing.chunks(batch) {
        let texts: Vec<&str> = batch.iter().map(|i| chunks[*i].text.as_str()).collect();
        let fresh = embed(&texts)?;
        let rows: Vec<(&str, &[f32])> = batch
            .iter()
            .zip(&fresh)
            .map(|(i, v)| (hashes[*i].as_str(), v.as_slice()))
            .collect();
        store::corpora::put_embeddings(conn, model, &rows)?;
        for (i, v) in batch.iter().zip(&fresh) {
            vectors[*i] = Some(v.to_vec());
        }
    }
    Ok(vectors.into_iter().map(|v| v.unwrap_or_default()).collect())
}
