//! The HTTP side: routes and credential checks (a chat is answered by `chat`, a batch
//! route by `batch`).
//!
//! Routes: `POST /v1/chat/completions`, `/chat/completions` and Azure's
//! `/openai/deployments/{d}/chat/completions` (OpenAI shape); `POST /v1/messages`
//! (Anthropic shape); `GET /v1/models`, `/models`, `/api/tags` (Ollama) and
//! `/openai/deployments` (Azure); the batch APIs (`crate::batch`: `/v1/files`,
//! `/v1/batches`, `/v1/messages/batches` and Azure's `/openai/...`); `GET /_sim/stats`,
//! `POST /_sim/reset`, `POST /_sim/faults`. Every request is checked for key leaks
//! before routing.

use std::convert::Infallible;
use std::sync::Arc;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request, StatusCode};
use serde_json::{json, Value};

use crate::answer::Dialect;
use crate::chat::chat;
use crate::faults::FaultRules;
use crate::shared::{error, ok_json, Reply, Shared};
use crate::stats::Stats;
use crate::SimConfig;

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
