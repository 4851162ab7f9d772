//! Which text in a span's input is the question a person asked, and which text in its
//! output is the answer they read, whatever the framework wrapped them in:
//! - strings holding JSON (once or twice) are decoded;
//! - LangChain / LangGraph state: `{"input", "context", "answer"}` → `answer`;
//!   `{"messages": [human, ai(tool call), tool, ai]}` → the last human / user message is
//!   the question, the last AI / assistant message with text the answer;
//! - LlamaIndex through OpenInference or Langfuse: `{"args": ["What is …?"]}`;
//! - OpenAI chat completions (`choices[].message.content`), Gemini (`contents`,
//!   `candidates[].content.parts[].text`), Vercel AI SDK (`{"prompt"}`, content parts);
//! - a tool call is not an answer (no text: no answer, rather than the call's JSON).
//!
//! Each result says which rule found it, for the report's choices. Owns: those rules.
//! Must not: decide which span to read (the trace record does).

use serde_json::Value;

/// Keys holding the question, most specific first.
const QUESTION_KEYS: [&str; 10] = [
    "question",
    "query",
    "query_str",
    "user_input",
    "input",
    "prompt",
    "str_or_query_bundle",
    "contents",
    "text",
    "content",
];

/// Keys holding the answer, most specific first.
const ANSWER_KEYS: [&str; 9] = [
    "answer",
    "output",
    "response",
    "result",
    "completion",
    "text",
    "content",
    "generated_text",
    "message",
];

/// The question in a span's input, with the rule that found it.
pub(super) fn question_in(value: &Value) -> Option<(String, &'static str)> {
    question_at(value, 0)
}

/// The answer in a span's output, with the rule that found it.
pub(super) fn answer_in(value: &Value) -> Option<(String, &'static str)> {
    answer_at(value, 0)
}

fn question_at(value: &Value, depth: usize) -> Option<(String, &'static str)> {
    if depth > 6 {
        return None;
    }
    match value {
        Value::String(s) => match decoded(s) {
            Some(inner) => question_at(&inner, depth + 1).map(|(t, rule)| {
                (
                    t,
                    if depth == 0 {
                        "a string holding JSON, decoded"
                    } else {
                        rule
                    },
                )
            }),
            None => nonblank(s).map(|t| (t, "the text itself")),
        },
        Value::Object(map) => {
            if let Some(messages) = map.get("messages").and_then(Value::as_array) {
                if let Some(found) = last_message(messages, &["human", "user"]) {
                    return Some((found, "the last human / user message"));
                }
            }
            if let Some(Value::Array(args)) = map.get("args") {
                if let [Value::String(only)] = args.as_slice() {
                    return nonblank(only)
                        .map(|t| (t, "the one string in `args` (a wrapped call)"));
                }
            }
            QUESTION_KEYS
                .iter()
                .find_map(|k| map.get(*k).and_then(|v| question_at(v, depth + 1)))
        }
        Value::Array(items) => {
            if let Some(found) = last_message(items, &["human", "user"]) {
                return Some((found, "the last human / user message"));
            }
            let texts: Vec<String> = items.iter().filter_map(part_text).collect();
            (!texts.is_empty()).then(|| (texts.join("\n"), "the text parts"))
        }
        _ => None,
    }
}

fn answer_at(value: &Value, depth: usize) -> Option<(String, &'static str)> {
    if depth > 6 {
        return None;
    }
    match value {
        Value::String(s) => match decoded(s) {
            Some(inner) => answer_at(&inner, depth + 1),
            None if is_serialization_failure(s) => None,
            None => nonblank(s).map(|t| (t, "the text itself")),
        },
        Value::Object(map) => {
            if is_tool_call(map) {
                return None;
            }
            if let Some(found) = map.get("answer").and_then(|a| answer_at(a, depth + 1)) {
                return Some((found.0, "`answer` of the output state"));
            }
            if let Some(messages) = map.get("messages").and_then(Value::as_array) {
                if let Some(found) = last_message(messages, &["ai", "assistant"]) {
                    return Some((found, "the last AI / assistant message with text"));
                }
            }
            for key in ["choices", "candidates", "generations"] {
                if let Some(Value::Array(list)) = map.get(key) {
                    if let Some(found) = list.iter().rev().find_map(|c| answer_at(c, depth + 1)) {
                        return Some((found.0, "the model response's last choice"));
                    }
                }
            }
            if let Some(Value::Array(parts)) = map.get("parts") {
                let texts: Vec<String> = parts.iter().filter_map(part_text).collect();
                if !texts.is_empty() {
                    return Some((texts.join(""), "the text parts"));
                }
            }
            ANSWER_KEYS
                .iter()
                .find_map(|k| map.get(*k).and_then(|v| answer_at(v, depth + 1)))
        }
        Value::Array(items) => {
            if let Some(found) = last_message(items, &["ai", "assistant"]) {
                return Some((found, "the last AI / assistant message with text"));
            }
            let texts: Vec<String> = items.iter().filter_map(part_text).collect();
            if !texts.is_empty() {
                return Some((texts.join(""), "the text parts"));
            }
            items.iter().rev().find_map(|i| answer_at(i, depth + 1))
        }
        _ => None,
    }
}

/// A string that holds a JSON object or array, decoded; a JSON string holding a JSON
/// string is decoded again.
fn decoded(s: &str) -> Option<Value> {
    let t = s.trim();
    let looks = t.starts_with('{') || t.starts_with('[') || (t.starts_with('"') && t.len() > 1);
    if !looks {
        return None;
    }
    serde_json::from_str::<Value>(t).ok()
}

fn nonblank(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.to_string())
}

/// What a tracer wrote when it could not serialise the output (promptflow:
/// `<async_generator object … at 0x…>`, "Object of type … is not JSON serializable").
fn is_serialization_failure(s: &str) -> bool {
    let t = s.trim().trim_matches('"');
    (t.starts_with('<') && t.contains(" object ") && t.contains(" at 0x"))
        || (t.starts_with("Object of type ") && t.ends_with("is not JSON serializable"))
}

/// A tool call (OpenAI, Vercel AI SDK, Langfuse): not text a person reads.
fn is_tool_call(map: &serde_json::Map<String, Value>) -> bool {
    map.contains_key("toolCallId")
        || map.contains_key("toolName")
        || (map.get("type").and_then(Value::as_str) == Some("tool_call"))
        || (map.contains_key("function") && map.contains_key("id") && !map.contains_key("content"))
}

/// The text of the last message whose role (or LangChain `type`) is one of `roles` and
/// that has text.
fn last_message(messages: &[Value], roles: &[&str]) -> Option<String> {
    messages.iter().rev().find_map(|m| {
        let role = m
            .get("role")
            .or_else(|| m.get("type"))
            .and_then(Value::as_str)?;
        if !roles.contains(&role.to_ascii_lowercase().as_str()) {
            return None;
        }
        match m.get("content").or_else(|| m.get("parts"))? {
            Value::String(s) => nonblank(s),
            Value::Array(parts) => {
                let texts: Vec<String> = parts.iter().filter_map(part_text).collect();
                (!texts.is_empty()).then(|| texts.join(""))
            }
            _ => None,
        }
    })
}

/// A content part's text: `{"type": "text", "text"}`, `{"text"}`, `{"content"}` of a text
/// part, or a plain string.
fn part_text(part: &Value) -> Option<String> {
    match part {
        Value::String(s) => nonblank(s),
        Value::Object(p) => {
            let kind = p.get("type").and_then(Value::as_str);
            if kind.is_some_and(|k| k != "text") || p.contains_key("thought") {
                return None;
            }
            p.get("text")
                .or_else(|| p.get("content"))
                .and_then(Value::as_str)
                .and_then(nonblank)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn langchain_state_gives_its_answer_and_messages_their_last_turns() {
        let state = json!({"input": "q?", "context": [{"page_content": "c"}], "answer": "a."});
        assert_eq!(answer_in(&state).unwrap().0, "a.");
        assert_eq!(question_in(&state).unwrap().0, "q?");
        let graph = json!({"messages": [
            {"type": "human", "content": "Search for x"},
            {"type": "ai", "content": "", "tool_calls": [{"name": "search"}]},
            {"type": "tool", "content": "results"},
            {"type": "ai", "content": "X is y."}]});
        assert_eq!(question_in(&graph).unwrap().0, "Search for x");
        let (answer, rule) = answer_in(&graph).unwrap();
        assert_eq!(answer, "X is y.");
        assert!(rule.contains("last AI"), "{rule}");
    }

    #[test]
    fn wrapped_calls_json_strings_and_tool_calls() {
        assert_eq!(
            question_in(&json!("{\"args\": [\"What is Langfuse?\"]}"))
                .unwrap()
                .0,
            "What is Langfuse?"
        );
        assert_eq!(
            question_in(&json!("\"What is Langfuse?\"")).unwrap().0,
            "What is Langfuse?"
        );
        let calls =
            json!("[{\"toolCallId\": \"c1\", \"toolName\": \"getWeather\", \"input\": \"{}\"}]");
        assert_eq!(answer_in(&calls), None, "a tool call is not an answer");
        let completion =
            json!({"choices": [{"message": {"role": "assistant", "content": "Howdy!"}}]});
        assert_eq!(answer_in(&completion).unwrap().0, "Howdy!");
        let gemini = json!({"candidates": [{"content": {"parts": [{"text": "Lang"}, {"text": "fuse"}], "role": "model"}}]});
        assert_eq!(answer_in(&gemini).unwrap().0, "Langfuse");
    }
}
