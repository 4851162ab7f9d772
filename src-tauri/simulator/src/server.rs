//! The HTTP side: routes, credential checks, latency and faults, replies.
//!
//! Routes: `POST /v1/chat/completions`, `/chat/completions` and Azure's
//! `/openai/deployments/{d}/chat/completions` (OpenAI shape); `POST /v1/messages`
//! (Anthropic shape); `GET /v1/models`, `/models`, `/api/tags` (Ollama) and
//! `/openai/deployments` (Azure); the batch APIs (`crate::batch`: `/v1/files`,
//! `/v1/batches`, `/v1/messages/batches` and Azure's `/openai/...`); `GET /_sim/stats`,
//! `POST /_sim/reset`, `POST /_sim/faults`. Every request is checked for key leaks
//! before routing.

use std::convert::Infallible;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use serde_json::{json, Value};

use crate::answer::{self, Answer, Dialect};
use crate::faults::{self, Fault, FaultRules};
use crate::stats::Stats;
use crate::SimConfig;

/// State shared by every connection.
pub struct Shared {
    pub config: SimConfig,
    pub faults: Mutex<FaultRules>,
    pub stats: Mutex<Stats>,
    /// Uploaded files and batches.
    pub batches: Mutex<crate::batch::Batches>,
    in_flight: AtomicU64,
}

impl Shared {
    pub fn new(config: SimConfig) -> Shared {
        let faults = Mutex::new(config.faults.clone());
        Shared {
            config,
            faults,
            stats: Mutex::new(Stats::default()),
            batches: Mutex::new(crate::batch::Batches::default()),
            in_flight: AtomicU64::new(0),
        }
    }

    pub(crate) fn stats(&self) -> std::sync::MutexGuard<'_, Stats> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }
}

pub(crate) type Reply = Response<Full<Bytes>>;

pub async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Result<Reply, Infallible> {
    let (parts, body) = req.into_parts();
    let body = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => {
            return Ok(error(
                StatusCode::BAD_REQUEST,
                "cannot read the request body",
            ))
        }
    };
    let path_and_query = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let path = parts.uri.path();
    shared.stats().observe_request(
        parts.method.as_str(),
        &path_and_query,
        &parts.headers,
        &body,
        shared.config.watch_key.as_deref(),
    );
    let method = parts.method.as_str();
    if path.starts_with("/_sim/") {
        return Ok(control(&shared, method, path, &body));
    }
    if !authorised(&shared.config, &parts.headers) {
        shared.stats().unauthorised += 1;
        return Ok(error(StatusCode::UNAUTHORIZED, "invalid API key"));
    }
    let reply = match (method, path) {
        ("POST", "/v1/chat/completions" | "/chat/completions") => {
            chat(&shared, &body, Dialect::OpenAi).await
        }
        ("POST", p)
            if p.starts_with("/openai/deployments/") && p.ends_with("/chat/completions") =>
        {
            chat(&shared, &body, Dialect::OpenAi).await
        }
        ("POST", "/v1/messages") => chat(&shared, &body, Dialect::Anthropic).await,
        ("POST", "/v1/embeddings" | "/embeddings") => {
            shared.stats().embedding_requests += 1;
            match crate::embeddings::reply(&body) {
                Ok(v) => ok_json(&v),
                Err(message) => error(StatusCode::BAD_REQUEST, &message),
            }
        }
        ("GET", "/v1/models" | "/models" | "/openai/deployments") => {
            let data: Vec<Value> = shared
                .config
                .models
                .iter()
                .map(|m| json!({"id": m, "object": "model"}))
                .collect();
            ok_json(&json!({"object": "list", "data": data}))
        }
        ("GET", "/api/tags") => {
            let models: Vec<Value> = shared
                .config
                .models
                .iter()
                .map(|m| json!({"name": m}))
                .collect();
            ok_json(&json!({"models": models}))
        }
        _ => match crate::batch::route(&shared, method, path, &parts.headers, &body) {
            Some(reply) => reply,
            None => error(
                StatusCode::NOT_FOUND,
                "no such route in the judge simulator",
            ),
        },
    };
    Ok(reply)
}

fn control(shared: &Shared, method: &str, path: &str, body: &[u8]) -> Reply {
    match (method, path) {
        ("GET", "/_sim/stats") => {
            ok_json(&serde_json::to_value(&*shared.stats()).expect("stats serialise"))
        }
        ("POST", "/_sim/reset") => {
            *shared.stats() = Stats::default();
            *shared.faults.lock().unwrap_or_else(|p| p.into_inner()) = FaultRules::default();
            ok_json(&json!({"ok": true}))
        }
        ("POST", "/_sim/faults") => match serde_json::from_slice::<FaultRules>(body) {
            Ok(rules) => {
                *shared.faults.lock().unwrap_or_else(|p| p.into_inner()) = rules;
                ok_json(&json!({"ok": true}))
            }
            Err(e) => error(
                StatusCode::BAD_REQUEST,
                &format!("invalid fault rules: {e}"),
            ),
        },
        _ => error(StatusCode::NOT_FOUND, "no such simulator control route"),
    }
}

/// With `require_key` set, one credential header must carry it in its usual form.
fn authorised(config: &SimConfig, headers: &hyper::HeaderMap) -> bool {
    let Some(key) = &config.require_key else {
        return true;
    };
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    };
    header("authorization") == format!("Bearer {key}")
        || header("api-key") == key
        || header("x-api-key") == key
}

async fn chat(shared: &Shared, body: &[u8], dialect: Dialect) -> Reply {
    let guard = InFlight::enter(&shared.in_flight);
    chat_inner(shared, body, dialect, Some(guard.now)).await
}

/// Counts a chat request as in flight until dropped (also when a hung request's task is
/// dropped at shutdown).
struct InFlight<'a> {
    counter: &'a AtomicU64,
    now: u64,
}

impl<'a> InFlight<'a> {
    fn enter(counter: &'a AtomicU64) -> InFlight<'a> {
        InFlight {
            counter,
            now: counter.fetch_add(1, Ordering::SeqCst) + 1,
        }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.counter.fetch_sub(1, Ordering::SeqCst);
    }
}

// long: one request: parse, match a fault rule, answer in the caller's dialect; the order of those
// checks is the simulator's contract
/// One chat request's reply. `in_flight` is Some for a live request (counted in `calls`,
/// delayed by the latency rules) and None for a request inside a batch, which the batch
/// counts itself and which no one waits on.
pub(crate) async fn chat_inner(
    shared: &Shared,
    body: &[u8],
    dialect: Dialect,
    in_flight: Option<u64>,
) -> Reply {
    let request: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("the request body is not JSON: {e}"),
            )
        }
    };
    let messages = answer::messages(&request, dialect);
    let format = request
        .pointer("/response_format/type")
        .and_then(Value::as_str)
        .unwrap_or("none")
        .to_string();
    {
        let mut stats = shared.stats();
        if let Some(in_flight) = in_flight {
            stats.calls += 1;
            stats.max_in_flight = stats.max_in_flight.max(in_flight);
        }
        stats.record_sent(request.get("temperature").and_then(Value::as_f64), &format);
    }
    let (fault, latency, score_jitter) = {
        let mut rules = shared.faults.lock().unwrap_or_else(|p| p.into_inner());
        let texts: Vec<&str> = messages.iter().map(|m| m.content.as_str()).collect();
        (rules.choose(&texts), rules.latency(), rules.score_jitter)
    };
    if !latency.is_zero() && in_flight.is_some() {
        tokio::time::sleep(latency).await;
    }
    if shared.config.reject_json_schema && format == "json_schema" {
        return error(
            StatusCode::BAD_REQUEST,
            "response_format of type json_schema is not supported by this server",
        );
    }
    if fault.is_some() {
        shared.stats().faults_injected += 1;
    }
    match &fault {
        Some(Fault::Status {
            status,
            retry_after,
            body,
        }) => {
            let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut reply = error(status, body.as_deref().unwrap_or("simulated failure"));
            if let Some(value) = retry_after.as_deref().and_then(|v| v.parse().ok()) {
                reply.headers_mut().insert("retry-after", value);
            }
            return reply;
        }
        Some(Fault::Hang) => {
            // Until the simulator shuts down, which drops this task.
            tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
            return error(StatusCode::GATEWAY_TIMEOUT, "hung");
        }
        Some(Fault::EmptyBody) => return Response::new(Full::new(Bytes::new())),
        _ => {}
    }
    let (task, repair, json) = match answer::answer(&messages, shared.config.oracle) {
        Answer::Verdict { task, repair, json } => (
            Some(task),
            repair,
            faults::jitter_scores(json, score_jitter),
        ),
        Answer::Foreign(text) => (None, false, text),
        Answer::JudgeFailed(why) => return error(StatusCode::INTERNAL_SERVER_ERROR, &why),
    };
    let content = match fault {
        Some(Fault::MalformedJson) => answer::malformed(),
        Some(Fault::TruncatedJson) => answer::truncated(&json),
        Some(Fault::ProseAroundJson) => answer::with_prose(&json),
        _ => json,
    };
    let (input, output) = (answer::input_tokens(&messages), answer::tokens(&content));
    if let Some(task) = task {
        shared.stats().record_answer(task, repair, input, output);
    }
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("ragnosis-judge-sim");
    ok_json(&answer::reply_body(dialect, model, &content, input, output))
}

pub(crate) fn ok_json(v: &Value) -> Reply {
    let mut reply = Response::new(Full::new(Bytes::from(v.to_string())));
    reply.headers_mut().insert(
        "content-type",
        "application/json".parse().expect("static header"),
    );
    reply
}

pub(crate) fn error(status: StatusCode, message: &str) -> Reply {
    let mut reply = ok_json(&json!({"error": {"message": message, "type": "simulator"}}));
    *reply.status_mut() = status;
    reply
}
