//! The simulated model: reads the messages of a chat request (OpenAI or Anthropic
//! shape), rebuilds the Ragnosis task with `prompt::parse_task`, answers it with the
//! offline judge (a user's own criterion, which the offline judge declines, by the
//! rule in `criterion`), and writes the reply in the shape the prompts ask for. Repair requests
//! get the same (correct) answer. Also the faulty variants of a reply. No HTTP here.

use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::parse::payload_json;
use ragnosis_core::judge::prompt::{self, Message, Role};
use ragnosis_core::judge::task::{Task, Verdict};
use serde_json::{json, Value};

/// The API dialect a request came in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    OpenAi,
    Anthropic,
}

/// The messages of a chat request body, system prompt first.
pub fn messages(body: &Value, dialect: Dialect) -> Vec<Message> {
    let mut out = Vec::new();
    if dialect == Dialect::Anthropic {
        if let Some(system) = body.get("system").and_then(text_of) {
            out.push(Message::system(system));
        }
    }
    for m in body
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = match m.get("role").and_then(Value::as_str) {
            Some("system") | Some("developer") => Role::System,
            Some("assistant") => Role::Assistant,
            _ => Role::User,
        };
        out.push(Message {
            role,
            content: m.get("content").and_then(text_of).unwrap_or_default(),
        });
    }
    out
}

/// A string, or the joined text of content parts.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        ),
        _ => None,
    }
}

/// The simulated model's answer to a conversation.
pub enum Answer {
    /// The JSON verdict for a recognised task.
    Verdict {
        /// The task's kind; a bundle's kinds joined by "+".
        task: String,
        repair: bool,
        json: String,
    },
    /// Not a Ragnosis prompt: a polite refusal, as a model would give.
    Foreign(String),
    /// The offline judge failed on this task.
    JudgeFailed(String),
}

/// With `oracle`, the judge check's labelled cases get the human verdict
/// (`oracle::verdict`).
pub fn answer(messages: &[Message], oracle: bool) -> Answer {
    if let Some(parts) = prompt::bundle::split_bundle(messages) {
        return bundle(&parts, oracle);
    }
    let Some(task) = prompt::parse_task(messages) else {
        return Answer::Foreign("I can only answer Ragnosis judge prompts.".into());
    };
    let judged = std::panic::catch_unwind(|| {
        drafted(&task)
            .or_else(|| crate::criterion::verdict(&task))
            .or_else(|| oracle.then(|| crate::oracle::verdict(&task)).flatten())
            .unwrap_or_else(|| OfflineJudge::default().verdict(&task))
    });
    match judged {
        Ok(verdict) => Answer::Verdict {
            task: task.kind().as_str().to_string(),
            repair: prompt::is_repair(messages),
            json: payload_json(&verdict).to_string(),
        },
        Err(panic) => {
            let why = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Answer::JudgeFailed(format!(
                "the offline judge failed on a {} task: {why}",
                task.kind().as_str()
            ))
        }
    }
}

/// Several tasks asked in one request: each answered as if asked alone, the replies
/// gathered into one object with a field per task.
fn bundle(parts: &[Vec<Message>], oracle: bool) -> Answer {
    let mut reply = serde_json::Map::new();
    let mut kinds = Vec::new();
    for part in parts {
        let Some(kind) = prompt::parse_task(part).map(|t| t.kind().as_str()) else {
            return Answer::Foreign("a bundled task I cannot read".into());
        };
        match answer(part, oracle) {
            Answer::Verdict { json, .. } => {
                let value = serde_json::from_str(&json).unwrap_or(serde_json::Value::Null);
                reply.insert(kind.to_string(), value);
                kinds.push(kind);
            }
            other => return other,
        }
    }
    Answer::Verdict {
        task: kinds.join("+"),
        repair: false,
        json: serde_json::Value::Object(reply).to_string(),
    }
}

/// The simulator's stand-in for a model that writes test cases (the offline judge
/// refuses to): a question about a chunk's first full sentence, and as the answer the
/// chunk's sentence that shares the most words with the question. Deterministic, so
/// tests know what each generated item says.
fn drafted(task: &Task) -> Option<Verdict> {
    let sentences = |text: &str| -> Vec<String> {
        text.split_inclusive(['.', '!', '?'])
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| s.split(' ').count() >= 6)
            .collect()
    };
    match task {
        Task::DraftQuestion { chunk } => {
            let question = sentences(chunk).first().map_or(String::new(), |s| {
                let topic: Vec<&str> = s.split(' ').take(8).collect();
                let topic = topic.join(" ");
                let topic = topic.trim_end_matches(|c: char| !c.is_alphanumeric());
                format!("What does the documentation say about \"{topic}\"?")
            });
            Some(Verdict::DraftQuestion { question })
        }
        // The advisor, as a careful model would answer: the first facts, as given, and
        // the items they name.
        Task::Advice(asked) => {
            let answer: Vec<String> = asked.facts.iter().take(3).cloned().collect();
            let items = asked
                .items
                .iter()
                .copied()
                .filter(|i| answer.iter().any(|p| p.contains(&format!("[item {i}]"))))
                .collect();
            Some(Verdict::Advice(ragnosis_core::judge::task::AdviceVerdict {
                answer,
                items,
            }))
        }
        Task::DraftAnswer { question, chunk } => {
            let words = |s: &str| -> std::collections::HashSet<String> {
                s.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| w.len() > 2)
                    .map(str::to_lowercase)
                    .collect()
            };
            let asked = words(question);
            let answer = sentences(chunk)
                .into_iter()
                .max_by_key(|s| words(s).intersection(&asked).count())
                .unwrap_or_default();
            Some(Verdict::DraftAnswer { answer })
        }
        _ => None,
    }
}

/// An advice reply that also cites item 999999, which no run's facts name; any other
/// reply unchanged.
pub fn with_invented_item(json: &str) -> String {
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(json) else {
        return json.to_string();
    };
    if let Some(items) = value.get_mut("items").and_then(|i| i.as_array_mut()) {
        items.push(serde_json::json!(999_999));
    }
    value.to_string()
}

/// Content that is not JSON in any reading.
pub fn malformed() -> String {
    "I think the chunks are {mostly relevant] but I cannot be sure, sorry.".into()
}

/// The first half of a JSON reply.
pub fn truncated(json: &str) -> String {
    let cut = json
        .char_indices()
        .nth(json.chars().count() / 2)
        .map_or(json.len(), |(i, _)| i);
    json[..cut].to_string()
}

/// A JSON reply wrapped in prose and a code fence.
pub fn with_prose(json: &str) -> String {
    format!("Here is my assessment of the material.\n```json\n{json}\n```\nLet me know if you need anything else.")
}

/// About four characters per token, as the judge layer estimates.
pub fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

pub fn input_tokens(messages: &[Message]) -> u64 {
    messages.iter().map(|m| tokens(&m.content)).sum()
}

/// A chat reply in the request's dialect.
pub fn reply_body(
    dialect: Dialect,
    model: &str,
    content: &str,
    input_tokens: u64,
    output_tokens: u64,
) -> Value {
    match dialect {
        Dialect::OpenAi => json!({
            "id": "chatcmpl-sim",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": input_tokens, "completion_tokens": output_tokens,
                      "total_tokens": input_tokens + output_tokens},
        }),
        Dialect::Anthropic => json!({
            "id": "msg_sim",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [{"type": "text", "text": content}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ragnosis_core::judge::task::Task;

    #[test]
    fn anthropic_system_field_becomes_the_first_message() {
        let body = json!({"system": "rules", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]});
        let m = messages(&body, Dialect::Anthropic);
        assert_eq!(m, vec![Message::system("rules"), Message::user("hi")]);
    }

    #[test]
    fn foreign_prompts_get_a_refusal_not_a_verdict() {
        assert!(matches!(
            answer(&[Message::user("tell me a joke")], false),
            Answer::Foreign(_)
        ));
    }

    #[test]
    fn faulty_replies_are_what_they_claim() {
        let json = payload_json(&ragnosis_core::judge::Verdict::Claims {
            claims: vec!["a".into()],
        })
        .to_string();
        assert!(serde_json::from_str::<Value>(&truncated(&json)).is_err());
        assert!(serde_json::from_str::<Value>(&malformed()).is_err());
        let task = Task::Claims {
            question: "q".into(),
            text: "t".into(),
        };
        let parsed = ragnosis_core::judge::parse::parse_verdict(&task, &with_prose(&json));
        assert!(
            parsed.is_ok(),
            "prose around the JSON must still parse: {parsed:?}"
        );
    }
}
