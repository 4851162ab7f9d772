//! Scored examples for answer correctness (RAGalyst shows the judge up to eight): the
//! default set shipped in `assets/few-shot/answer-correctness.jsonl`, and the reader for
//! a user's own file in the same shape — one JSON object per line with `answer`,
//! `reference` and `score` in [0, 1] (`question` and any other field are ignored) — or
//! as one JSON document: an array of them, or DSPy's / RAGalyst's saved predictor with a
//! `demos` list (`response`, `reference`, `correctness_score`).
//!
//! Owns: that file format and its errors (line-numbered, nothing dropped silently), and
//! the Settings choice of a file for runs started from the window (kept as a path in the
//! store's settings, read again at each run start so edits to the file take effect).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::task::CorrectnessExample;
use crate::error::{Error, Result};
use crate::store::{self, Store};

/// The most scored examples a correctness prompt carries (RAGalyst uses up to eight).
pub const MAX_EXAMPLES: usize = 8;

/// The settings key that names the user's few-shot file.
const SETTING: &str = "few_shot_file";

const DEFAULT: &str = include_str!("../../../../assets/few-shot/answer-correctness.jsonl");

/// The examples Ragnosis ships, used when the user names no file.
pub fn default_examples() -> Vec<CorrectnessExample> {
    parse(DEFAULT).expect("the shipped few-shot file is valid")
}

/// Reads a few-shot file: JSONL (blank lines ignored; every other line an example), or
/// one JSON document holding the examples (an array, or an object with a `demos` list
/// as DSPy and RAGalyst save them). RAGalyst's names are read too: `response` for
/// `answer`, `correctness_score` for `score`.
pub fn parse(text: &str) -> std::result::Result<Vec<CorrectnessExample>, String> {
    let mut examples = Vec::new();
    for (where_, value) in entries(text)? {
        examples.push(example(&where_, &value)?);
    }
    if examples.len() > MAX_EXAMPLES {
        return Err(format!(
            "the file has {} examples; the judge is shown at most {MAX_EXAMPLES}, so keep the {MAX_EXAMPLES} that matter most",
            examples.len()
        ));
    }
    Ok(examples)
}

/// Each example with where it is ("line 3", "demos[2]").
fn entries(text: &str) -> std::result::Result<Vec<(String, Value)>, String> {
    let trimmed = text.trim_start();
    // A whole document first: a pretty-printed JSON file is not a broken JSONL line 1.
    if trimmed.starts_with('[') || trimmed.starts_with('{') {
        if let Ok(document) = serde_json::from_str::<Value>(trimmed) {
            let (list, name) = match &document {
                Value::Array(list) => (Some(list), "item"),
                Value::Object(o) => (o.get("demos").and_then(Value::as_array), "demos"),
                _ => (None, ""),
            };
            if let Some(list) = list {
                return Ok(list
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (format!("{name}[{i}]"), v.clone()))
                    .collect());
            }
            if trimmed.lines().nth(1).is_some_and(|l| !l.trim().is_empty()) {
                return Err(
                    "a JSON object with no `demos` list; a few-shot file is JSONL, a JSON array of examples, or an object with `demos`".into(),
                );
            }
        }
    }
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(line)
            .map_err(|e| format!("line {number}: not a JSON object ({e})"))?;
        out.push((format!("line {number}"), value));
    }
    Ok(out)
}

fn example(at: &str, value: &Value) -> std::result::Result<CorrectnessExample, String> {
    let field = |names: &[&str]| -> std::result::Result<String, String> {
        let name = names[0];
        match names.iter().find_map(|n| value.get(*n)) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(format!("{at}: \"{name}\" is empty")),
            Some(_) => Err(format!("{at}: \"{name}\" must be text")),
            None => Err(format!("{at}: \"{name}\" is missing")),
        }
    };
    let score = match value
        .get("score")
        .or_else(|| value.get("correctness_score"))
    {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(_) => return Err(format!("{at}: \"score\" must be a number")),
        None => return Err(format!("{at}: \"score\" is missing")),
    };
    if !(0.0..=1.0).contains(&score) {
        return Err(format!(
            "{at}: \"score\" must be between 0 and 1, got {score}"
        ));
    }
    Ok(CorrectnessExample {
        answer: field(&["answer", "response"])?,
        reference: field(&["reference"])?,
        score,
    })
}

/// Reads a few-shot file from disk, naming it in every error.
pub fn read(path: &Path) -> std::result::Result<Vec<CorrectnessExample>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the few-shot file {}: {e}", path.display()))?;
    parse(&text).map_err(|e| format!("few-shot file {}: {e}", path.display()))
}

/// The file chosen in Settings, if any.
pub fn chosen_file(store: &Store) -> Result<Option<PathBuf>> {
    Ok(store::settings::get(store.conn(), SETTING)?.map(PathBuf::from))
}

/// Chooses `path` for later runs after reading it (a file with a bad line is refused
/// with the line's number and nothing is stored); `None` goes back to the shipped set.
pub fn choose_file(store: &Store, path: Option<&Path>) -> Result<Vec<CorrectnessExample>> {
    match path {
        Some(path) => {
            let examples = read(path).map_err(Error::Invalid)?;
            let text = path.to_str().ok_or_else(|| {
                Error::Invalid(format!("the path {} is not valid UTF-8", path.display()))
            })?;
            store::settings::set(store.conn(), SETTING, text)?;
            Ok(examples)
        }
        None => {
            store::settings::remove(store.conn(), SETTING)?;
            Ok(default_examples())
        }
    }
}

/// The examples a run started now uses: the Settings file, read afresh, else the
/// shipped set. A chosen file that no longer reads is an error, not a silent fallback:
/// the user asked for those examples.
pub fn for_new_run(store: &Store) -> Result<Vec<CorrectnessExample>> {
    match chosen_file(store)? {
        Some(path) => read(&path).map_err(|e| {
            Error::Invalid(format!(
                "{e} (chosen in Settings → Answer correctness examples; choose it again or use the shipped examples)"
            ))
        }),
        None => Ok(default_examples()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_file_spans_the_anchor_bands() {
        let examples = default_examples();
        assert_eq!(examples.len(), MAX_EXAMPLES);
        let scores: Vec<f64> = examples.iter().map(|e| e.score).collect();
        assert!(scores.iter().any(|s| *s <= 0.1) && scores.iter().any(|s| *s >= 0.9));
        assert!(scores.iter().any(|s| (0.4..=0.7).contains(s)));
    }

    #[test]
    fn bad_lines_are_named_by_number() {
        let err = parse("{\"answer\":\"a\",\"reference\":\"r\",\"score\":0.5}\n\n{\"answer\":\"a\",\"reference\":\"r\",\"score\":1.5}").unwrap_err();
        assert!(
            err.starts_with("line 3:") && err.contains("between 0 and 1"),
            "{err}"
        );
        let err = parse("{\"answer\":\"a\",\"score\":0.5}").unwrap_err();
        assert_eq!(err, "line 1: \"reference\" is missing");
        let err = parse("not json").unwrap_err();
        assert!(err.starts_with("line 1: not a JSON object"), "{err}");
    }

    #[test]
    fn a_chosen_file_is_read_at_each_run_and_a_broken_one_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(for_new_run(&store).unwrap(), default_examples());

        let file = dir.path().join("mine.jsonl");
        std::fs::write(
            &file,
            "{\"answer\":\"a\",\"reference\":\"r\",\"score\":0.25}\n",
        )
        .unwrap();
        assert_eq!(choose_file(&store, Some(&file)).unwrap().len(), 1);
        assert_eq!(
            chosen_file(&store).unwrap().as_deref(),
            Some(file.as_path())
        );
        assert_eq!(for_new_run(&store).unwrap()[0].score, 0.25);

        // Edited after choosing: the next run sees the edit, a broken line stops it.
        std::fs::write(&file, "{\"answer\":\"a\",\"score\":0.25}\n").unwrap();
        let err = for_new_run(&store).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("Settings"), "{err}");

        // A broken file is not chosen; the earlier choice stays.
        let other = dir.path().join("broken.jsonl");
        std::fs::write(&other, "not json\n").unwrap();
        assert!(choose_file(&store, Some(&other)).is_err());
        assert_eq!(
            chosen_file(&store).unwrap().as_deref(),
            Some(file.as_path())
        );

        assert_eq!(choose_file(&store, None).unwrap(), default_examples());
        assert_eq!(chosen_file(&store).unwrap(), None);
    }

    #[test]
    fn ragalysts_saved_demos_and_json_arrays_are_read_whole() {
        let ragalyst = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/real/ragalyst/ragalyst-answer_correctness.fewshot.json"
        ))
        .unwrap();
        let examples = parse(&ragalyst).unwrap();
        assert_eq!(examples.len(), 8);
        assert_eq!(
            examples[0].answer,
            "8 rockets fired from Gaza into southern Israel; none hurt"
        );
        assert_eq!(examples[0].score, 0.7);
        let array = "[\n {\"answer\": \"a\", \"reference\": \"r\", \"score\": 0.5},\n {\"answer\": \"b\", \"score\": 1}\n]";
        assert_eq!(
            parse(array).unwrap_err(),
            "item[1]: \"reference\" is missing",
            "a multi-line JSON file is named by entry, not 'line 1: not a JSON object'"
        );
    }

    #[test]
    fn more_than_eight_examples_are_refused_not_cut() {
        let line = "{\"answer\":\"a\",\"reference\":\"r\",\"score\":0.5}\n";
        assert_eq!(parse(&line.repeat(8)).unwrap().len(), 8);
        assert!(parse(&line.repeat(9)).unwrap_err().contains("at most 8"));
    }
}
