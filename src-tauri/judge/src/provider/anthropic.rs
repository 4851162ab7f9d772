//! Anthropic's Messages API: `POST {base}/v1/messages` with `x-api-key` and
//! `anthropic-version`, the system prompt in its own field, `max_tokens` required, usage
//! as `input_tokens` / `output_tokens`; models from `GET {base}/v1/models`. There is no
//! JSON mode: the prompt states the shape and `parse` tolerates prose around it. Owns
//! the dialect only; no retries, no parsing of verdicts.

use std::time::Duration;

use serde_json::{json, Value};

use super::{http_client, join, json_body, secret_header, status_error, tokens, transport_error};
use super::{ChatRequest, ChatResponse, Provider, ProviderError};
use crate::prompt::Role;
use crate::{JudgeError, Usage};
use ragnosis_types::ApiKey;

pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
pub const API_VERSION: &str = "2023-06-01";

pub struct AnthropicProvider {
    client: reqwest::Client,
    /// Without the trailing `/v1`.
    base: String,
    key: Option<ApiKey>,
    timeout: Duration,
}

impl AnthropicProvider {
    pub fn new(
        base_url: &str,
        key: Option<ApiKey>,
        timeout: Duration,
    ) -> Result<AnthropicProvider, JudgeError> {
        let base = if base_url.trim().is_empty() {
            DEFAULT_BASE_URL
        } else {
            base_url.trim()
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
        Ok(AnthropicProvider {
            client: http_client(&base, timeout)?,
            base,
            key,
            timeout,
        })
    }

    fn request(
        &self,
        builder: reqwest::RequestBuilder,
    ) -> Result<reqwest::RequestBuilder, ProviderError> {
        let builder = builder.header("anthropic-version", API_VERSION);
        match &self.key {
            Some(key) => Ok(builder.header("x-api-key", secret_header("", key)?)),
            None => Ok(builder),
        }
    }

    async fn send(&self, builder: reqwest::RequestBuilder) -> Result<Value, ProviderError> {
        let resp = self
            .request(builder)?
            .send()
            .await
            .map_err(|e| transport_error(e, self.timeout, self.key.as_ref()))?;
        if !resp.status().is_success() {
            let (status, headers) = (resp.status(), resp.headers().clone());
            let body = resp.text().await.unwrap_or_default();
            return Err(status_error(status, &headers, &body, self.key.as_ref()));
        }
        json_body(resp, self.timeout, self.key.as_ref()).await
    }
}

/// The request body: system messages joined into `system`, the rest as turns. A batch
/// request carries the same (`judge::batch::anthropic`).
pub(crate) fn body(req: &ChatRequest) -> Value {
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(|m| m.content.as_str())
        .collect();
    let turns: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .map(|m| json!({"role": m.role, "content": m.content}))
        .collect();
    let mut body = json!({
        "model": req.model,
        "max_tokens": req.max_output_tokens,
        "temperature": req.temperature,
        "messages": turns,
    });
    if !system.is_empty() {
        body["system"] = json!(system.join("\n\n"));
    }
    body
}

pub(crate) fn reply(v: &Value) -> ChatResponse {
    let text = v
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("");
    let usage = v.get("usage").and_then(|u| {
        Some(Usage {
            input_tokens: tokens(u, "input_tokens")?,
            output_tokens: tokens(u, "output_tokens")?,
            estimated: false,
        })
    });
    ChatResponse {
        text,
        usage,
        model: v.get("model").and_then(Value::as_str).map(str::to_string),
    }
}

#[async_trait::async_trait]
impl Provider for AnthropicProvider {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError> {
        let url = join(&self.base, "v1/messages");
        let v = self.send(self.client.post(url).json(&body(req))).await?;
        Ok(reply(&v))
    }

    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        let v = self
            .send(self.client.get(join(&self.base, "v1/models?limit=1000")))
            .await?;
        let mut ids: Vec<String> = v
            .get("data")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string))
            .collect();
        ids.sort();
        Ok(ids)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::Message;

    #[test]
    fn system_prompt_is_split_out_and_max_tokens_sent() {
        let req = ChatRequest {
            model: "claude-x".into(),
            messages: vec![Message::system("rules"), Message::user("data")],
            temperature: 0.0,
            max_output_tokens: 2048,
            schema: None,
        };
        let b = body(&req);
        assert_eq!(b["system"], json!("rules"));
        assert_eq!(b["messages"], json!([{"role": "user", "content": "data"}]));
        assert_eq!(b["max_tokens"], json!(2048));
        assert_eq!(b["temperature"], json!(0.0));
    }

    #[test]
    fn reply_joins_text_blocks_and_reads_usage() {
        let v = json!({"model": "claude-x", "content": [{"type": "text", "text": "{\"a\":"}, {"type": "text", "text": "1}"}],
                       "usage": {"input_tokens": 10, "output_tokens": 4}});
        let r = reply(&v);
        assert_eq!(r.text, "{\"a\":1}");
        assert_eq!(r.usage.unwrap().input_tokens, 10);
    }
}
