//! Checking a definition before it is stored or run: every problem named in a sentence
//! a user can act on ("the question is empty", "threshold 7 is outside the scale 1–5"),
//! all of them at once so one edit fixes the file.

use super::{Check, Definition, Direction, ReadField, Scale, MAX_EXAMPLES};
use crate::catalogue;

/// The longest name and question accepted.
const MAX_NAME: usize = 40;
const MAX_QUESTION: usize = 2_000;

/// Languages the answer-language check can tell (ISO 639-1).
pub const LANGUAGES: [&str; 13] = [
    "en", "de", "fr", "es", "it", "pt", "nl", "zh", "ja", "ko", "ru", "el", "ar",
];

/// `Ok` when the definition can be stored and run; else every problem, joined by "; ",
/// after "criterion 'NAME': ".
pub fn validate(def: &Definition) -> Result<(), String> {
    let mut problems = Vec::new();
    if let Some(p) = name_problem(&def.name) {
        problems.push(p);
    }
    let question = def.question.trim();
    if question.is_empty() {
        problems.push(
            "the question is empty: write the question the judge answers about each item".into(),
        );
    } else if question.chars().count() > MAX_QUESTION {
        problems.push(format!(
            "the question is {} characters long; keep it under {MAX_QUESTION}",
            question.chars().count()
        ));
    }
    problems.extend(reads_problems(&def.reads));
    problems.extend(scale_problems(def));
    if let Some(check) = &def.check {
        problems.extend(check_problems(def, check));
    }
    if let Some(pattern) = def.applies_when.as_deref().map(str::trim) {
        if !pattern.is_empty() {
            if let Err(e) = super::condition(pattern) {
                problems.push(format!(
                    "\"applies when\" is not a regular expression that compiles: {e}"
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let who = if def.name.trim().is_empty() {
            "criterion".to_string()
        } else {
            format!("criterion '{}'", def.name.trim())
        };
        Err(format!("{who}: {}", problems.join("; ")))
    }
}

fn name_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some(
            "the name is empty: give it a short name such as tone or cites_section".into(),
        );
    }
    let valid = name.len() <= MAX_NAME
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !valid {
        return Some(format!(
            "the name '{name}' must start with a lower-case letter and hold only lower-case letters, digits and _ \
             (at most {MAX_NAME}), so that `--metrics criteria.{}` can name it",
            suggested_name(name)
        ));
    }
    let taken = catalogue::catalogue().iter().any(|m| m.name == name)
        || catalogue::Family::ALL.iter().any(|f| f.as_str() == name);
    taken.then(|| {
        format!(
            "the name '{name}' is already a built-in metric or family; choose another so `--metrics {name}` stays unambiguous"
        )
    })
}

/// A name a user probably meant: lower-case, other characters as `_`.
pub fn suggested_name(name: &str) -> String {
    let mut out: String = name
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    while out.contains("__") {
        out = out.replace("__", "_");
    }
    let out = out.trim_matches('_').to_string();
    if out.starts_with(|c: char| c.is_ascii_lowercase()) {
        out
    } else {
        format!("c_{out}")
    }
}

fn reads_problems(reads: &[ReadField]) -> Vec<String> {
    let mut out = Vec::new();
    if reads.is_empty() {
        out.push("\"reads\" is empty: name the fields the judge sees (question, answer, contexts, ground_truth)".into());
    }
    let mut seen = Vec::new();
    for r in reads {
        if seen.contains(r) {
            out.push(format!("\"reads\" names {} twice", r.as_str()));
        }
        seen.push(*r);
    }
    out
}

fn scale_problems(def: &Definition) -> Vec<String> {
    let scale = def.scale;
    let mut out = Vec::new();
    let on_scale = |x: f64| -> bool {
        match scale {
            // A threshold may sit between two whole scores.
            Scale::OneToFive => (1.0..=5.0).contains(&x),
            _ => scale.holds(x),
        }
    };
    if let Some(t) = def.threshold {
        if !t.is_finite() || !on_scale(t) {
            out.push(format!(
                "threshold {t} is outside the scale {}{}",
                scale.label(),
                if scale == Scale::PassFail {
                    " (a pass/fail criterion passes on pass; leave the threshold out)"
                } else {
                    ""
                }
            ));
        } else if scale == Scale::PassFail && t != 1.0 {
            out.push("a pass/fail criterion passes on pass (1); leave the threshold out".into());
        }
    }
    if scale == Scale::PassFail && def.direction == Direction::LowerIsBetter {
        out.push(
            "a pass/fail criterion passes when the item meets it: phrase the question so that passing is good \
             (\"Does the answer avoid promises?\") and keep direction higher_is_better"
                .into(),
        );
    }
    let mut seen = Vec::new();
    for a in &def.anchors {
        if !a.score.is_finite() || !scale.holds(a.score) {
            out.push(format!(
                "anchor {} is not a value of the scale {}{}",
                a.score,
                scale.label(),
                scale_values(scale)
            ));
        } else if seen.contains(&a.score.to_bits()) {
            out.push(format!("anchor {} is given twice", a.score));
        }
        seen.push(a.score.to_bits());
        if a.means.trim().is_empty() {
            out.push(format!(
                "anchor {} says nothing: write what that score means",
                a.score
            ));
        }
    }
    if def.examples.len() > MAX_EXAMPLES {
        out.push(format!(
            "there are {} examples; give at most {MAX_EXAMPLES}",
            def.examples.len()
        ));
    }
    for (i, e) in def.examples.iter().enumerate() {
        if !e.score.is_finite() || !scale.holds(e.score) {
            out.push(format!(
                "example {} has score {}, not a value of the scale {}{}",
                i + 1,
                e.score,
                scale.label(),
                scale_values(scale)
            ));
        }
        if def.reads(ReadField::Answer) && e.answer.trim().is_empty() {
            out.push(format!("example {} has no answer", i + 1));
        }
    }
    out
}

fn scale_values(scale: Scale) -> &'static str {
    match scale {
        Scale::PassFail => " (1 pass, 0 fail)",
        Scale::OneToFive => " (a whole number from 1 to 5)",
        Scale::Unit => " (a number from 0 to 1)",
    }
}

fn check_problems(def: &Definition, check: &Check) -> Vec<String> {
    let mut out = Vec::new();
    if def.scale != Scale::PassFail {
        out.push(format!(
            "a check passes or fails: set scale to pass_fail, not {}",
            def.scale.as_str()
        ));
    }
    if !def.reads(ReadField::Answer) {
        out.push("a check reads the answer: add answer to \"reads\"".into());
    }
    if !def.examples.is_empty() {
        out.push("a check needs no judge, so its examples would never be read: remove them".into());
    }
    match check {
        Check::Regex { pattern, .. } => {
            if pattern.is_empty() {
                out.push("the regular expression is empty".into());
            } else if let Err(e) = regex::Regex::new(pattern) {
                out.push(format!("the regular expression does not compile: {e}"));
            }
        }
        Check::RequiredPhrases { phrases } | Check::ForbiddenPhrases { phrases } => {
            if phrases.iter().all(|p| p.trim().is_empty()) {
                out.push("the phrase list is empty: give at least one phrase".into());
            } else if phrases.iter().any(|p| p.trim().is_empty()) {
                out.push("the phrase list holds an empty phrase".into());
            }
        }
        Check::Length {
            min_words,
            max_words,
        } => match (min_words, max_words) {
            (None, None) => out.push("a length check needs min_words, max_words or both".into()),
            (Some(lo), Some(hi)) if lo > hi => {
                out.push(format!("min_words {lo} is more than max_words {hi}"))
            }
            _ => {}
        },
        Check::Language { language } => {
            if !LANGUAGES.contains(&language.trim().to_ascii_lowercase().as_str()) {
                out.push(format!(
                    "language '{language}' is not one the check can tell; use one of {}",
                    LANGUAGES.join(", ")
                ));
            }
        }
    }
    out
}
