//! `/v1/embeddings` as an OpenAI-compatible server answers it, with vectors a test can
//! reason about: each text becomes a hashed bag of its lower-cased words (FNV-1a into
//! `DIMS` buckets), L2-normalised. Texts sharing words point the same way, so retrieval
//! over these vectors behaves like a plain lexical retriever — good enough to exercise
//! the client, the cache and the figures, never a stand-in for a real model's quality.
//!
//! The model `sim-embed-broken` answers with one vector too few, so a client's handling
//! of a malformed reply can be tested.

use serde_json::{json, Value};

pub const DIMS: usize = 256;
pub const BROKEN_MODEL: &str = "sim-embed-broken";

/// The reply to an embeddings request body, or the 400 message for a bad one.
pub fn reply(body: &[u8]) -> Result<Value, String> {
    let request: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .ok_or("the request names no model")?;
    let inputs: Vec<&str> = match request.get("input") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().ok_or("every input must be a string"))
            .collect::<Result<_, _>>()?,
        _ => return Err("the request has no input".into()),
    };
    let mut data: Vec<Value> = inputs
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"object": "embedding", "index": i, "embedding": vector(text)}))
        .collect();
    if model == BROKEN_MODEL {
        data.pop();
    }
    let tokens: usize = inputs.iter().map(|t| t.split_whitespace().count()).sum();
    Ok(json!({
        "object": "list",
        "model": model,
        "data": data,
        "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
    }))
}

fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIMS];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in word.to_lowercase().bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        v[(hash % DIMS as u64) as usize] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_sharing_words_are_closer_than_texts_that_do_not() {
        let dot = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
        let battery = vector("How long does the battery last?");
        let related = vector("The battery lasts five hours.");
        let other = vector("Returns are accepted within thirty days.");
        assert!(dot(&battery, &related) > dot(&battery, &other) + 0.1);
    }

    #[test]
    fn the_broken_model_answers_one_vector_short() {
        let body = json!({"model": BROKEN_MODEL, "input": ["a", "b"]}).to_string();
        assert_eq!(
            reply(body.as_bytes()).unwrap()["data"]
                .as_array()
                .unwrap()
                .len(),
            1
        );
        assert!(reply(b"{\"model\": \"m\"}").is_err(), "no input is a 400");
    }
}
