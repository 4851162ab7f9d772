//! OpenAI's Batch API, and Azure OpenAI's (the same protocol under `/openai/` with an
//! `api-version`, the batch deployment named by each request's `model`): the request
//! file is uploaded to `files` with `purpose=batch` as multipart form data (built in
//! memory: the file is never written to disk), the batch created for chat completions
//! within `24h`, its status read, the output and error files read back.
//!
//! Owns that dialect and its HTTP; no retries, no verdicts. The key travels only in the
//! `Authorization` (Azure: `api-key`) header, as in live calls.

use std::time::Duration;

use serde_json::{json, Value};

use super::{
    unsupported, BatchApi, BatchLimits, BatchState, Entry, EntryResult, RequestFile, Submitted,
};
use crate::provider::openai::{chat_body, completion, format_of, StructuredOutput};
use crate::provider::{
    http_client, join, json_body, scrub, secret_header, status_error, transport_error, ChatRequest,
    ProviderError,
};
use crate::JudgeError;
use ragnosis_types::ApiKey;

/// Uploads and downloads of request and result files (up to 200 MB) may take this long;
/// status calls use the profile's timeout.
const TRANSFER_TIMEOUT: Duration = Duration::from_secs(30 * 60);

pub struct OpenAiBatches {
    client: reqwest::Client,
    base: String,
    key: Option<ApiKey>,
    /// Azure OpenAI: its api-version; None for OpenAI and compatible services.
    azure: Option<String>,
    format: u8,
    timeout: Duration,
    limits: BatchLimits,
}

impl OpenAiBatches {
    /// OpenAI (or a compatible service with the same batch API) at `base_url`, the
    /// profile's base URL ending in `/v1`.
    pub fn new(
        base_url: &str,
        key: Option<ApiKey>,
        choice: StructuredOutput,
        timeout: Duration,
        limits: BatchLimits,
    ) -> Result<OpenAiBatches, JudgeError> {
        let base = match base_url.trim() {
            "" => crate::provider::openai::DEFAULT_BASE_URL,
            b => b,
        };
        Self::build(base, None, key, choice, timeout, limits)
    }

    /// Azure OpenAI at the resource endpoint `base_url`.
    pub fn azure(
        base_url: &str,
        api_version: Option<&str>,
        key: Option<ApiKey>,
        choice: StructuredOutput,
        timeout: Duration,
        limits: BatchLimits,
    ) -> Result<OpenAiBatches, JudgeError> {
        use crate::provider::azure;
        Self::build(
            azure::resource_endpoint(base_url),
            Some(azure::api_version(api_version).to_string()),
            key,
            choice,
            timeout,
            limits,
        )
    }

    fn build(
        base: &str,
        azure: Option<String>,
        key: Option<ApiKey>,
        choice: StructuredOutput,
        timeout: Duration,
        limits: BatchLimits,
    ) -> Result<OpenAiBatches, JudgeError> {
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(JudgeError::Config(format!(
                "the base URL must start with http:// or https:// (got {base:?})"
            )));
        }
        Ok(OpenAiBatches {
            client: http_client(base, TRANSFER_TIMEOUT)?,
            base: base.trim_end_matches('/').to_string(),
            key,
            azure,
            format: format_of(choice),
            timeout,
            limits,
        })
    }

    fn url(&self, path: &str) -> String {
        match &self.azure {
            None => join(&self.base, path),
            Some(version) => format!("{}/openai/{path}?api-version={version}", self.base),
        }
    }

    /// The endpoint every request of a batch goes to.
    fn endpoint(&self) -> &'static str {
        match self.azure {
            None => "/v1/chat/completions",
            Some(_) => "/chat/completions",
        }
    }

    fn authorize(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::RequestBuilder, ProviderError> {
        let Some(key) = &self.key else {
            return Ok(request);
        };
        Ok(match self.azure {
            None => request.header("authorization", secret_header("Bearer ", key)?),
            Some(_) => request.header(crate::provider::azure::KEY_HEADER, secret_header("", key)?),
        })
    }

    /// Sends a request and reads its JSON reply. `what` names the call when the service
    /// turns out to have no batch API.
    async fn send(
        &self,
        request: reqwest::RequestBuilder,
        what: Option<&str>,
    ) -> Result<Value, ProviderError> {
        let resp = self
            .authorize(request)?
            .send()
            .await
            .map_err(|e| transport_error(e, self.timeout, self.key.as_ref()))?;
        let status = resp.status();
        if !status.is_success() {
            if let Some(error) = what.and_then(|w| unsupported(status.as_u16(), w)) {
                return Err(ProviderError::fatal(error));
            }
            let headers = resp.headers().clone();
            let body = resp.text().await.unwrap_or_default();
            return Err(status_error(status, &headers, &body, self.key.as_ref()));
        }
        json_body(resp, self.timeout, self.key.as_ref()).await
    }

    async fn download(&self, file_id: &str) -> Result<String, ProviderError> {
        let url = self.url(&format!("files/{file_id}/content"));
        let resp = self
            .authorize(self.client.get(url))?
            .send()
            .await
            .map_err(|e| transport_error(e, TRANSFER_TIMEOUT, self.key.as_ref()))?;
        let status = resp.status();
        if !status.is_success() {
            let headers = resp.headers().clone();
            let body = resp.text().await.unwrap_or_default();
            return Err(status_error(status, &headers, &body, self.key.as_ref()));
        }
        resp.text()
            .await
            .map_err(|e| transport_error(e, TRANSFER_TIMEOUT, self.key.as_ref()))
    }
}

/// A multipart/form-data upload of `lines` as a `.jsonl` file with `purpose=batch`.
fn upload_body(boundary: &str, lines: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(lines.len() + 400);
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"ragnosis-requests.jsonl\"\r\nContent-Type: application/jsonl\r\n\r\n"
        )
        .as_bytes(),
    );
    body.extend_from_slice(lines);
    body.extend_from_slice(format!("\n\r\n--{boundary}--\r\n").as_bytes());
    body
}

fn state_of(v: &Value) -> BatchState {
    let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_string);
    let count = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    let status = text("/status").unwrap_or_default();
    let refused = match status.as_str() {
        "failed" => Some(format!(
            "it failed: {}",
            text("/errors/data/0/message").unwrap_or_else(|| "no reason given".into())
        )),
        "cancelling" | "cancelled" => Some("it was cancelled".into()),
        _ => None,
    };
    BatchState {
        ended: matches!(
            status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        ),
        status,
        total: count("/request_counts/total"),
        completed: count("/request_counts/completed"),
        failed: count("/request_counts/failed"),
        output_file_id: text("/output_file_id"),
        error_file_id: text("/error_file_id"),
        refused,
    }
}

/// The entries of an output or error file. A line that cannot be read is left out: its
/// request then counts as missing, and is asked live.
fn entries(text: &str, key: Option<&ApiKey>) -> Vec<Entry> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| {
            let custom_id = v.get("custom_id")?.as_str()?.to_string();
            let status = v.pointer("/response/status_code").and_then(Value::as_u64);
            let body = v.pointer("/response/body");
            let result = match (status, body) {
                (Some(200), Some(body)) if body.is_object() => match completion(body, key) {
                    Ok(reply) => EntryResult::Replied(reply),
                    Err(e) => EntryResult::Failed(format!(
                        "the batch's reply holds no answer ({})",
                        e.error
                    )),
                },
                (Some(200), _) => {
                    EntryResult::Failed("the batch's reply is not a JSON object".into())
                }
                _ => EntryResult::Failed(failure(&v, status, key)),
            };
            Some(Entry { custom_id, result })
        })
        .collect()
}

/// Why a request of a batch has no reply, in a sentence.
fn failure(v: &Value, status: Option<u64>, key: Option<&ApiKey>) -> String {
    let text = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or("");
    let message = scrub(
        match text("/error/message") {
            "" => text("/response/body/error/message"),
            m => m,
        },
        key,
    );
    match (text("/error/code"), status) {
        ("", Some(status)) => {
            format!("the request failed inside the batch: HTTP {status}: {message}")
        }
        ("", None) => format!("the batch gave no reply for this request: {message}"),
        (code, _) => format!("the batch did not run this request ({code}: {message})"),
    }
}

#[async_trait::async_trait]
impl BatchApi for OpenAiBatches {
    fn provider(&self) -> &'static str {
        if self.azure.is_some() {
            "azure"
        } else {
            "openai"
        }
    }

    fn limits(&self) -> BatchLimits {
        self.limits
    }

    fn line(&self, custom_id: &str, request: &ChatRequest) -> Vec<u8> {
        json!({
            "custom_id": custom_id,
            "method": "POST",
            "url": self.endpoint(),
            "body": chat_body(request, self.format, true),
        })
        .to_string()
        .into_bytes()
    }

    async fn submit(&self, file: &RequestFile) -> Result<Submitted, ProviderError> {
        let boundary = format!(
            "ragnosis-{:016x}{:016x}",
            rand::random::<u64>(),
            rand::random::<u64>()
        );
        let upload = self
            .client
            .post(self.url("files"))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(upload_body(&boundary, &file.lines));
        let uploaded = self.send(upload, Some("the file upload")).await?;
        let Some(file_id) = uploaded.get("id").and_then(Value::as_str) else {
            return Err(ProviderError::new(JudgeError::Http {
                status: 200,
                body: "the file upload's reply names no file id".into(),
            }));
        };
        let create = self
            .client
            .post(self.url("batches"))
            .timeout(self.timeout)
            .json(&json!({
                "input_file_id": file_id,
                "endpoint": self.endpoint(),
                "completion_window": "24h",
            }));
        let created = self.send(create, Some("creating the batch")).await?;
        let state = state_of(&created);
        let batch_id = created.get("id").and_then(Value::as_str).ok_or_else(|| {
            ProviderError::fatal(JudgeError::Http {
                status: 200,
                body: "the batch was created but the reply names no batch id".into(),
            })
        })?;
        Ok(Submitted {
            batch_id: batch_id.to_string(),
            input_file_id: Some(file_id.to_string()),
            status: state.status,
        })
    }

    async fn state(&self, batch_id: &str) -> Result<BatchState, ProviderError> {
        let request = self
            .client
            .get(self.url(&format!("batches/{batch_id}")))
            .timeout(self.timeout);
        Ok(state_of(&self.send(request, None).await?))
    }

    async fn results(
        &self,
        _batch_id: &str,
        state: &BatchState,
    ) -> Result<Vec<Entry>, ProviderError> {
        let mut all = Vec::new();
        for file in [&state.output_file_id, &state.error_file_id]
            .into_iter()
            .flatten()
        {
            all.extend(entries(&self.download(file).await?, self.key.as_ref()));
        }
        Ok(all)
    }

    async fn cancel(&self, batch_id: &str) -> Result<BatchState, ProviderError> {
        let request = self
            .client
            .post(self.url(&format!("batches/{batch_id}/cancel")))
            .timeout(self.timeout);
        Ok(state_of(&self.send(request, None).await?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_lines_become_replies_or_reasons() {
        let text = [
            json!({"custom_id": "a", "response": {"status_code": 200, "body": {"choices": [{"message": {"content": "{}"}}], "usage": {"prompt_tokens": 5, "completion_tokens": 2}}}, "error": null}),
            json!({"custom_id": "b", "response": {"status_code": 500, "body": {"error": {"message": "overloaded sk-x"}}}, "error": null}),
            json!({"custom_id": "c", "response": null, "error": {"code": "batch_expired", "message": "too late"}}),
        ]
        .map(|v| v.to_string())
        .join("\n")
            + "\nnot json\n";
        let key = ApiKey::new("sk-x");
        let got = entries(&text, key.as_ref());
        assert_eq!(got.len(), 3, "the unreadable line is left out");
        assert!(
            matches!(&got[0].result, EntryResult::Replied(r) if r.text == "{}" && r.usage.is_some())
        );
        let EntryResult::Failed(b) = &got[1].result else {
            panic!("{got:?}")
        };
        assert!(b.contains("HTTP 500") && !b.contains("sk-x"), "{b}");
        assert!(matches!(&got[2].result, EntryResult::Failed(c) if c.contains("batch_expired")));
    }

    #[test]
    fn a_line_is_the_live_body_for_the_endpoint_and_the_upload_is_multipart() {
        let api = OpenAiBatches::azure(
            "https://r.openai.azure.com/openai/",
            None,
            None,
            StructuredOutput::Auto,
            Duration::from_secs(5),
            BatchLimits::OPENAI,
        )
        .unwrap();
        assert_eq!(
            api.url("batches"),
            "https://r.openai.azure.com/openai/batches?api-version=2024-10-21"
        );
        let request = ChatRequest {
            model: "gpt-4o-batch".into(),
            messages: vec![],
            temperature: 0.0,
            max_output_tokens: 10,
            schema: None,
        };
        let line: Value = serde_json::from_slice(&api.line("k1", &request)).unwrap();
        assert_eq!(line["url"], "/chat/completions");
        assert_eq!(
            line["body"]["model"], "gpt-4o-batch",
            "a batch names its deployment"
        );
        let body = String::from_utf8(upload_body("B", b"{}\n{}")).unwrap();
        assert!(
            body.starts_with("--B\r\n") && body.ends_with("\r\n--B--\r\n"),
            "{body}"
        );
        assert!(body.contains("name=\"purpose\"\r\n\r\nbatch\r\n"));
    }
}
