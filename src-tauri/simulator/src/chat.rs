//! One chat request answered: parsed, matched against the fault rules, delayed, answered
//! by the judge oracle in the caller's dialect. Live requests and the requests inside a
//! batch are answered by the same code, so batch answers are the live answers.
//!
//! Owns: the chat answer and its in-flight count. Must not: route (`server`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::Value;

use crate::answer::{self, Answer, Dialect};
use crate::faults::{self, Fault};
use crate::shared::{error, ok_json, Reply, Shared};

pub(crate) async fn chat(shared: &Shared, body: &[u8], dialect: Dialect) -> Reply {
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
    if let Some(reply) = fault_in_place_of_answer(fault.as_ref()).await {
        return reply;
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
        Some(Fault::InventedItem) => answer::with_invented_item(&json),
        _ => json,
    };
    let (input, output) = (answer::input_tokens(&messages), answer::tokens(&content));
    if let Some(task) = task {
        shared.stats().record_answer(&task, repair, input, output);
    }
    let model = request
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("ragnosis-judge-sim");
    ok_json(&answer::reply_body(dialect, model, &content, input, output))
}

/// The reply a fault gives in place of any answer (a status, a hang, an empty body);
/// None for no fault or one that spoils the answer's content instead.
async fn fault_in_place_of_answer(fault: Option<&Fault>) -> Option<Reply> {
    match fault {
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
            Some(reply)
        }
        Some(Fault::Hang) => {
            // Until the simulator shuts down, which drops this task.
            tokio::time::sleep(Duration::from_secs(24 * 3600)).await;
            Some(error(StatusCode::GATEWAY_TIMEOUT, "hung"))
        }
        Some(Fault::EmptyBody) => Some(Response::new(Full::new(Bytes::new()))),
        _ => None,
    }
}
