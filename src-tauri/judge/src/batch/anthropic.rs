//! Anthropic's Message Batches: `POST {base}/v1/messages/batches` with the requests
//! (`custom_id`, `params`: the live Messages body) in the create request itself, status
//! from `GET .../{id}`, results as JSONL from `GET .../{id}/results` — built from the
//! profile's base URL rather than the `results_url` the reply names, so the key is never
//! sent to a host the profile does not name.
//!
//! Owns that dialect and its HTTP; no retries, no verdicts. The key travels only in the
//! `x-api-key` header, as in live calls.

use std::time::Duration;

use serde_json::{json, Value};

use super::{
    unsupported, BatchApi, BatchLimits, BatchState, Entry, EntryResult, RequestFile, Submitted,
};
use crate::provider::anthropic::{body, reply, API_VERSION, DEFAULT_BASE_URL};
use crate::provider::{
    http_client, join, json_body, scrub, secret_header, status_error, transport_error, ChatRequest,
    ProviderError,
};
use crate::JudgeError;
use ragnosis_types::ApiKey;

/// Creating a batch sends every request at once (up to 256 MB); reading results may be
/// as large. Status calls use the profile's timeout.
const TRANSFER_TIMEOUT: Duration = Duration::from_secs(30 * 60);

pub struct AnthropicBatches {
    client: reqwest::Client,
    /// Without the trailing `/v1`.
    base: String,
    key: Option<ApiKey>,
    timeout: Duration,
    limits: BatchLimits,
}

impl AnthropicBatches {
    pub fn new(
        base_url: &str,
        key: Option<ApiKey>,
        timeout: Duration,
        limits: BatchLimits,
    ) -> Result<AnthropicBatches, JudgeError> {
        let base = match base_url.trim() {
            "" => DEFAULT_BASE_URL,
            b => b,
        };
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(JudgeError::Config(format!(
                "the base URL must start with http:// or https:// (got {base:?})"
            )));
        }
        let base = base
            .trim_end_matches('/')
            .trim_end_matches("/v1")
            .to_string();
        Ok(AnthropicBatches {
            client: http_client(&base, TRANSFER_TIMEOUT)?,
            base,
            key,
            timeout,
            limits,
        })
    }

    fn url(&self, path: &str) -> String {
        join(&self.base, &format!("v1/messages/batches{path}"))
    }

    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        what: Option<&str>,
    ) -> Result<reqwest::Response, ProviderError> {
        let mut request = request.header("anthropic-version", API_VERSION);
        if let Some(key) = &self.key {
            request = request.header("x-api-key", secret_header("", key)?);
        }
        let resp = request
            .send()
            .await
            .map_err(|e| transport_error(e, self.timeout, self.key.as_ref()))?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        if let Some(error) = what.and_then(|w| unsupported(status.as_u16(), w)) {
            return Err(ProviderError::fatal(error));
        }
        let headers = resp.headers().clone();
        let body = resp.text().await.unwrap_or_default();
        Err(status_error(status, &headers, &body, self.key.as_ref()))
    }

    async fn send_json(
        &self,
        request: reqwest::RequestBuilder,
        what: Option<&str>,
    ) -> Result<Value, ProviderError> {
        let resp = self.send(request, what).await?;
        json_body(resp, self.timeout, self.key.as_ref()).await
    }
}

fn state_of(v: &Value) -> BatchState {
    let count = |name: &str| {
        v.pointer(&format!("/request_counts/{name}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let status = v
        .get("processing_status")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let failed = count("errored") + count("canceled") + count("expired");
    BatchState {
        ended: status == "ended",
        status,
        total: count("processing") + count("succeeded") + failed,
        completed: count("succeeded"),
        failed,
        output_file_id: None,
        error_file_id: None,
        refused: v
            .get("cancel_initiated_at")
            .is_some_and(|t| !t.is_null())
            .then(|| "it was cancelled".to_string()),
    }
}

/// The entries of a results file; a line that cannot be read is left out (its request
/// then counts as missing, and is asked live).
fn entries(text: &str, key: Option<&ApiKey>) -> Vec<Entry> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            let custom_id = v.get("custom_id")?.as_str()?.to_string();
            let result = v.get("result")?;
            let result = match result.get("type").and_then(Value::as_str) {
                Some("succeeded") => match result.get("message") {
                    Some(message) if message.is_object() => EntryResult::Replied(reply(message)),
                    _ => EntryResult::Failed("the batch's reply holds no message".into()),
                },
                Some("errored") => {
                    let message = result
                        .pointer("/error/error/message")
                        .or_else(|| result.pointer("/error/message"))
                        .and_then(Value::as_str)
                        .unwrap_or("no detail");
                    EntryResult::Failed(format!(
                        "the request failed inside the batch: {}",
                        scrub(message, key)
                    ))
                }
                Some("canceled") => {
                    EntryResult::Failed("the batch was cancelled before this request ran".into())
                }
                Some("expired") => EntryResult::Failed(
                    "the batch expired before this request ran (24 hours passed)".into(),
                ),
                other => EntryResult::Failed(format!(
                    "the batch reported this request as {}",
                    other.unwrap_or("nothing known")
                )),
            };
            Some(Entry { custom_id, result })
        })
        .collect()
}

#[async_trait::async_trait]
impl BatchApi for AnthropicBatches {
    fn provider(&self) -> &'static str {
        "anthropic"
    }

    fn limits(&self) -> BatchLimits {
        self.limits
    }

    fn line(&self, custom_id: &str, request: &ChatRequest) -> Vec<u8> {
        json!({"custom_id": custom_id, "params": body(request)})
            .to_string()
            .into_bytes()
    }

    async fn submit(&self, file: &RequestFile) -> Result<Submitted, ProviderError> {
        let mut create = Vec::with_capacity(file.lines.len() + 32);
        create.extend_from_slice(b"{\"requests\":[");
        for (i, line) in file.each_line().enumerate() {
            if i > 0 {
                create.push(b',');
            }
            create.extend_from_slice(line);
        }
        create.extend_from_slice(b"]}");
        let request = self
            .client
            .post(self.url(""))
            .header("content-type", "application/json")
            .body(create);
        let created = self.send_json(request, Some("creating the batch")).await?;
        let batch_id = created.get("id").and_then(Value::as_str).ok_or_else(|| {
            ProviderError::fatal(JudgeError::Http {
                status: 200,
                body: "the batch was created but the reply names no batch id".into(),
            })
        })?;
        Ok(Submitted {
            batch_id: batch_id.to_string(),
            input_file_id: None,
            status: state_of(&created).status,
        })
    }

    async fn state(&self, batch_id: &str) -> Result<BatchState, ProviderError> {
        let request = self
            .client
            .get(self.url(&format!("/{batch_id}")))
            .timeout(self.timeout);
        Ok(state_of(&self.send_json(request, None).await?))
    }

    async fn results(
        &self,
        batch_id: &str,
        _state: &BatchState,
    ) -> Result<Vec<Entry>, ProviderError> {
        let request = self.client.get(self.url(&format!("/{batch_id}/results")));
        let text = self
            .send(request, None)
            .await?
            .text()
            .await
            .map_err(|e| transport_error(e, TRANSFER_TIMEOUT, self.key.as_ref()))?;
        Ok(entries(&text, self.key.as_ref()))
    }

    async fn cancel(&self, batch_id: &str) -> Result<BatchState, ProviderError> {
        let request = self
            .client
            .post(self.url(&format!("/{batch_id}/cancel")))
            .timeout(self.timeout);
        Ok(state_of(&self.send_json(request, None).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_of_every_type_are_read() {
        let text = [
            json!({"custom_id": "a", "result": {"type": "succeeded", "message": {"content": [{"type": "text", "text": "{}"}], "usage": {"input_tokens": 3, "output_tokens": 1}}}}),
            json!({"custom_id": "b", "result": {"type": "errored", "error": {"type": "error", "error": {"type": "api_error", "message": "overloaded"}}}}),
            json!({"custom_id": "c", "result": {"type": "expired"}}),
            json!({"custom_id": "d", "result": {"type": "canceled"}}),
        ]
        .map(|v| v.to_string())
        .join("\n");
        let got = entries(&text, None);
        assert!(matches!(&got[0].result, EntryResult::Replied(r) if r.text == "{}"));
        let reasons: Vec<&str> = got[1..]
            .iter()
            .map(|e| match &e.result {
                EntryResult::Failed(why) => why.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(reasons[0].contains("overloaded"), "{reasons:?}");
        assert!(reasons[1].contains("expired") && reasons[2].contains("cancelled"));
    }

    #[test]
    fn counts_add_up_and_only_ended_is_the_end() {
        let s = state_of(&json!({"processing_status": "in_progress",
            "request_counts": {"processing": 2, "succeeded": 5, "errored": 1, "canceled": 0, "expired": 2}}));
        assert_eq!((s.ended, s.total, s.completed, s.failed), (false, 10, 5, 3));
        assert!(state_of(&json!({"processing_status": "ended"})).ended);
    }
}
