//! A file of scores read beside a trace export. Langfuse keeps scores apart from its
//! traces: a user who downloads a trace and then its scores (`GET /api/public/scores`
//! saved as is: `{"data": [...], "meta": {...}}`, or a plain list, or one score per line)
//! gets them back as the items' prior scores, as if the trace had carried them.
//!
//! Owns: reading that file and handing each score to the collector. Must not: decide
//! what a score is (the trace reader does).

use std::path::Path;

use serde_json::Value;

use super::report::Collector;
use super::{DatasetError, ImportLimits};

/// The largest scores file read: it is read whole.
const SCORES_FILE_CAP: u64 = 2 * 1024 * 1024 * 1024;

/// The file's size, refused past the cap a scores file keeps.
fn check_size(path: &Path, display: &str, limits: &ImportLimits) -> Result<(), DatasetError> {
    let size = std::fs::metadata(path)
        .map_err(|e| DatasetError::unreadable(path, e))?
        .len();
    // A scores file is read whole (a download of the scores API, a page or a few), so
    // it keeps a cap that fits in memory whatever the dataset's.
    let cap = limits.max_file_bytes.min(SCORES_FILE_CAP);
    if size > cap {
        return Err(DatasetError::TooLarge {
            path: display.to_string(),
            size,
            limit: cap,
        });
    }
    Ok(())
}

/// Hands each entry to the collector; returns how many joined a trace and why each
/// other one was skipped.
fn join_entries(
    entries: Vec<(String, Option<Value>)>,
    collector: &mut Collector<'_>,
) -> (usize, Vec<String>) {
    let mut skipped: Vec<String> = Vec::new();
    let mut joined = 0usize;
    for (place, entry) in entries {
        let outcome = match entry {
            Some(Value::Object(record)) => collector.score_beside(record),
            Some(other) => Err(format!("{} is not an object", kind(&other))),
            None => Err("not JSON".into()),
        };
        match outcome {
            Ok(()) => joined += 1,
            Err(why) => skipped.push(format!("{place}: {why}")),
        }
    }
    (joined, skipped)
}

/// What the report says of the scores file: how many scores were read and skipped, and
/// whether the download held only some pages.
fn scores_note(
    name: &str,
    joined: usize,
    total: usize,
    skipped: &[String],
    reported: Option<u64>,
) -> String {
    // Langfuse's API answers a page at a time (50 scores unless asked otherwise); its
    // `meta.totalItems` says how many there are in all.
    let partial = match reported {
        Some(all) if all > total as u64 => format!(
            "; the file holds {total} of the {all} scores its download reported (meta.totalItems): fetch the other pages (`page=2`, …) to have them all"
        ),
        _ => String::new(),
    };
    let why = if skipped.is_empty() {
        format!("{joined} scores read from {name}; a score for a trace the export does not hold is named in the warnings")
    } else {
        format!(
            "{joined} of {total} scores read from {name}; {} skipped (first: {})",
            skipped.len(),
            skipped[0]
        )
    };
    format!("{why}{partial}")
}

/// Reads one scores file: its shape detected, each score matched to its trace by the
/// collector, and what was read noted in the report.
pub(crate) fn read(
    path: &Path,
    limits: &ImportLimits,
    collector: &mut Collector<'_>,
) -> Result<(), DatasetError> {
    let display = path.display().to_string();
    let refuse = |message: String| DatasetError::UnsupportedShape {
        path: display.clone(),
        message,
    };
    check_size(path, &display, limits)?;
    // Beside anything but Langfuse traces no score can join: refused before reading.
    collector.takes_scores().map_err(refuse)?;
    let text = std::fs::read_to_string(path).map_err(|e| DatasetError::unreadable(path, e))?;
    // Saved by a Windows editor, the file may open with a byte order mark.
    let (entries, reported) =
        entries(text.strip_prefix('\u{feff}').unwrap_or(&text)).map_err(refuse)?;
    let total = entries.len();
    let (joined, skipped) = join_entries(entries, collector);
    if joined == 0 {
        let first = skipped.first().cloned().unwrap_or_default();
        return Err(refuse(format!(
            "none of its {total} entries is a Langfuse score{}",
            if first.is_empty() {
                String::new()
            } else {
                format!(" (first: {first})")
            }
        )));
    }
    let name = path
        .file_name()
        .map_or(display.clone(), |n| n.to_string_lossy().into_owned());
    collector.note_choice(
        "prior_scores",
        &format!("the scores file {name}"),
        Vec::new(),
        &scores_note(&name, joined, total, &skipped, reported),
    );
    Ok(())
}

/// The file's entries with where each stands ("entry 3", "line 3"), `None` for a line
/// that is not JSON, and the total a paged download reported (`meta.totalItems`). A
/// file that is neither JSON nor JSON lines is an error.
type Entries = (Vec<(String, Option<Value>)>, Option<u64>);

fn entries(text: &str) -> Result<Entries, String> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Array(list)) => Ok((numbered(list), None)),
        Ok(Value::Object(mut object)) => match object.remove("data") {
            Some(Value::Array(list)) => {
                let reported = object
                    .get("meta")
                    .and_then(|m| m.get("totalItems"))
                    .and_then(Value::as_u64);
                Ok((numbered(list), reported))
            }
            _ => Ok((vec![("entry 1".into(), Some(Value::Object(object)))], None)),
        },
        Ok(other) => Err(format!(
            "it holds {}, not scores (a list, {{\"data\": [...]}} or one score per line)",
            kind(&other)
        )),
        Err(_) => {
            let lines: Vec<(String, Option<Value>)> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| (format!("line {}", i + 1), serde_json::from_str(l).ok()))
                .collect();
            if lines.iter().all(|(_, v)| v.is_none()) {
                return Err(
                    "it is not JSON (a list, {\"data\": [...]} or one score per line)".into(),
                );
            }
            Ok((lines, None))
        }
    }
}

fn numbered(list: Vec<Value>) -> Vec<(String, Option<Value>)> {
    list.into_iter()
        .enumerate()
        .map(|(i, v)| (format!("entry {}", i + 1), Some(v)))
        .collect()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
