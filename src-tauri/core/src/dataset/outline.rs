//! Where the records of a JSON document that is an object are: decided from its
//! structure, not from its line count or a fixed key. A first pass sketches the document
//! (object keys a few levels deep, each array's length and first element, nothing else)
//! and `plan` reads the sketch:
//! - tools' envelopes: Langfuse `{trace, observations}`, LangSmith `{runs}` and the SDK's
//!   `{post, patch}`, DeepEval's cache `{test_cases_lookup_map: {KEY: …}}`;
//! - one record in the whole document: a DeepEval trace (`baseSpans`, `llmSpans`, …), a
//!   span's attribute map (`{spanName, attributes}`, or `llm.*` / `gen_ai.*` keys);
//! - an item list under a known key (`results`, `data`, `testCases`, `demos`, …), one or
//!   two objects deep (`testRunData.testCases`, promptfoo's `results.results`), also under
//!   every key of a map (`{run: {good_examples: […]}}`, DSPy's `{predictor: {demos}}`);
//! - keyed lists: an object whose values are lists of objects (`{case: [spans]}`,
//!   `{pipelines: {name: [rows]}}`, `{metric: [rows]}`), every key a group;
//! - several JSON values one after another (a console exporter's output), each a record.
//!
//! Owns: the sketch (bounded: `MAX_DEPTH` levels, `MAX_KEYS` keys per object, the first
//! element of each array) and the plan. Must not: keep values or emit records (`json`
//! streams the plan).

use std::fmt;
use std::path::Path;

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};

use super::aliases::{classify, field_of, Canon};
use super::dialects::inspectorraget::holds_tasks_and_results;
use super::traces::SpanDialect;
use super::tracked::TrackedRead;

const MAX_DEPTH: usize = 5;
const MAX_KEYS: usize = 200;

/// Keys whose array holds the records, in the order they are looked for.
pub(crate) const WRAPPER_KEYS: [&str; 16] = [
    "results",
    "data",
    "items",
    "examples",
    "testCases",
    "testRunData",
    "resourceSpans",
    "demos",
    "runs",
    "observations",
    "spans",
    "good_examples",
    "bad_examples",
    "rows",
    "records",
    "samples",
];

/// Wrapper keys read together when they are siblings (ALCE outputs split by verdict).
const SIBLING_LISTS: [&str; 2] = ["good_examples", "bad_examples"];

/// A document's structure, without its values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sketch {
    Scalar,
    Object(Vec<(String, Sketch)>),
    Array {
        len: u64,
        first: Option<Box<Sketch>>,
    },
    /// Below `MAX_DEPTH`.
    Deep,
}

impl Sketch {
    fn get(&self, key: &str) -> Option<&Sketch> {
        match self {
            Sketch::Object(entries) => entries
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        match self {
            Sketch::Object(entries) => entries.iter().map(|(k, _)| k.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// An array whose first element is an object (or an empty array).
    fn is_record_list(&self) -> bool {
        match self {
            Sketch::Array { first: None, .. } => true,
            Sketch::Array { first: Some(f), .. } => matches!(**f, Sketch::Object(_)),
            _ => false,
        }
    }

    fn first_keys(&self) -> Vec<&str> {
        match self {
            Sketch::Array { first: Some(f), .. } => f.keys(),
            _ => Vec::new(),
        }
    }
}

/// One step of a path to a record list: a key, or every key of an object (each key then
/// names a group of records).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Each,
}

/// What the document reader does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    /// Arrays of records at these paths; `side` is a top-level object handed over whole
    /// (Langfuse's `trace`); `spans` names the span dialect when the envelope says it.
    Lists {
        lists: Vec<Vec<Step>>,
        side: Option<String>,
        spans: Option<SpanDialect>,
    },
    /// Each entry of the object under this key is one record; its key is kept.
    Entries(String),
    /// The whole document is one record.
    Whole,
    /// Several JSON values one after another, each a record.
    Values,
    /// Parallel lists in the object at this path (the top level when empty): entry `i`
    /// of every list makes record `i`.
    Columns(Vec<String>),
    /// Lists that are joined into records (InspectorRAGet's tasks and the results on
    /// them): read whole.
    Joined,
}

/// The sketch of the first value in the file, whether more values follow it, and the
/// syntax error that ended the sketch early, if one did.
pub(crate) struct Outline {
    pub sketch: Sketch,
    pub more_values: bool,
    pub error: Option<serde_json::Error>,
}

pub(crate) fn read(path: &Path, max_element: u64) -> std::io::Result<Outline> {
    let (reader, _) = TrackedRead::open(path, max_element.max(1 << 30))?;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut builder = Builder::default();
    let outcome = Seed {
        builder: &mut builder,
        key: None,
        depth: 0,
    }
    .deserialize(&mut de);
    let (more_values, error) = match outcome.and_then(|()| de.end()) {
        Ok(()) => (false, None),
        Err(e) if e.to_string().starts_with("trailing characters") => (true, None),
        Err(e) if e.is_io() => return Err(std::io::Error::other(e.to_string())),
        Err(e) => (false, Some(e)),
    };
    Ok(Outline {
        sketch: builder.finish(),
        more_values,
        error,
    })
}

/// The sketch of a value already in memory (a one-line document).
pub(crate) fn sketch_of(value: &serde_json::Value, depth: usize) -> Sketch {
    use serde_json::Value;
    if depth > MAX_DEPTH {
        return Sketch::Deep;
    }
    match value {
        Value::Object(map) => Sketch::Object(
            map.iter()
                .take(MAX_KEYS)
                .map(|(k, v)| (k.clone(), sketch_of(v, depth + 1)))
                .collect(),
        ),
        Value::Array(items) => Sketch::Array {
            len: items.len() as u64,
            first: items.first().map(|f| Box::new(sketch_of(f, depth + 1))),
        },
        _ => Sketch::Scalar,
    }
}

/// The plan for a document whose sketch is `sketch`; `Err` lists its top-level keys.
pub(crate) fn plan(outline: &Outline) -> Result<Plan, Vec<String>> {
    if outline.more_values {
        return Ok(Plan::Values);
    }
    let root = &outline.sketch;
    let top_keys = || root.keys().iter().take(20).map(|k| k.to_string()).collect();
    if !matches!(root, Sketch::Object(_)) {
        return Err(top_keys());
    }
    if let Some(plan) = envelope(root) {
        return Ok(plan);
    }
    if is_whole_record(root) {
        return Ok(Plan::Whole);
    }
    let Some(lists) = wrapped_lists(root, 0).or_else(|| keyed_lists(root)) else {
        return columns(root).map(Plan::Columns).ok_or_else(top_keys);
    };
    Ok(Plan::Lists {
        lists,
        side: None,
        spans: None,
    })
}

/// Tools' envelopes, recognised by their keys.
fn envelope(root: &Sketch) -> Option<Plan> {
    let key = |k: &str| vec![Step::Key(k.into())];
    if let Some(trace) = root.get("trace").filter(|t| matches!(t, Sketch::Object(_))) {
        let top = root.get("observations").is_some_and(Sketch::is_record_list);
        if top || trace.get("observations").is_some() {
            return Some(Plan::Lists {
                lists: if top {
                    vec![key("observations")]
                } else {
                    vec![]
                },
                side: Some("trace".into()),
                spans: Some(SpanDialect::Langfuse),
            });
        }
    }
    let posts: Vec<Vec<Step>> = ["post", "patch"]
        .iter()
        .filter(|k| root.get(k).is_some_and(Sketch::is_record_list))
        .map(|k| key(k))
        .collect();
    if !posts.is_empty() {
        return Some(Plan::Lists {
            lists: posts,
            side: None,
            spans: Some(SpanDialect::LangSmith),
        });
    }
    if let Some(runs) = root.get("runs").filter(|r| r.is_record_list()) {
        let keys = runs.first_keys();
        if keys.contains(&"run_type") || keys.contains(&"parent_run_id") {
            return Some(Plan::Lists {
                lists: vec![key("runs")],
                side: None,
                spans: Some(SpanDialect::LangSmith),
            });
        }
    }
    let record_lists: Vec<&str> = root
        .keys()
        .into_iter()
        .filter(|k| root.get(k).is_some_and(Sketch::is_record_list))
        .collect();
    if holds_tasks_and_results(&record_lists) {
        return Some(Plan::Joined);
    }
    if matches!(root.get("test_cases_lookup_map"), Some(Sketch::Object(_))) {
        return Some(Plan::Entries("test_cases_lookup_map".into()));
    }
    None
}

/// A document that is one record: a DeepEval trace, one span's attributes, one span of
/// TruLens's event table, or an object with its own question and answer.
fn is_whole_record(root: &Sketch) -> bool {
    let keys = root.keys();
    let has = |k: &str| keys.contains(&k);
    let deepeval_trace = ["baseSpans", "llmSpans", "retrieverSpans", "agentSpans"]
        .iter()
        .any(|k| has(k))
        && !has("testCases");
    let attribute_map = matches!(root.get("attributes"), Some(Sketch::Object(_)))
        && (has("spanName") || has("scopeName"));
    let flat_attributes = keys.iter().any(|k| {
        [
            "llm.",
            "gen_ai.",
            "input.value",
            "output.value",
            "ai.",
            "openinference.",
        ]
        .iter()
        .any(|p| k.starts_with(p))
    });
    // TruLens's event table, one row saved alone; one feedback result (its `calls` are
    // the feedback function's steps, not items).
    let trulens_event =
        (has("record_attributes") && has("trace")) || (has("feedback_result_id") && has("calls"));
    deepeval_trace
        || attribute_map
        || flat_attributes
        || trulens_event
        || own_question_and_answer(root)
}

/// An object whose own top-level fields hold a question and an answer as values is one
/// record, whatever lists it also holds: TruLens's record keeps `main_input` and
/// `main_output` beside its `calls`, which are steps of that record, not items.
fn own_question_and_answer(root: &Sketch) -> bool {
    let Sketch::Object(entries) = root else {
        return false;
    };
    let holds = |field: Canon| {
        entries
            .iter()
            .any(|(k, v)| *v == Sketch::Scalar && field_of(k) == Some(field))
    };
    holds(Canon::Question) && holds(Canon::Answer)
}

/// Where an object of parallel lists is (the top level or one key down): two or more
/// lists of one length, one of them questions in text (`questions`, `queries`). A list of
/// objects is records, not a column, so such an object is left to the other plans.
fn columns(root: &Sketch) -> Option<Vec<String>> {
    let holds_columns = |object: &Sketch| -> bool {
        let Sketch::Object(entries) = object else {
            return false;
        };
        let question_len = entries.iter().find_map(|(k, v)| match v {
            Sketch::Array {
                len,
                first: Some(f),
            } if **f == Sketch::Scalar && field_of(k) == Some(Canon::Question) => Some(*len),
            _ => None,
        });
        let Some(n) = question_len.filter(|n| *n > 0) else {
            return false;
        };
        // Beside the questions, a list of one of the item's other fields.
        entries.iter().any(|(k, v)| {
            let field = field_of(k);
            matches!(v, Sketch::Array { len, first: Some(f) }
                if *len == n && !matches!(**f, Sketch::Object(_)))
                && matches!(
                    field,
                    Some(
                        Canon::Answer
                            | Canon::Contexts
                            | Canon::GroundTruth
                            | Canon::ReferenceContexts
                    )
                )
        })
    };
    if holds_columns(root) {
        return Some(Vec::new());
    }
    let Sketch::Object(entries) = root else {
        return None;
    };
    entries
        .iter()
        .find(|(_, v)| holds_columns(v))
        .map(|(k, _)| vec![k.clone()])
}

/// Arrays under wrapper keys, up to three objects deep, or under every key of a map.
fn wrapped_lists(object: &Sketch, depth: usize) -> Option<Vec<Vec<Step>>> {
    let Sketch::Object(entries) = object else {
        return None;
    };
    // An object with a question of its own is an item, whatever lists it holds.
    if depth > 0
        && entries
            .iter()
            .any(|(k, _)| classify(k).is_some_and(|a| a.canon == Canon::Question))
    {
        return None;
    }
    for wrapper in WRAPPER_KEYS {
        let Some((key, value)) = entries
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(wrapper))
        else {
            continue;
        };
        if value.is_record_list() || matches!(value, Sketch::Array { .. }) {
            let mut lists = vec![vec![Step::Key(key.clone())]];
            if SIBLING_LISTS.contains(&wrapper) {
                lists = entries
                    .iter()
                    .filter(|(k, v)| SIBLING_LISTS.contains(&k.as_str()) && v.is_record_list())
                    .map(|(k, _)| vec![Step::Key(k.clone())])
                    .collect();
            }
            return Some(lists);
        }
        if depth < 2 {
            if let Some(inner) = wrapped_lists(value, depth + 1) {
                return Some(prefixed(Step::Key(key.clone()), inner));
            }
        }
    }
    if depth < 2 {
        // A map of runs / predictors, each holding its own list.
        for (_, value) in entries {
            if let Some(inner) = wrapped_lists(value, depth + 1) {
                return Some(prefixed(Step::Each, inner));
            }
        }
    }
    None
}

/// An object (the root, or one of its values) whose values are lists of objects.
fn keyed_lists(root: &Sketch) -> Option<Vec<Vec<Step>>> {
    let Sketch::Object(entries) = root else {
        return None;
    };
    let lists_of_objects =
        |s: &Sketch| matches!(s, Sketch::Object(e) if e.iter().any(|(_, v)| is_object_list(v)));
    if lists_of_objects(root) {
        return Some(vec![vec![Step::Each]]);
    }
    entries
        .iter()
        .find(|(_, v)| lists_of_objects(v))
        .map(|(k, _)| vec![vec![Step::Key(k.clone()), Step::Each]])
}

fn is_object_list(s: &Sketch) -> bool {
    matches!(s, Sketch::Array { first: Some(f), .. } if matches!(**f, Sketch::Object(_)))
}

fn prefixed(step: Step, paths: Vec<Vec<Step>>) -> Vec<Vec<Step>> {
    paths
        .into_iter()
        .map(|p| std::iter::once(step.clone()).chain(p).collect())
        .collect()
}

/// Open objects and arrays of the sketch being built, kept outside serde's call stack
/// so a syntax error still leaves what was sketched before it.
#[derive(Default)]
struct Builder {
    stack: Vec<(Option<String>, Sketch)>,
    done: Option<Sketch>,
}

impl Builder {
    fn attach(&mut self, key: Option<String>, sketch: Sketch) {
        match self.stack.last_mut() {
            None => self.done = Some(sketch),
            Some((_, Sketch::Object(entries))) => entries.push((key.unwrap_or_default(), sketch)),
            Some((_, Sketch::Array { first, .. })) => {
                first.get_or_insert_with(|| Box::new(sketch));
            }
            Some(_) => {}
        }
    }

    fn close(&mut self) {
        if let Some((key, sketch)) = self.stack.pop() {
            self.attach(key, sketch);
        }
    }

    fn finish(mut self) -> Sketch {
        while !self.stack.is_empty() {
            self.close();
        }
        self.done.unwrap_or(Sketch::Scalar)
    }
}

struct Seed<'b> {
    builder: &'b mut Builder,
    key: Option<String>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Seed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            IgnoredAny::deserialize(d)?;
            self.builder.attach(self.key, Sketch::Deep);
            return Ok(());
        }
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Seed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        self.builder
            .stack
            .push((self.key, Sketch::Object(Vec::new())));
        let mut count = 0;
        while let Some(key) = map.next_key::<String>()? {
            count += 1;
            if count > MAX_KEYS {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            map.next_value_seed(Seed {
                builder: &mut *self.builder,
                key: Some(key),
                depth: self.depth + 1,
            })?;
        }
        self.builder.close();
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.builder.stack.push((
            self.key,
            Sketch::Array {
                len: 0,
                first: None,
            },
        ));
        let mut len = 0u64;
        let seed = Seed {
            builder: &mut *self.builder,
            key: None,
            depth: self.depth + 1,
        };
        if seq.next_element_seed(seed)?.is_some() {
            len = 1;
            while seq.next_element::<IgnoredAny>()?.is_some() {
                len += 1;
            }
        }
        if let Some((_, Sketch::Array { len: l, .. })) = self.builder.stack.last_mut() {
            *l = len;
        }
        self.builder.close();
        Ok(())
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        self.builder.attach(self.key, Sketch::Scalar);
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        self.builder.attach(self.key, Sketch::Scalar);
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        self.builder.attach(self.key, Sketch::Scalar);
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        self.builder.attach(self.key, Sketch::Scalar);
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        self.builder.attach(self.key, Sketch::Scalar);
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.builder.attach(self.key, Sketch::Scalar);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn plan_of(text: &str) -> Result<Plan, Vec<String>> {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(text.as_bytes()).unwrap();
        plan(&read(file.path(), 1 << 20).unwrap())
    }

    fn lists(paths: &[&[&str]]) -> Plan {
        let step = |s: &&str| match *s {
            "*" => Step::Each,
            k => Step::Key(k.into()),
        };
        Plan::Lists {
            lists: paths.iter().map(|p| p.iter().map(step).collect()).collect(),
            side: None,
            spans: None,
        }
    }

    #[test]
    fn item_lists_are_found_by_structure_at_any_of_the_usual_depths() {
        let minified = r#"{"testRunData":{"testCases":[{"input":"q"}],"metricsScores":[]}}"#;
        assert_eq!(
            plan_of(minified),
            Ok(lists(&[&["testRunData", "testCases"]]))
        );
        let demos = r#"{"instruction": "x", "demos": [{"question": "q"}]}"#;
        assert_eq!(plan_of(demos), Ok(lists(&[&["demos"]])));
        let runs = r#"{"run-a.json": {"good_examples": [{"question": "q"}], "bad_examples": [{"question": "r"}]}}"#;
        assert_eq!(
            plan_of(runs),
            Ok(lists(&[&["*", "good_examples"], &["*", "bad_examples"]]))
        );
        let predictors = r#"{"react": {"demos": [{"question": "q"}]}, "metadata": {"v": 1}}"#;
        assert_eq!(plan_of(predictors), Ok(lists(&[&["*", "demos"]])));
        let keyed = r#"{"case one": [{"name": "s"}], "case two": [{"name": "t"}]}"#;
        assert_eq!(plan_of(keyed), Ok(lists(&[&["*"]])));
        let pipelines = r#"{"pipelines": {"basic": [{"query": "q"}]}, "timestamp": "t"}"#;
        assert_eq!(plan_of(pipelines), Ok(lists(&[&["pipelines", "*"]])));
        let empty = r#"{ "results": { "results": [], "timestamp": null } }"#;
        assert_eq!(plan_of(empty), Ok(lists(&[&["results", "results"]])));
    }

    #[test]
    fn envelopes_whole_records_and_streams_are_told_apart() {
        let langfuse = r#"{"trace": {"id": "t", "scores": []}, "observations": [{"id": "o"}]}"#;
        assert!(matches!(
            plan_of(langfuse),
            Ok(Plan::Lists {
                side: Some(_),
                spans: Some(SpanDialect::Langfuse),
                ..
            })
        ));
        let batch = r#"{"post": [{"id": "r"}], "patch": [{"trace_id": "r"}]}"#;
        assert!(matches!(
            plan_of(batch),
            Ok(Plan::Lists { spans: Some(SpanDialect::LangSmith), ref lists, .. }) if lists.len() == 2
        ));
        let cache = r#"{"test_cases_lookup_map": {"{\"input\": \"q\"}": {}}}"#;
        assert_eq!(
            plan_of(cache),
            Ok(Plan::Entries("test_cases_lookup_map".into()))
        );
        let trace = r#"{"uuid": "u", "baseSpans": [], "llmSpans": [{"name": "x"}]}"#;
        assert_eq!(plan_of(trace), Ok(Plan::Whole));
        let attributes = r#"{"spanName": "llm_call", "attributes": {"gen_ai.system": "x"}}"#;
        assert_eq!(plan_of(attributes), Ok(Plan::Whole));
        assert_eq!(plan_of("{\"a\": 1}\n{\"a\": 2}\n"), Ok(Plan::Values));
        let item = "{\n  \"question\": \"one pretty item\",\n  \"pages\": [1, 2]\n}\n";
        assert_eq!(
            plan_of(item),
            Err(vec!["question".to_string(), "pages".to_string()])
        );
    }
}
