//! JSON schemas of each task's reply, sent as `response_format: json_schema` to servers
//! that support structured output. They mirror the serde shape of the `Verdict` payloads
//! and follow the strict-mode rules (every property required, no extra properties,
//! optional values as a `null` alternative). A hint only: replies are still parsed and
//! validated by `parse`, because many servers ignore or loosely follow schemas.

use serde_json::{json, Value};

use crate::task::TaskKind;

/// The schema name sent with the request (letters, digits, `_` only).
pub fn schema_name(kind: TaskKind) -> String {
    format!("ragnosis_{}", kind.as_str())
}

// long: a table: one JSON schema per task kind, kept side by side so they read like the prompt's
// reply formats
/// The JSON schema of the reply to a task of this kind.
pub fn reply_schema(kind: TaskKind) -> Value {
    let text = json!({"type": "string"});
    let texts = json!({"type": "array", "items": {"type": "string"}});
    // No minimum/maximum: some strict-mode servers reject those keywords; `parse` checks ranges.
    let unit = json!({"type": "number"});
    let boolean = json!({"type": "boolean"});
    let chunk_ref = json!({"type": ["integer", "null"]});
    match kind {
        TaskKind::Aspects => object(&[("aspects", texts.clone()), ("structure_note", texts)]),
        TaskKind::ChunkRelevance => object(&[(
            "chunks",
            array(object(&[
                ("index", json!({"type": "integer"})),
                ("relevance", unit),
                ("reason", text),
            ])),
        )]),
        TaskKind::Coverage => object(&[(
            "aspects",
            array(object(&[
                ("aspect", text.clone()),
                ("covered", boolean),
                ("chunk", chunk_ref),
                ("evidence", text),
            ])),
        )]),
        TaskKind::AnswerReview => object(&[
            ("relevance", unit.clone()),
            ("missing_parts", texts.clone()),
            ("off_topic", texts.clone()),
            (
                "aspects",
                array(object(&[
                    ("aspect", text.clone()),
                    ("addressed", boolean),
                    ("evidence", text),
                ])),
            ),
            ("clarity", unit.clone()),
            ("clarity_issues", texts.clone()),
            ("suggestions", texts.clone()),
            ("coherence", unit.clone()),
            ("coherence_issues", texts.clone()),
            ("conciseness", unit),
            ("conciseness_issues", texts),
        ]),
        TaskKind::Grounding => {
            let support = json!({"type": "string", "enum": ["supported", "partially_hallucinated", "fully_hallucinated"]});
            let kinds = json!({"type": "string", "enum": [
                "dropped_qualifier", "scope_shift", "negation_flip",
                "temporal_misattribution", "causal_reversal", "magnitude_shift"
            ]});
            let severity = json!({"type": "string", "enum": ["low", "medium", "high"]});
            object(&[
                (
                    "claims",
                    array(object(&[
                        ("claim", text.clone()),
                        ("support", support),
                        ("reason", text.clone()),
                        ("chunk", chunk_ref),
                        ("unconfirmed_anchors", texts),
                    ])),
                ),
                ("used_chunks", array(json!({"type": "integer"}))),
                (
                    "contradictions",
                    array(object(&[
                        ("kind", kinds),
                        ("severity", severity),
                        ("explanation", text),
                    ])),
                ),
            ])
        }
        TaskKind::Reasoning => object(&[
            (
                "hops",
                array(object(&[
                    ("step", text.clone()),
                    ("grounded", boolean.clone()),
                    ("follows", boolean.clone()),
                    ("chunk", chunk_ref),
                    ("reason", text.clone()),
                ])),
            ),
            ("contexts_sufficient", boolean.clone()),
            ("answer_abstains", boolean),
            ("reason", text),
        ]),
        TaskKind::Claims => object(&[("claims", texts)]),
        TaskKind::Scorecard => {
            let criteria: Vec<&str> = crate::task::Criterion::ALL
                .iter()
                .map(|c| c.as_str())
                .collect();
            let categories = crate::task::FAILURE_CATEGORIES;
            object(&[
                (
                    "scores",
                    array(object(&[
                        ("criterion", json!({"type": "string", "enum": criteria})),
                        ("score", unit),
                        ("rationale", text.clone()),
                    ])),
                ),
                (
                    "failures",
                    array(object(&[
                        ("category", json!({"type": "string", "enum": categories})),
                        ("applies", boolean),
                        ("explanation", text),
                    ])),
                ),
            ])
        }
        TaskKind::Insights => object(&[
            (
                "insights",
                array(object(&[("metric", text.clone()), ("text", text.clone())])),
            ),
            (
                "actions",
                array(object(&[
                    (
                        "impact",
                        json!({"type": "string", "enum": ["high", "medium", "low"]}),
                    ),
                    ("metric", text.clone()),
                    ("title", text.clone()),
                    ("whats_wrong", text.clone()),
                    ("why", text.clone()),
                    ("example_question", text.clone()),
                    ("how_to_fix", text),
                ])),
            ),
        ]),
        TaskKind::ClaimLabels => object(&[(
            "labels",
            array(array(
                json!({"type": "string", "enum": ["Entailment", "Neutral", "Contradiction"]}),
            )),
        )]),
        TaskKind::DraftQuestion => object(&[("question", text)]),
        TaskKind::DraftAnswer => object(&[("answer", text)]),
        // Reasoning first: a model that writes its reasons before the score scores
        // by them.
        TaskKind::Criterion => object(&[("reasoning", text), ("score", unit)]),
        TaskKind::Advice => object(&[
            ("answer", texts),
            (
                "items",
                json!({"type": "array", "items": {"type": "integer"}}),
            ),
        ]),
    }
}

fn object(properties: &[(&str, Value)]) -> Value {
    let props: serde_json::Map<String, Value> = properties
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    let required: Vec<&str> = properties.iter().map(|(k, _)| *k).collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_object_in_every_schema_is_strict() {
        fn check(v: &Value, path: &str) {
            if v.get("type") == Some(&json!("object")) {
                assert_eq!(
                    v["additionalProperties"],
                    json!(false),
                    "{path} must forbid extra properties"
                );
                let props = v["properties"].as_object().unwrap();
                assert_eq!(
                    v["required"].as_array().unwrap().len(),
                    props.len(),
                    "{path} must require every property"
                );
            }
            match v {
                Value::Object(m) => m.iter().for_each(|(k, c)| check(c, &format!("{path}.{k}"))),
                Value::Array(a) => a.iter().for_each(|c| check(c, path)),
                _ => {}
            }
        }
        for kind in TaskKind::ALL {
            check(&reply_schema(kind), kind.as_str());
            assert!(schema_name(kind)
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_'));
        }
    }
}
