//! Turning one source record (a JSON object, or a CSV row made into one) into an `Item`.
//!
//! Owns: choosing between aliases (the more specific wins, with a warning naming both),
//! keeping every unrecognised field in `metadata`, the `metadata.id` fallback, the
//! missing-question rule and the per-item limits. Must not: read files or count
//! anything across records (that is `report`'s job).
//!
//! Precedence (first wins): see `aliases::ALIASES`; e.g. `retrieved_contexts` >
//! `retrieved_context` > `contexts` > `context`; `question` > `query` > `user_input`;
//! `answer` > `generated_answer` > `response`. The losing value is not dropped: it is
//! kept in `metadata` under its own name.

use serde_json::{Map, Value};

use super::aliases::{
    classify, classify_loose, field_of, names_more_generally, Alias, Canon, SourceFields,
    CANON_COUNT,
};
use super::values::{self, is_absent};
use super::ImportLimits;
use crate::item::{Item, RagCheckerLabels};

/// Name of the metadata entry holding per-chunk keys other than id/text.
pub const CONTEXT_EXTRAS_KEY: &str = "contexts_extra";

/// An accepted record, before the report counts it.
#[derive(Debug)]
pub(crate) struct Mapped {
    pub item: Item,
    pub warnings: Vec<String>,
    pub oversize_contexts: u64,
    /// For an item without an answer: where its record holds text that reads like one
    /// (`model1.response`), for the report to name with the `--map` that takes it.
    pub answer_elsewhere: Vec<String>,
}

struct Slot {
    key: String,
    index: usize,
    value: Value,
}

/// Why a record without any question field is rejected, naming the fields it does have
/// so a file that is not a list of items at all (`{"foo": 1}`) says so.
fn missing_question(unknown: &Map<String, Value>) -> String {
    if unknown.is_empty() {
        return "missing question".to_string();
    }
    let fields: Vec<&str> = unknown.keys().map(String::as_str).take(8).collect();
    let hint = match question_like(unknown) {
        Some(key) => format!(
            "; if `{key}` holds the question, import with `--map question={key}`"
        ),
        None => "; name the field that holds the question with `--map question=FIELD` (a path such as `inputs.query` reaches into objects)".to_string(),
    };
    format!(
        "missing question: no field named {} (its fields: {}){hint}",
        super::aliases::question_aliases().join(", "),
        fields.join(", ")
    )
}

/// The field most likely to hold a question, by its text: one that ends in "?", else the
/// first text field whose name speaks of a question; nested objects one level down.
fn question_like(record: &Map<String, Value>) -> Option<String> {
    let mut texts: Vec<(String, &str)> = Vec::new();
    for (k, v) in record {
        match v {
            Value::String(s) => texts.push((k.clone(), s)),
            Value::Object(inner) => {
                for (sub, v) in inner {
                    if let Value::String(s) = v {
                        texts.push((format!("{k}.{sub}"), s));
                    }
                }
            }
            _ => {}
        }
    }
    texts
        .iter()
        .find(|(_, s)| s.trim_end().ends_with('?'))
        .or_else(|| {
            texts.iter().find(|(k, _)| {
                let last = k.rsplit('.').next().unwrap_or(k);
                field_of(last) == Some(Canon::Question)
            })
        })
        .map(|(k, _)| k.clone())
}

/// Where `metadata` holds text that reads like an answer: a field named like one (as
/// `response` or `model_output`), up to three levels down.
fn answers_in(metadata: &Map<String, Value>) -> Vec<String> {
    fn walk(map: &Map<String, Value>, at: &str, depth: usize, out: &mut Vec<String>) {
        for (k, v) in map {
            let path = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            match v {
                Value::String(s) if !s.trim().is_empty() && field_of(k) == Some(Canon::Answer) => {
                    out.push(path)
                }
                Value::Object(inner) if depth < 3 => walk(inner, &path, depth + 1, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(metadata, "", 0, &mut out);
    out
}

/// A record's fields sorted into canonical slots, with what stays in metadata and the
/// warnings the sorting gave.
struct Sorted {
    slots: [Option<Slot>; CANON_COUNT],
    metadata: Map<String, Value>,
    nested_metadata: Vec<Map<String, Value>>,
    warnings: Vec<String>,
}

/// One pass over a record's keys: each recognised field into its canonical slot (the
/// better-named one wins), every other field into metadata.
fn sort_fields(record: Map<String, Value>, sources: &mut SourceFields) -> Sorted {
    let mut slots: [Option<Slot>; CANON_COUNT] = std::array::from_fn(|_| None);
    let mut metadata = Map::new();
    let mut nested_metadata: Vec<Map<String, Value>> = Vec::new();
    let mut warnings = Vec::new();

    for (key, value) in record {
        let alias = classify(&key).or_else(|| {
            classify_loose(&key).filter(|a| has_the_shape_of(a.canon, &value) && !taken(&slots, *a))
        });
        let Some(alias) = alias else {
            sources.note_unknown(&key);
            metadata.insert(key, value);
            continue;
        };
        sources.note(alias, &key);
        // Several acceptable references (`ground_truths`, OpenAI Evals' `ideal` list) or
        // sampled answers (`predictions: [{"text": …}]`): the first is the field, the list
        // stays in metadata.
        let value = match value {
            Value::Array(list)
                if alias.is_loose()
                    && matches!(alias.canon, Canon::GroundTruth | Canon::Answer) =>
            {
                let first = first_text(&list);
                metadata.insert(key.clone(), Value::Array(list));
                first
            }
            value => value,
        };
        if alias.canon == Canon::Metadata {
            match value {
                Value::Object(o) => nested_metadata.push(o),
                Value::Null => {}
                other => {
                    metadata.insert(key, other);
                }
            }
            continue;
        }
        let absent = if alias.canon.is_ragchecker() {
            value.is_null()
        } else {
            is_absent(&value)
        };
        if absent {
            continue;
        }
        let slot = &mut slots[alias.canon as usize];
        let incoming = Slot {
            key,
            index: alias.index,
            value,
        };
        *slot = Some(settle(
            slot.take(),
            incoming,
            alias,
            &mut metadata,
            &mut warnings,
        ));
    }
    Sorted {
        slots,
        metadata,
        nested_metadata,
        warnings,
    }
}

/// Which of two fields for one slot is kept (the other goes to metadata): a listed name
/// over one recognised by its words, else the more specific listed name, with a warning
/// naming both.
fn settle(
    held: Option<Slot>,
    incoming: Slot,
    alias: Alias,
    metadata: &mut Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Slot {
    match held {
        None => incoming,
        // A name recognised by its words gives way to a listed one without a word:
        // the listed name is what the file meant.
        Some(held)
            if incoming.index >= held.index
                && alias.is_loose()
                && !names_more_generally(&incoming.key, &held.key) =>
        {
            metadata.insert(incoming.key, incoming.value);
            held
        }
        Some(held) if Alias::loose_index(held.index) => {
            metadata.insert(held.key, held.value);
            incoming
        }
        Some(held) => {
            let (winner, loser) = if incoming.index < held.index {
                (incoming, held)
            } else {
                (held, incoming)
            };
            warnings.push(format!(
                "both `{}` and `{}` are given for {}; using `{}` (the other is kept in metadata)",
                winner.key,
                loser.key,
                alias.canon.name(),
                winner.key
            ));
            metadata.insert(loser.key, loser.value);
            winner
        }
    }
}

/// The retrieved passages into `item`, their per-chunk extras into metadata; returns how
/// many are over the token budget (each with a warning).
fn read_contexts(
    item: &mut Item,
    slot: Slot,
    limits: &ImportLimits,
    metadata: &mut Map<String, Value>,
    warnings: &mut Vec<String>,
) -> Result<u64, String> {
    let mut oversize_contexts = 0;
    let chunks = values::contexts(&slot.key, slot.value, limits.max_contexts, warnings)?;
    for (i, chunk) in chunks.contexts.iter().enumerate() {
        if let Some(tokens) = values::tokens_over(&chunk.text, limits.context_token_budget) {
            oversize_contexts += 1;
            warnings.push(format!(
                "`{}[{i}]` has {tokens} tokens, over the {}-token budget",
                slot.key, limits.context_token_budget
            ));
        }
    }
    item.contexts = chunks.contexts;
    if !chunks.extras.is_empty() {
        metadata.insert(CONTEXT_EXTRAS_KEY.to_string(), Value::Array(chunks.extras));
    }
    Ok(oversize_contexts)
}

/// A warning for each text field longer than the judges read: stored whole, but judged on
/// their beginning, said at import rather than discovered later.
fn warn_long_fields(item: &Item, warnings: &mut Vec<String>) {
    use crate::item::{QUESTION_CHARS, TEXT_CHARS};
    let long_fields = [
        ("question", Some(item.question.as_str()), QUESTION_CHARS),
        ("answer", item.answer.as_deref(), TEXT_CHARS),
        ("ground truth", item.ground_truth.as_deref(), TEXT_CHARS),
    ];
    for (field, text, limit) in long_fields {
        let chars = text.map_or(0, |t| {
            if t.len() > limit {
                t.chars().count()
            } else {
                0
            }
        });
        if chars > limit {
            warnings.push(format!(
                "the {field} has {chars} characters; judges read its first {limit}"
            ));
        }
    }
}

/// The entries of the record's own `metadata` objects beside its unknown fields; a name
/// already taken is kept as `metadata.NAME`.
fn merge_nested(metadata: &mut Map<String, Value>, nested_metadata: Vec<Map<String, Value>>) {
    for nested in nested_metadata {
        for (key, value) in nested {
            if metadata.contains_key(&key) {
                metadata.insert(format!("metadata.{key}"), value);
            } else {
                metadata.insert(key, value);
            }
        }
    }
}

/// An item without an id takes `metadata.id`, when there is one.
fn id_from_metadata(
    item: &mut Item,
    metadata: &Map<String, Value>,
    sources: &mut SourceFields,
    warnings: &mut Vec<String>,
) {
    if item.id.is_none() {
        if let Some(id) = metadata.get("id").filter(|v| !is_absent(v)) {
            item.id = values::text("metadata.id", id.clone(), warnings).unwrap_or(None);
            if item.id.is_some() {
                sources.note_metadata_id();
            }
        }
    }
}

/// Maps `record` onto an `Item`, or returns why the record is rejected.
pub(crate) fn map_record(
    record: Map<String, Value>,
    limits: &ImportLimits,
    sources: &mut SourceFields,
) -> Result<Mapped, String> {
    let Sorted {
        mut slots,
        mut metadata,
        nested_metadata,
        mut warnings,
    } = sort_fields(record, sources);

    let mut take = |canon: Canon| slots[canon as usize].take();
    let Some(question) = take(Canon::Question) else {
        return Err(missing_question(&metadata));
    };
    let question = values::text(&question.key, question.value, &mut warnings)?
        .ok_or_else(|| "missing question".to_string())?;

    let mut item = Item {
        question,
        ..Item::default()
    };
    let text_of = |slot: Option<Slot>, warnings: &mut Vec<String>| match slot {
        Some(s) => values::text(&s.key, s.value, warnings),
        None => Ok(None),
    };
    item.id = text_of(take(Canon::Id), &mut warnings)?;
    item.answer = text_of(take(Canon::Answer), &mut warnings)?;
    item.ground_truth = text_of(take(Canon::GroundTruth), &mut warnings)?;
    item.citation_label = text_of(take(Canon::CitationLabel), &mut warnings)?;

    let list_of = |slot: Option<Slot>, warnings: &mut Vec<String>| match slot {
        Some(s) => values::string_list(&s.key, s.value, warnings),
        None => Ok(Vec::new()),
    };
    item.reference_contexts = list_of(take(Canon::ReferenceContexts), &mut warnings)?;
    item.retrieved_ids = list_of(take(Canon::RetrievedIds), &mut warnings)?;
    item.gold_context_ids = list_of(take(Canon::GoldContextIds), &mut warnings)?;
    item.aspects = list_of(take(Canon::Aspects), &mut warnings)?;

    let oversize_contexts = match take(Canon::Contexts) {
        Some(slot) => read_contexts(&mut item, slot, limits, &mut metadata, &mut warnings)?,
        None => 0,
    };

    item.ragchecker = ragchecker_labels(&mut take)?;
    warn_long_fields(&item, &mut warnings);
    merge_nested(&mut metadata, nested_metadata);
    id_from_metadata(&mut item, &metadata, sources, &mut warnings);
    let answer_elsewhere = if item.answer.is_none() {
        answers_in(&metadata)
    } else {
        Vec::new()
    };
    item.metadata = metadata;
    Ok(Mapped {
        item,
        warnings,
        oversize_contexts,
        answer_elsewhere,
    })
}

/// Whether `value` can be the field a name recognised by its words suggests: text for a
/// question or an answer; text or a list of texts for a reference; text or a list for
/// passages and ids.
fn has_the_shape_of(canon: Canon, value: &Value) -> bool {
    match canon {
        Canon::Contexts | Canon::ReferenceContexts => match value {
            // A number in a CSV cell is a score, not a passage.
            Value::String(s) => !s.trim().is_empty() && s.trim().parse::<f64>().is_err(),
            value => value.is_array(),
        },
        Canon::GoldContextIds => matches!(value, Value::String(_) | Value::Array(_)),
        Canon::GroundTruth | Canon::Answer if value.is_array() => {
            !first_text(value.as_array().unwrap()).is_null()
        }
        _ => matches!(value, Value::String(s) if !s.trim().is_empty()),
    }
}

/// The first non-blank text of a list (a string, or an object's `text` / `content`), or
/// null.
fn first_text(list: &[Value]) -> Value {
    list.iter()
        .find_map(|v| {
            let text = match v {
                Value::Object(o) => o.get("text").or_else(|| o.get("content"))?,
                v => v,
            };
            matches!(text, Value::String(s) if !s.trim().is_empty()).then(|| text.clone())
        })
        .unwrap_or(Value::Null)
}

/// Whether a listed alias already filled the slot a word-recognised name would take.
fn taken(slots: &[Option<Slot>; CANON_COUNT], alias: Alias) -> bool {
    slots[alias.canon as usize]
        .as_ref()
        .is_some_and(|held| !Alias::loose_index(held.index))
}

fn ragchecker_labels(
    take: &mut impl FnMut(Canon) -> Option<Slot>,
) -> Result<Option<RagCheckerLabels>, String> {
    let mut labels = RagCheckerLabels::default();
    let mut any = false;
    if let Some(s) = take(Canon::ResponseClaims) {
        labels.response_claims = Some(values::claims(&s.key, s.value)?);
        any = true;
    }
    if let Some(s) = take(Canon::GtAnswerClaims) {
        labels.gt_answer_claims = Some(values::claims(&s.key, s.value)?);
        any = true;
    }
    if let Some(s) = take(Canon::Answer2Response) {
        labels.answer2response = Some(values::labels(&s.key, s.value)?);
        any = true;
    }
    if let Some(s) = take(Canon::Response2Answer) {
        labels.response2answer = Some(values::labels(&s.key, s.value)?);
        any = true;
    }
    if let Some(s) = take(Canon::Retrieved2Response) {
        labels.retrieved2response = Some(values::label_matrix(&s.key, s.value)?);
        any = true;
    }
    if let Some(s) = take(Canon::Retrieved2Answer) {
        labels.retrieved2answer = Some(values::label_matrix(&s.key, s.value)?);
        any = true;
    }
    Ok(any.then_some(labels))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(v: Value) -> Result<Mapped, String> {
        let Value::Object(o) = v else {
            panic!("test records are objects")
        };
        map_record(o, &ImportLimits::default(), &mut SourceFields::default())
    }

    #[test]
    fn contexts_beats_context_and_both_are_named() {
        let m = map(json!({"question": "q", "context": "old", "contexts": ["a", "b"]})).unwrap();
        assert_eq!(m.item.contexts.len(), 2, "the list under `contexts` wins");
        assert!(m.warnings[0].contains("`contexts`") && m.warnings[0].contains("`context`"));
        assert_eq!(
            m.item.metadata["context"],
            json!("old"),
            "the loser is kept, not dropped"
        );
    }

    #[test]
    fn a_blank_alias_is_no_conflict() {
        let m = map(json!({"question": "q", "answer": "  ", "response": "r"})).unwrap();
        assert_eq!(m.item.answer.as_deref(), Some("r"));
        assert!(
            m.warnings.is_empty(),
            "a blank value counts as absent: {:?}",
            m.warnings
        );
    }

    #[test]
    fn whitespace_question_is_missing() {
        assert_eq!(
            map(json!({"question": " \t", "answer": "a"})).unwrap_err(),
            "missing question"
        );
        assert_eq!(map(json!({"answer": "a"})).unwrap_err(), "missing question");
    }

    #[test]
    fn a_record_of_unknown_fields_names_them_and_the_question_fields_looked_for() {
        let err = map(json!({"foo": 1})).unwrap_err();
        assert!(
            err.starts_with("missing question: no field named question"),
            "{err}"
        );
        assert!(err.contains("(its fields: foo)"), "{err}");
    }

    #[test]
    fn an_array_where_text_is_expected_names_field_and_type() {
        let err = map(json!({"question": "q", "gt_answer": ["x"]})).unwrap_err();
        assert_eq!(err, "`gt_answer` is an array; expected text");
    }

    #[test]
    fn context_objects_keep_ids_and_extra_keys() {
        let m = map(json!({"query": "q", "documents": [
            {"id": 7, "page_content": "alpha", "score": 0.5},
            {"doc_id": "d2", "content": "beta"}
        ]}))
        .unwrap();
        assert_eq!(m.item.contexts[0].id.as_deref(), Some("7"));
        assert_eq!(m.item.contexts[1].text, "beta");
        assert_eq!(
            m.item.metadata[CONTEXT_EXTRAS_KEY],
            json!([{"score": 0.5}, null])
        );
    }

    #[test]
    fn metadata_id_fills_a_missing_id_and_nested_metadata_merges() {
        let m =
            map(json!({"question": "q", "metadata": {"id": "a1", "shape": "s"}, "x": 1})).unwrap();
        assert_eq!(m.item.id.as_deref(), Some("a1"));
        assert_eq!(m.item.metadata["shape"], json!("s"));
        assert_eq!(m.item.metadata["x"], json!(1));
    }

    #[test]
    fn gt_context_id_becomes_one_gold_id() {
        let m = map(json!({"question": "q", "gt_context_id": 12, "ranked_ids": [3, 12]})).unwrap();
        assert_eq!(m.item.gold_context_ids, vec!["12".to_string()]);
        assert_eq!(
            m.item.retrieved_ids,
            vec!["3".to_string(), "12".to_string()]
        );
        // One rule (DATA.md): converted and reported, once per field.
        assert_eq!(
            m.warnings,
            vec![
                "`ranked_ids` has 2 entries that are numbers or booleans; converted to text"
                    .to_string(),
                "`gt_context_id` is a number; converted to text".to_string(),
            ]
        );
    }

    #[test]
    fn triplet_claims_are_joined_and_labels_parsed() {
        let m = map(json!({"question": "q",
            "response_claims": [["Nile", "is", "long"], "plain claim"],
            "answer2response": ["Entailment", "neutral"],
            "retrieved2response": [["Contradiction"], []]}))
        .unwrap();
        let rc = m.item.ragchecker.unwrap();
        assert_eq!(
            rc.response_claims.unwrap(),
            vec!["Nile is long", "plain claim"]
        );
        assert_eq!(rc.answer2response.unwrap().len(), 2);
        assert_eq!(
            rc.retrieved2response.unwrap()[1].len(),
            0,
            "an empty label row is a result"
        );
    }

    #[test]
    fn an_unknown_label_names_the_field() {
        let err =
            map(json!({"question": "q", "response2answer": ["Entailment", "maybe"]})).unwrap_err();
        assert!(
            err.contains("`response2answer[1]`") && err.contains("\"maybe\""),
            "{err}"
        );
    }

    #[test]
    fn too_many_contexts_reports_the_count() {
        let limits = ImportLimits {
            max_contexts: 2,
            ..ImportLimits::default()
        };
        let Value::Object(o) = json!({"question": "q", "contexts": ["a", "b", "c"]}) else {
            unreachable!()
        };
        let err = map_record(o, &limits, &mut SourceFields::default()).unwrap_err();
        assert!(
            err.contains("3 contexts") && err.contains("limit of 2"),
            "{err}"
        );
    }

    #[test]
    fn a_context_over_the_token_budget_is_counted() {
        let limits = ImportLimits {
            context_token_budget: 3,
            ..ImportLimits::default()
        };
        let Value::Object(o) = json!({"question": "q", "contexts": ["one two", "a b c d e"]})
        else {
            unreachable!()
        };
        let m = map_record(o, &limits, &mut SourceFields::default()).unwrap();
        assert_eq!(m.oversize_contexts, 1);
        assert!(
            m.warnings[0].contains("`contexts[1]` has 5 tokens"),
            "{:?}",
            m.warnings
        );
    }
}
