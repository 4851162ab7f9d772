//! Chat logs: a record whose question is a list of `{role, content}` messages (OpenAI
//! Evals samples, Azure conversations, promptflow chat data, any chat-completions log).
//! The question is the last user turn, the answer the assistant's reply after it, the
//! passages what tools or retrieval returned after it (or a message's `context`); the
//! system prompt is neither, and the turns before the question are kept as the item's
//! history for a later multi-turn evaluation.
//!
//! Owns: finding the message list (a top-level field, or one level down as in
//! `{"conversation": {"messages": [...]}}`) and unfolding it. Must not: override a field
//! the record already names as text (a listed `question` wins over the messages).

use serde_json::{json, Map, Value};

use super::super::aliases::{field_of, Canon};
use super::Notes;

/// Metadata keys the unfolded conversation leaves.
pub(crate) const HISTORY_KEY: &str = "history";
pub(crate) const SYSTEM_KEY: &str = "system_prompt";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
    System,
    Tool,
}

fn role_of(message: &Map<String, Value>) -> Option<Role> {
    let role = message
        .get("role")
        .or_else(|| message.get("type"))
        .or_else(|| message.get("speaker"))
        .or_else(|| message.get("author"))
        .and_then(Value::as_str)?;
    Some(match role.to_ascii_lowercase().as_str() {
        "user" | "human" | "customer" => Role::User,
        "assistant" | "ai" | "bot" | "model" | "agent" => Role::Assistant,
        "system" | "developer" => Role::System,
        "tool" | "function" | "retrieval" | "retriever" | "context" | "document" | "ipython" => {
            Role::Tool
        }
        _ => return None,
    })
}

/// Whether `value` is a list of chat messages: objects with a known role and content.
fn is_message_list(value: &Value) -> bool {
    let Value::Array(items) = value else {
        return false;
    };
    !items.is_empty()
        && items.iter().all(|m| {
            m.as_object()
                .is_some_and(|m| role_of(m).is_some() && body(m).is_some())
        })
        && items
            .iter()
            .any(|m| m.as_object().and_then(role_of) == Some(Role::User))
}

/// The text of a message's content: a string, or the text parts of a list of parts
/// (`{"type": "text", "text": …}`, `{"type": "input_text", …}`), joined.
pub(crate) fn content_text(content: &Value) -> Option<String> {
    let text = match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o
                    .get("text")
                    .or_else(|| o.get("content"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => o
            .get("text")
            .or_else(|| o.get("content"))
            .and_then(Value::as_str)?
            .to_string(),
        _ => return None,
    };
    (!text.trim().is_empty()).then_some(text)
}

/// A message's content: `content`, or `text` (InspectorRAGet's `{speaker, text}`).
fn body(message: &Map<String, Value>) -> Option<&Value> {
    message.get("content").or_else(|| message.get("text"))
}

/// Passages a message carries beside its content (Azure's `context` on the assistant's
/// message: text, a list, or `{"citations": [{"content": …}]}`).
fn carried_passages(message: &Map<String, Value>, out: &mut Vec<Value>) {
    let Some(context) = message.get("context") else {
        return;
    };
    match context {
        Value::String(s) if !s.trim().is_empty() => out.push(Value::String(s.clone())),
        Value::Array(items) => out.extend(items.iter().cloned()),
        Value::Object(o) => match o.get("citations") {
            Some(Value::Array(citations)) => out.extend(citations.iter().cloned()),
            _ => out.push(context.clone()),
        },
        _ => {}
    }
}

/// The path of the record's message list: a field, or a field of a field.
fn find(record: &Map<String, Value>) -> Option<(String, Option<String>)> {
    for (key, value) in record {
        if is_message_list(value) {
            return Some((key.clone(), None));
        }
    }
    for (key, value) in record {
        if let Value::Object(inner) = value {
            for (sub, v) in inner {
                if is_message_list(v) {
                    return Some((key.clone(), Some(sub.clone())));
                }
            }
        }
    }
    None
}

/// Whether the record already gives `canon` as text, under any name for it.
fn gives(record: &Map<String, Value>, canon: Canon) -> bool {
    record.iter().any(|(k, v)| {
        field_of(k) == Some(canon) && matches!(v, Value::String(s) if !s.trim().is_empty())
    })
}

/// Unfolds the record's conversation, when it has one; whether it did.
pub(crate) fn unfold(record: &mut Map<String, Value>, notes: &mut Notes) -> bool {
    let Some((key, sub)) = find(record) else {
        return false;
    };
    if gives(record, Canon::Question) {
        return false;
    }
    let messages = match &sub {
        None => record.remove(&key),
        Some(sub) => record
            .get_mut(&key)
            .and_then(Value::as_object_mut)
            .and_then(|o| o.remove(sub)),
    };
    let Some(Value::Array(messages)) = messages else {
        return false;
    };
    let at = match &sub {
        None => key.clone(),
        Some(sub) => format!("{key}.{sub}"),
    };
    let messages: Vec<Map<String, Value>> = messages
        .into_iter()
        .filter_map(|m| match m {
            Value::Object(o) => Some(o),
            _ => None,
        })
        .collect();
    let roles: Vec<Role> = messages
        .iter()
        .map(|m| role_of(m).expect("checked by is_message_list"))
        .collect();
    let last_user = roles
        .iter()
        .rposition(|r| *r == Role::User)
        .expect("checked by is_message_list");
    let question = body(&messages[last_user]).and_then(content_text);
    let Some(question) = question else {
        return false;
    };
    record.insert("question".into(), Value::String(question));
    notes.source("question", &format!("{at}[last user message].content"));

    let (answer, passages) = reply_after(&messages, &roles, last_user);
    if let Some(answer) = answer {
        if !gives(record, Canon::Answer) {
            record.insert("answer".into(), Value::String(answer));
            notes.source("answer", &format!("{at}[assistant reply].content"));
        }
    }
    if !passages.is_empty() && !record.keys().any(|k| field_of(k) == Some(Canon::Contexts)) {
        // `contexts`, not RAGAS's `retrieved_contexts`: the file is no RAGAS file.
        record.insert("contexts".into(), Value::Array(passages));
        notes.source("contexts", &format!("{at}[tool messages and context]"));
    }
    keep_the_rest(record, &messages, &roles, last_user);
    true
}

/// The assistant's first reply after the question, and the passages tools returned or
/// the replies carried after it.
fn reply_after(
    messages: &[Map<String, Value>],
    roles: &[Role],
    last_user: usize,
) -> (Option<String>, Vec<Value>) {
    let mut passages = Vec::new();
    let mut answer = None;
    for (m, role) in messages.iter().zip(roles).skip(last_user + 1) {
        match role {
            Role::Tool => {
                if let Some(text) = body(m).and_then(content_text) {
                    passages.push(Value::String(text));
                }
            }
            Role::Assistant => {
                carried_passages(m, &mut passages);
                if answer.is_none() {
                    answer = body(m).and_then(content_text);
                }
            }
            _ => {}
        }
    }
    (answer, passages)
}

/// The system prompt and the turns before the question, into the item's metadata.
fn keep_the_rest(
    record: &mut Map<String, Value>,
    messages: &[Map<String, Value>],
    roles: &[Role],
    last_user: usize,
) {
    let system: Vec<String> = messages
        .iter()
        .zip(roles)
        .filter(|(_, r)| **r == Role::System)
        .filter_map(|(m, _)| body(m).and_then(content_text))
        .collect();
    let history: Vec<Value> = messages[..last_user]
        .iter()
        .zip(roles)
        .filter(|(_, r)| **r != Role::System)
        .map(|(m, _)| Value::Object(m.clone()))
        .collect();
    let metadata = record.entry("metadata").or_insert_with(|| json!({}));
    if let Value::Object(metadata) = metadata {
        if !system.is_empty() {
            metadata.insert(SYSTEM_KEY.into(), Value::String(system.join("\n\n")));
        }
        if !history.is_empty() {
            metadata.insert(HISTORY_KEY.into(), Value::Array(history));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unfolded(v: Value) -> Map<String, Value> {
        let Value::Object(mut record) = v else {
            panic!("an object")
        };
        assert!(unfold(&mut record, &mut Notes::default()), "{record:?}");
        record
    }

    #[test]
    fn the_last_user_turn_is_the_question_and_the_reply_after_it_the_answer() {
        let r = unfolded(json!({"input": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello!"},
            {"role": "user", "content": [{"type": "text", "text": "When does it open?"}]},
            {"role": "tool", "content": "Opening hours: 9 to 5."},
            {"role": "assistant", "content": "At 9."}
        ], "ideal": "9 am"}));
        assert_eq!(r["question"], "When does it open?");
        assert_eq!(r["answer"], "At 9.");
        assert_eq!(r["contexts"], json!(["Opening hours: 9 to 5."]));
        assert_eq!(r["metadata"][SYSTEM_KEY], "Be brief.");
        assert_eq!(r["metadata"][HISTORY_KEY].as_array().unwrap().len(), 2);
        assert!(!r.contains_key("input"), "the list itself is unfolded");
    }

    #[test]
    fn a_conversation_one_level_down_gives_its_passages_from_the_reply_s_context() {
        let r = unfolded(json!({"conversation": {"messages": [
            {"role": "user", "content": "What is the fee?"},
            {"role": "assistant", "content": "£5.", "context": {"citations": [{"content": "The fee is £5."}]}}
        ]}}));
        assert_eq!(r["question"], "What is the fee?");
        assert_eq!(r["answer"], "£5.");
        assert_eq!(r["contexts"], json!([{"content": "The fee is £5."}]));
    }

    #[test]
    fn a_listed_question_wins_and_a_list_without_a_user_turn_is_no_chat() {
        let mut keeps = json!({"question": "q", "messages": [{"role": "user", "content": "x"}]})
            .as_object()
            .unwrap()
            .clone();
        assert!(!unfold(&mut keeps, &mut Notes::default()));
        let mut no_user = json!({"messages": [{"role": "system", "content": "x"}]})
            .as_object()
            .unwrap()
            .clone();
        assert!(!unfold(&mut no_user, &mut Notes::default()));
    }
}
