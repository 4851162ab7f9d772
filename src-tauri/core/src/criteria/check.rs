//! The criteria any judge can check, the offline one included, because they need no
//! understanding: a regular expression the user gives, phrases the answer must or must
//! not hold, a length bound in words, and the answer's language. Each passes (1) or
//! fails (0) with what was found; when the text cannot tell (an answer too short to
//! have a language) the result is skipped with the reason, never a made-up score.
//!
//! Owns: running a `Check` on an answer. Pure: no store, no judge.

use serde_json::json;

use super::{Check, Definition};
use crate::catalogue::MetricResult;

/// A check in words, for metric tables and methodology lines.
pub fn describe(check: &Check) -> String {
    match check {
        Check::Regex {
            pattern,
            must_match: true,
        } => format!("the answer matches /{pattern}/"),
        Check::Regex { pattern, .. } => format!("the answer does not match /{pattern}/"),
        Check::RequiredPhrases { phrases } => format!("the answer says {}", quoted(phrases, "and")),
        Check::ForbiddenPhrases { phrases } => {
            format!("the answer never says {}", quoted(phrases, "or"))
        }
        Check::Length {
            min_words,
            max_words,
        } => match (min_words, max_words) {
            (Some(lo), Some(hi)) => format!("the answer has {lo} to {hi} words"),
            (Some(lo), None) => format!("the answer has at least {lo} words"),
            (None, Some(hi)) => format!("the answer has at most {hi} words"),
            (None, None) => "any length".into(),
        },
        Check::Language { language } => {
            format!(
                "the answer is written in '{}'",
                language.trim().to_ascii_lowercase()
            )
        }
    }
}

fn quoted(phrases: &[String], joiner: &str) -> String {
    let q: Vec<String> = phrases.iter().map(|p| format!("“{}”", p.trim())).collect();
    match q.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {joiner} {last}", rest.join(", ")),
    }
}

/// Runs the definition's check on `answer`: `None` when the definition has no check.
pub fn run(def: &Definition, version: u32, answer: &str) -> Option<MetricResult> {
    let check = def.check.as_ref()?;
    let id = def.metric_id();
    let outcome = match check {
        Check::Regex {
            pattern,
            must_match,
        } => regex_check(pattern, *must_match, answer),
        Check::RequiredPhrases { phrases } => {
            let missing: Vec<String> = phrases
                .iter()
                .filter(|p| !holds(answer, p))
                .cloned()
                .collect();
            if missing.is_empty() {
                Ok((true, "the answer holds every required phrase".to_string()))
            } else {
                Ok((
                    false,
                    format!("the answer lacks {}", quoted(&missing, "and")),
                ))
            }
        }
        Check::ForbiddenPhrases { phrases } => {
            let found: Vec<String> = phrases
                .iter()
                .filter(|p| holds(answer, p))
                .cloned()
                .collect();
            if found.is_empty() {
                Ok((
                    true,
                    "the answer holds none of the forbidden phrases".to_string(),
                ))
            } else {
                Ok((false, format!("the answer says {}", quoted(&found, "and"))))
            }
        }
        Check::Length {
            min_words,
            max_words,
        } => Ok(length_check(answer, *min_words, *max_words)),
        Check::Language { language } => language_check(answer, language),
    };
    Some(match outcome {
        Ok((passed, why)) => {
            let raw = if passed { 1.0 } else { 0.0 };
            let mut result = def.result(version, raw, &format!("{why} (checked without a judge)"));
            if let serde_json::Value::Object(map) = &mut result.details {
                map.insert("check".into(), json!(check));
            }
            result
        }
        Err(Skip(reason)) => MetricResult::skipped(&id, reason),
    })
}

/// Why a check could not decide.
struct Skip(String);

fn regex_check(pattern: &str, must_match: bool, answer: &str) -> Result<(bool, String), Skip> {
    // Validation compiled it already; a pattern that fails here is said, not scored.
    let re = regex::Regex::new(pattern)
        .map_err(|e| Skip(format!("the regular expression does not compile: {e}")))?;
    let found = re.find(answer).map(|m| m.as_str().to_string());
    Ok(match (found, must_match) {
        (Some(m), true) => (true, format!("the answer matches /{pattern}/ (“{m}”)")),
        (None, true) => (false, format!("the answer does not match /{pattern}/")),
        (Some(m), false) => (
            false,
            format!("the answer matches /{pattern}/ (“{m}”), which it must not"),
        ),
        (None, false) => (true, format!("the answer does not match /{pattern}/")),
    })
}

/// Whether `text` holds `phrase`, case and runs of spaces aside.
fn holds(text: &str, phrase: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let phrase = norm(phrase);
    !phrase.is_empty() && norm(text).contains(&phrase)
}

fn length_check(answer: &str, min: Option<u32>, max: Option<u32>) -> (bool, String) {
    let words = answer.split_whitespace().count() as u32;
    let too_short = min.is_some_and(|lo| words < lo);
    let too_long = max.is_some_and(|hi| words > hi);
    let bound = match (min, max) {
        (Some(lo), Some(hi)) => format!("{lo} to {hi}"),
        (Some(lo), None) => format!("at least {lo}"),
        (None, Some(hi)) => format!("at most {hi}"),
        (None, None) => "any number of".into(),
    };
    let plural = if words == 1 { "word" } else { "words" };
    if too_short || too_long {
        (
            false,
            format!("the answer has {words} {plural}; it should have {bound} words"),
        )
    } else {
        (
            true,
            format!("the answer has {words} {plural}, within {bound} words"),
        )
    }
}

fn language_check(answer: &str, language: &str) -> Result<(bool, String), Skip> {
    let wanted = language.trim().to_ascii_lowercase();
    match crate::dataset::guess_language(answer) {
        Some(found) if found == wanted => Ok((true, format!("the answer is written in '{found}'"))),
        Some(found) => Ok((
            false,
            format!("the answer reads as '{found}', not '{wanted}'"),
        )),
        None => Err(Skip(
            "the answer is too short or too mixed to tell its language, so the language check cannot decide".into(),
        )),
    }
}
