//! Providers: one HTTP round trip to a model service, in its own dialect. A provider
//! sends a `ChatRequest`, returns the reply text and token usage, and maps HTTP and
//! transport failures to `JudgeError`s. It does not retry, wait, cache or parse verdicts
//! (that is `retry`, `limiter`, `cache` and `parse`).
//!
//! Keys: a provider holds the `ApiKey`, exposes it only when building the one header
//! that carries it (marked sensitive), never puts it in a URL, and scrubs it from any
//! server text it quotes in an error. Redirects are not followed, so a key can never be
//! forwarded to another host.

pub mod anthropic;
pub mod azure;
pub mod openai;
pub mod retry_after;

use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::StatusCode;
use serde_json::Value;

use super::prompt::Message;
use super::{JudgeError, Usage};
use ragnosis_types::ApiKey;

/// Everything one judge call sends.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub temperature: f64,
    /// Required by Anthropic; sent to OpenAI-compatible servers only when they need it.
    pub max_output_tokens: u32,
    /// The reply's JSON schema (name, schema), for servers with structured output.
    pub schema: Option<(String, Value)>,
}

/// The reply: the model's text, usage when the server reported it, and the model that
/// answered (servers may resolve aliases).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChatResponse {
    pub text: String,
    pub usage: Option<Usage>,
    pub model: Option<String>,
}

/// A failed round trip. `JudgeError` is what the user sees; the retry layer also needs
/// the server's `Retry-After` and whether another attempt may help, which `JudgeError`
/// has no place for.
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderError {
    pub error: JudgeError,
    pub retry_after: Option<Duration>,
    pub retryable: bool,
}

impl ProviderError {
    /// Retryable exactly when the error is transient.
    pub fn new(error: JudgeError) -> ProviderError {
        let retryable = error.is_transient();
        ProviderError {
            error,
            retry_after: None,
            retryable,
        }
    }

    /// An error no retry can fix (bad key, cancelled, bad request).
    pub fn fatal(error: JudgeError) -> ProviderError {
        ProviderError {
            error,
            retry_after: None,
            retryable: false,
        }
    }
}

impl From<JudgeError> for ProviderError {
    fn from(error: JudgeError) -> Self {
        ProviderError::new(error)
    }
}

/// One model service.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatResponse, ProviderError>;
    /// Model (or deployment) names the service offers.
    async fn list_models(&self) -> Result<Vec<String>, ProviderError>;
}

/// A client that never follows redirects (a redirect could carry the key elsewhere)
/// and bypasses proxies for loopback servers (local models, the simulator).
pub(crate) fn http_client(
    base_url: &str,
    timeout: Duration,
) -> Result<reqwest::Client, JudgeError> {
    let mut builder = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(10).min(timeout))
        // The retry layer times each attempt; this is only a backstop for callers that
        // use a provider directly.
        .timeout(timeout + Duration::from_secs(5))
        .user_agent(concat!("ragnosis/", env!("CARGO_PKG_VERSION")));
    if super::accounting::is_loopback(base_url) {
        builder = builder.no_proxy();
    }
    builder
        .build()
        .map_err(|e| JudgeError::Config(format!("cannot build the HTTP client: {e}")))
}

/// A header value holding a secret, marked sensitive so it is never printed by the HTTP
/// stack.
pub(crate) fn secret_header(prefix: &str, key: &ApiKey) -> Result<HeaderValue, JudgeError> {
    let mut value = HeaderValue::from_str(&format!("{prefix}{}", key.expose())).map_err(|_| {
        JudgeError::Config("the API key contains characters not allowed in an HTTP header".into())
    })?;
    value.set_sensitive(true);
    Ok(value)
}

/// Joins a base URL and a path with exactly one slash.
pub(crate) fn join(base: &str, path: &str) -> String {
    format!(
        "{}/{}",
        base.trim_end_matches('/'),
        path.trim_start_matches('/')
    )
}

/// Removes the key from text a server sent back, and shortens it for an error message.
pub(crate) fn scrub(text: &str, key: Option<&ApiKey>) -> String {
    let mut text = text.trim().to_string();
    if let Some(key) = key {
        text = text.replace(key.expose(), "<redacted>");
    }
    if text.chars().count() > 400 {
        text = text.chars().take(400).collect::<String>() + "…";
    }
    text
}

/// Maps a non-success HTTP status to an error: 401/403 → Auth, 429 → rate limited (with
/// Retry-After), 408 and 5xx → transient, other 4xx → final.
pub(crate) fn status_error(
    status: StatusCode,
    headers: &HeaderMap,
    body: &str,
    key: Option<&ApiKey>,
) -> ProviderError {
    let code = status.as_u16();
    match code {
        401 | 403 => ProviderError::fatal(JudgeError::Auth { status: code }),
        429 => {
            let wait = retry_after(headers);
            ProviderError {
                error: JudgeError::RateLimited {
                    attempts: 1,
                    retry_after_secs: wait.map(|w| w.as_secs()),
                },
                retry_after: wait,
                retryable: true,
            }
        }
        _ => {
            let body = scrub(body, key);
            let body = if body.is_empty() {
                status.canonical_reason().unwrap_or("no body").to_string()
            } else {
                body
            };
            ProviderError {
                retry_after: retry_after(headers),
                ..ProviderError::new(JudgeError::Http { status: code, body })
            }
        }
    }
}

/// The server's requested wait: `retry-after-ms`, else `Retry-After` in seconds or as an
/// HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    if let Some(wait) = text("retry-after-ms").and_then(retry_after::parse_retry_after_ms) {
        return Some(wait);
    }
    retry_after::parse_retry_after(text("retry-after")?, SystemTime::now())
}

/// Maps a transport failure (no HTTP status) to an error. The message has the cause
/// chain ("connection refused") but not the URL.
pub(crate) fn transport_error(
    e: reqwest::Error,
    timeout: Duration,
    key: Option<&ApiKey>,
) -> ProviderError {
    if e.is_timeout() {
        return ProviderError::new(JudgeError::Timeout(timeout));
    }
    // The host and port only: a URL may carry a key in its query (Gemini's).
    let host = e.url().and_then(|u| {
        let host = u.host_str()?;
        Some(u.port().map_or(host.to_string(), |p| format!("{host}:{p}")))
    });
    let e = e.without_url();
    let mut message = e.to_string();
    let mut source = std::error::Error::source(&e);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    // A server that is not running refuses the connection: say so in words, not in the
    // TCP stack's ("tcp connect error … os error 111").
    if message.contains("Connection refused") || message.contains("connection refused") {
        let at = host.map_or("that address".to_string(), |h| format!("at {h}"));
        message = format!("nothing answers {at} (connection refused): is the server running?");
    }
    ProviderError::new(JudgeError::Connection(scrub(&message, key)))
}

/// Reads a successful response's JSON body; an empty or non-JSON body is a protocol
/// failure worth another attempt (a proxy or an overloaded server cut it).
pub(crate) async fn json_body(
    resp: reqwest::Response,
    timeout: Duration,
    key: Option<&ApiKey>,
) -> Result<Value, ProviderError> {
    let status = resp.status().as_u16();
    let bytes = resp
        .bytes()
        .await
        .map_err(|e| transport_error(e, timeout, key))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let what = if bytes.iter().all(u8::is_ascii_whitespace) {
            "an empty body".to_string()
        } else {
            format!("invalid JSON ({e})")
        };
        ProviderError {
            error: JudgeError::Http {
                status,
                body: format!("the server sent {what} instead of a reply"),
            },
            retry_after: None,
            retryable: true,
        }
    })
}

/// Reads `field` of a JSON reply as a token count.
pub(crate) fn tokens(v: &Value, field: &str) -> Option<u64> {
    v.get(field).and_then(Value::as_u64)
}
