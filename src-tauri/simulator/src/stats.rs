//! What the simulator saw: chat calls per task kind, repair requests, tokens, the
//! credential headers received, and key leaks — requests in which the watched key
//! appeared anywhere other than a credential header (URL, body, other headers). Owns the
//! counters; the server feeds them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The headers a key may legitimately travel in.
pub const CREDENTIAL_HEADERS: [&str; 3] = ["authorization", "api-key", "x-api-key"];

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Chat requests received, faulted ones included.
    pub calls: u64,
    /// Answered judge tasks per kind (`aspects`, `chunk_relevance`, ...): a call asking
    /// several tasks together (a bundle) counts once for each of its kinds.
    pub by_task: BTreeMap<String, u64>,
    /// Answered calls that were repair requests.
    pub repairs: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Distinct credential headers seen, as `name: value`.
    pub authorization_headers_seen: Vec<String>,
    /// Requests in which the watched key appeared outside a credential header.
    pub key_leaks: u64,
    /// Distinct `METHOD path?query` of every request.
    pub requests_seen: Vec<String>,
    /// Distinct temperatures sent with chat requests.
    pub temperatures_seen: Vec<f64>,
    /// Distinct `response_format` types sent (`json_schema`, `json_object`, `none`).
    pub response_formats_seen: Vec<String>,
    /// Requests refused with 401 because `require_key` was not presented.
    pub unauthorised: u64,
    /// Faults acted out.
    pub faults_injected: u64,
    /// The most chat requests in progress at once.
    pub max_in_flight: u64,
    /// Requests to `/v1/embeddings` answered or refused.
    pub embedding_requests: u64,
    /// Files uploaded to `/v1/files`.
    #[serde(default)]
    pub files_uploaded: u64,
    /// Batches created, OpenAI and Anthropic alike.
    #[serde(default)]
    pub batches_created: u64,
    /// Requests received inside batches (each answered, failed or expired once).
    /// Answered ones are also counted in `by_task` and the token totals, not in `calls`.
    #[serde(default)]
    pub batch_requests: u64,
    /// Batch requests whose `custom_id` an earlier batch already carried: a client that
    /// sent the same request twice.
    #[serde(default)]
    pub batch_repeats: u64,
    /// Status polls of batches.
    #[serde(default)]
    pub batch_polls: u64,
    /// Batches a client asked to cancel.
    #[serde(default)]
    pub batch_cancels: u64,
}

impl Stats {
    /// Records the credential headers and checks the whole request for the watched key.
    pub fn observe_request(
        &mut self,
        method: &str,
        path_and_query: &str,
        headers: &hyper::HeaderMap,
        body: &[u8],
        watch_key: Option<&str>,
    ) {
        push_distinct(
            &mut self.requests_seen,
            format!("{method} {path_and_query}"),
        );
        for name in CREDENTIAL_HEADERS {
            for value in headers.get_all(name) {
                push_distinct(
                    &mut self.authorization_headers_seen,
                    format!("{name}: {}", String::from_utf8_lossy(value.as_bytes())),
                );
            }
        }
        let Some(key) = watch_key.filter(|k| !k.is_empty()) else {
            return;
        };
        let in_url = path_and_query.contains(key);
        let in_body = contains_bytes(body, key.as_bytes());
        let in_other_header = headers.iter().any(|(name, value)| {
            !CREDENTIAL_HEADERS.contains(&name.as_str())
                && contains_bytes(value.as_bytes(), key.as_bytes())
        });
        if in_url || in_body || in_other_header {
            self.key_leaks += 1;
        }
    }

    pub fn record_sent(&mut self, temperature: Option<f64>, response_format: &str) {
        if let Some(t) = temperature {
            if !self.temperatures_seen.contains(&t) {
                self.temperatures_seen.push(t);
            }
        }
        push_distinct(&mut self.response_formats_seen, response_format.to_string());
    }

    pub fn record_answer(
        &mut self,
        task: &str,
        repair: bool,
        input_tokens: u64,
        output_tokens: u64,
    ) {
        for kind in task.split('+') {
            *self.by_task.entry(kind.to_string()).or_default() += 1;
        }
        self.repairs += u64::from(repair);
        self.input_tokens += input_tokens;
        self.output_tokens += output_tokens;
    }
}

fn push_distinct(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

fn contains_bytes(haystack: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_outside_credential_headers_is_a_leak() {
        let mut headers = hyper::HeaderMap::new();
        headers.insert("authorization", "Bearer sk-watch".parse().unwrap());
        let mut stats = Stats::default();
        stats.observe_request(
            "POST",
            "/v1/chat/completions",
            &headers,
            b"{}",
            Some("sk-watch"),
        );
        assert_eq!(
            stats.key_leaks, 0,
            "the Authorization header is where the key belongs"
        );
        assert_eq!(
            stats.authorization_headers_seen,
            vec!["authorization: Bearer sk-watch"]
        );
        stats.observe_request(
            "POST",
            "/v1/chat/completions?key=sk-watch",
            &headers,
            b"{}",
            Some("sk-watch"),
        );
        stats.observe_request(
            "POST",
            "/v1/chat/completions",
            &headers,
            b"{\"k\":\"sk-watch\"}",
            Some("sk-watch"),
        );
        headers.insert("x-debug", "sk-watch".parse().unwrap());
        stats.observe_request(
            "POST",
            "/v1/chat/completions",
            &headers,
            b"{}",
            Some("sk-watch"),
        );
        assert_eq!(stats.key_leaks, 3, "URL, body and another header each leak");
    }
}
