//! OpenAI-compatible chat completions: OpenAI, Ollama (`/v1`), vLLM, LM Studio,
//! llama.cpp server, OpenRouter, Groq, Gemini's OpenAI endpoint, and (with the `azure`
//! URL and header) Azure OpenAI.
//!
//! Structured output: in `Auto` mode the request asks for `json_schema`; when a server
//! answers 400 about `response_format`, the provider falls back to `json_object`, then
//! to no `response_format` at all, and remembers the choice for later calls. Owns the
//! request body and the reply's shape; no retries, no parsing of verdicts.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::{
    azure, http_client, join, json_body, secret_header, status_error, tokens, transport_error,
};
use super::{ChatRequest, ChatResponse, Provider, ProviderError};
use crate::{JudgeError, Usage};
use ragnosis_types::ApiKey;

/// How to ask for JSON replies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredOutput {
    /// `json_schema`, falling back to `json_object`, then to none, on a 400 about it.
    #[default]
    Auto,
    JsonSchema,
    JsonObject,
    /// No `response_format`: the prompt alone asks for JSON.
    Off,
}

const SCHEMA: u8 = 0;
const OBJECT: u8 = 1;
const OFF: u8 = 2;

pub(crate) enum Endpoint {
    OpenAi,
    Azure { api_version: String },
}

pub struct OpenAiProvider {
    client: reqwest::Client,
    base: String,
    key: Option<ApiKey>,
    endpoint: Endpoint,
    choice: StructuredOutput,
    /// The format currently sent: `SCHEMA`, `OBJECT` or `OFF`.
    mode: AtomicU8,
    timeout: Duration,
}

/// The default base URL when a profile leaves it empty.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

impl OpenAiProvider {
    pub fn new(
        base_url: &str,
        key: Option<ApiKey>,
        choice: StructuredOutput,
        timeout: Duration,
    ) -> Result<OpenAiProvider, JudgeError> {
        let base = if base_url.trim().is_empty() {
            DEFAULT_BASE_URL
        } else {
            base_url.trim()
        };
        Self::with_endpoint(base, key, choice, timeout, Endpoint::OpenAi)
    }

    /// An Azure OpenAI deployment: the profile's `base_url` is the resource endpoint.
    pub fn azure(
        base_url: &str,
        api_version: Option<&str>,
        key: Option<ApiKey>,
        choice: StructuredOutput,
        timeout: Duration,
    ) -> Result<OpenAiProvider, JudgeError> {
        if base_url.trim().is_empty() {
            return Err(JudgeError::Config(
                "an Azure profile needs the resource endpoint as its base URL".into(),
            ));
        }
        let api_version = azure::api_version(api_version).to_string();
        OpenAiProvider::with_endpoint(
            azure::resource_endpoint(base_url),
            key,
            choice,
            timeout,
            Endpoint::Azure { api_version },
        )
    }

    fn with_endpoint(
        base: &str,
        key: Option<ApiKey>,
        choice: StructuredOutput,
        timeout: Duration,
        endpoint: Endpoint,
    ) -> Result<OpenAiProvider, JudgeError> {
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(JudgeError::Config(format!(
                "the base URL must start with http:// or https:// (got {base:?})"
            )));
        }
        let mode = format_of(choice);
        Ok(OpenAiProvider {
            client: http_client(base, timeout)?,
            base: base.trim_end_matches('/').to_string(),
            key,
            endpoint,
            choice,
            mode: AtomicU8::new(mode),
            timeout,
        })
    }

    fn chat_url(&self, model: &str) -> String {
        match &self.endpoint {
            Endpoint::OpenAi => join(&self.base, "chat/completions"),
            Endpoint::Azure { api_version } => azure::chat_url(&self.base, model, api_version),
        }
    }

    fn authorize(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<reqwest::RequestBuilder, ProviderError> {
        let Some(key) = &self.key else {
            return Ok(request);
        };
        let (name, value) = match self.endpoint {
            Endpoint::OpenAi => ("authorization", secret_header("Bearer ", key)?),
            Endpoint::Azure { .. } => (azure::KEY_HEADER, secret_header("", key)?),
        };
        Ok(request.header(name, value))
    }

    fn body(&self, req: &ChatRequest, mode: u8) -> Value {
        chat_body(req, mode, matches!(self.endpoint, Endpoint::OpenAi))
    }

    async fn get_json(&self, url: &str) -> Result<Value, ProviderError> {
        let resp = self
            .authorize(self.client.get(url))?
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

impl OpenAiProvider {
    /// Embeds `texts` with `model` at `{base}/embeddings`: one vector per text, in order.
    /// A reply with a different count, empty vectors, uneven dimensions or non-numbers is
    /// a bad reply, not a short list.
    pub async fn embed(&self, model: &str, texts: &[&str]) -> Result<Vec<Vec<f32>>, ProviderError> {
        let url = join(&self.base, "embeddings");
        let resp = self
            .authorize(self.client.post(&url))?
            .json(&json!({ "model": model, "input": texts }))
            .send()
            .await
            .map_err(|e| transport_error(e, self.timeout, self.key.as_ref()))?;
        if !resp.status().is_success() {
            let (status, headers) = (resp.status(), resp.headers().clone());
            let body = resp.text().await.unwrap_or_default();
            return Err(status_error(status, &headers, &body, self.key.as_ref()));
        }
        let body = json_body(resp, self.timeout, self.key.as_ref()).await?;
        vectors_of(&body, texts.len()).map_err(|message| ProviderError {
            error: JudgeError::Http {
                status: 200,
                body: message,
            },
            retry_after: None,
            retryable: false,
        })
    }
}

/// The vectors of an embeddings reply (`data[i].embedding`, placed by `data[i].index`).
fn vectors_of(body: &Value, expected: usize) -> Result<Vec<Vec<f32>>, String> {
    let data = body
        .get("data")
        .and_then(Value::as_array)
        .ok_or("the embeddings reply has no data list")?;
    if data.len() != expected {
        return Err(format!(
            "the embeddings reply has {} vectors for {expected} texts",
            data.len()
        ));
    }
    let mut out: Vec<Option<Vec<f32>>> = vec![None; expected];
    for (i, entry) in data.iter().enumerate() {
        let at = entry
            .get("index")
            .and_then(Value::as_u64)
            .map_or(i, |n| n as usize);
        let vector = entry
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or(format!("vector {i} of the embeddings reply is not a list"))?
            .iter()
            .map(|x| x.as_f64().map(|x| x as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or(format!(
                "vector {i} of the embeddings reply holds a non-number"
            ))?;
        match out.get_mut(at) {
            Some(slot @ None) => *slot = Some(vector),
            _ => {
                return Err(format!(
                    "the embeddings reply repeats or overruns index {at}"
                ))
            }
        }
    }
    let vectors: Vec<Vec<f32>> = out.into_iter().map(Option::unwrap_or_default).collect();
    // No texts, no vectors (and no first vector to measure).
    let Some(dims) = vectors.first().map(Vec::len) else {
        return Ok(vectors);
    };
    if dims == 0 || vectors.iter().any(|v| v.len() != dims) {
        return Err("the embeddings reply's vectors are empty or of different lengths".into());
    }
    Ok(vectors)
}

/// A chat completions body. `format` is the reply format sent (`SCHEMA`, `OBJECT` or
/// `OFF`); `with_model` is false for Azure's live calls, whose URL names the deployment.
/// The batch request file carries the same body (`judge::batch::openai`).
pub(crate) fn chat_body(req: &ChatRequest, format: u8, with_model: bool) -> Value {
    let mut body = json!({
        "messages": req.messages,
        "temperature": req.temperature,
        "stream": false,
    });
    if with_model {
        body["model"] = json!(req.model);
    }
    match (&req.schema, format) {
        (Some((name, schema)), SCHEMA) => {
            body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": true}});
        }
        (_, SCHEMA | OBJECT) => body["response_format"] = json!({"type": "json_object"}),
        _ => {}
    }
    body
}

/// The reply format first sent for a choice (`Auto` starts with the schema).
pub(crate) fn format_of(choice: StructuredOutput) -> u8 {
    match choice {
        StructuredOutput::Auto | StructuredOutput::JsonSchema => SCHEMA,
        StructuredOutput::JsonObject => OBJECT,
        StructuredOutput::Off => OFF,
    }
}

/// Whether a 400 is the server refusing the `response_format` we sent.
fn rejects_response_format(body: &str) -> bool {
    let body = body.to_ascii_lowercase();
    [
        "response_format",
        "response format",
        "json_schema",
        "json_object",
        "structured output",
    ]
    .iter()
    .any(|hint| body.contains(hint))
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError> {
        let url = self.chat_url(&req.model);
        loop {
            let mode = self.mode.load(Ordering::Relaxed);
            let request = self
                .authorize(self.client.post(&url))?
                .json(&self.body(req, mode));
            let resp = request
                .send()
                .await
                .map_err(|e| transport_error(e, self.timeout, self.key.as_ref()))?;
            let status = resp.status();
            if !status.is_success() {
                let headers = resp.headers().clone();
                let body = resp.text().await.unwrap_or_default();
                let may_fall_back = self.choice == StructuredOutput::Auto && mode != OFF;
                if status.as_u16() == 400 && may_fall_back && rejects_response_format(&body) {
                    // Remember for every later call of this judge; losing a race with
                    // another call that already fell back is fine.
                    let _ = self.mode.compare_exchange(
                        mode,
                        mode + 1,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                    continue;
                }
                return Err(status_error(status, &headers, &body, self.key.as_ref()));
            }
            let reply = json_body(resp, self.timeout, self.key.as_ref()).await?;
            return completion(&reply, self.key.as_ref());
        }
    }

    async fn list_models(&self) -> Result<Vec<String>, ProviderError> {
        if let Endpoint::Azure { .. } = self.endpoint {
            let reply = self.get_json(&azure::deployments_url(&self.base)).await?;
            return Ok(ids(&reply, "data", "id"));
        }
        let listed = self.get_json(&join(&self.base, "models")).await;
        if let Ok(reply) = &listed {
            let models = ids(reply, "data", "id");
            if !models.is_empty() {
                return Ok(models);
            }
        }
        // Ollama also lists its local models at /api/tags, next to /v1.
        let root = self.base.strip_suffix("/v1").unwrap_or(&self.base);
        match self.get_json(&join(root, "api/tags")).await {
            Ok(tags) if !ids(&tags, "models", "name").is_empty() => {
                Ok(ids(&tags, "models", "name"))
            }
            _ => listed.map(|reply| ids(&reply, "data", "id")),
        }
    }
}

/// Reads `choices[0].message.content` and `usage` of a chat completion.
pub(crate) fn completion(
    reply: &Value,
    key: Option<&ApiKey>,
) -> Result<ChatResponse, ProviderError> {
    let Some(message) = reply.pointer("/choices/0/message") else {
        let detail = reply
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("no choices in the reply");
        return Err(ProviderError {
            error: JudgeError::Http {
                status: 200,
                body: super::scrub(detail, key),
            },
            retry_after: None,
            retryable: true,
        });
    };
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        // Some servers send content parts: [{"type": "text", "text": "..."}].
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ => message
            .get("refusal")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    };
    let usage = reply.get("usage").and_then(|u| {
        Some(Usage {
            input_tokens: tokens(u, "prompt_tokens")?,
            output_tokens: tokens(u, "completion_tokens")?,
            estimated: false,
        })
    });
    let model = reply
        .get("model")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(ChatResponse { text, usage, model })
}

/// The string `field` of each element of the array `list`, sorted and deduplicated.
fn ids(reply: &Value, list: &str, field: &str) -> Vec<String> {
    let mut out: Vec<String> = reply
        .get(list)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get(field).and_then(Value::as_str).map(str::to_string))
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn completion_reads_text_usage_and_model() {
        let reply = json!({"model": "m-1", "choices": [{"message": {"content": "{\"a\":1}"}}],
                           "usage": {"prompt_tokens": 12, "completion_tokens": 3}});
        let r = completion(&reply, None).unwrap();
        assert_eq!(
            (r.text.as_str(), r.model.as_deref()),
            ("{\"a\":1}", Some("m-1"))
        );
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 12,
                output_tokens: 3,
                estimated: false
            })
        );
        let no_usage =
            json!({"choices": [{"message": {"content": [{"type": "text", "text": "hi"}]}}]});
        assert_eq!(
            completion(&no_usage, None).unwrap(),
            ChatResponse {
                text: "hi".into(),
                usage: None,
                model: None
            }
        );
    }

    /// Reading the embeddings reply for the fuzz work: an empty list for no texts indexed
    /// its first vector and panicked.
    #[test]
    fn an_embeddings_reply_for_no_texts_is_no_vectors() {
        assert_eq!(vectors_of(&json!({"data": []}), 0), Ok(Vec::new()));
        assert!(vectors_of(&json!({"data": []}), 2).is_err());
    }

    #[test]
    fn a_reply_without_choices_is_retryable_and_scrubbed() {
        let key = ApiKey::new("sk-secret-123").unwrap();
        let err = completion(
            &json!({"error": {"message": "bad key sk-secret-123"}}),
            Some(&key),
        )
        .unwrap_err();
        assert!(err.retryable);
        assert!(!err.error.to_string().contains("sk-secret-123"));
    }

    #[test]
    fn response_format_rejections_are_recognised() {
        assert!(rejects_response_format(
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported"
        ));
        assert!(!rejects_response_format("model not found"));
    }

    #[test]
    fn body_sends_temperature_and_the_chosen_format() {
        let p = OpenAiProvider::new(
            "http://127.0.0.1:9/v1",
            None,
            StructuredOutput::Auto,
            Duration::from_secs(1),
        )
        .unwrap();
        let req = ChatRequest {
            model: "m".into(),
            messages: vec![],
            temperature: 0.7,
            max_output_tokens: 100,
            schema: Some(("s".into(), json!({"type": "object"}))),
        };
        assert_eq!(p.body(&req, SCHEMA)["temperature"], json!(0.7));
        assert_eq!(
            p.body(&req, SCHEMA)["response_format"]["type"],
            json!("json_schema")
        );
        assert_eq!(
            p.body(&req, OBJECT)["response_format"]["type"],
            json!("json_object")
        );
        assert!(p.body(&req, OFF).get("response_format").is_none());
    }
}
