//! How much of each field a judge reads. No judge takes a five-megabyte answer whole: the
//! offline judge's sentence model and claim matching grow with the text, a model's
//! context window ends. Past a limit a field is judged on its beginning, cut at a
//! sentence end where one is near, and every result of the item says so in its
//! explanation and details — never silently. The importer reports such fields too.
//!
//! Owns: the cut (the limits are `item::TEXT_CHARS` and `QUESTION_CHARS`, which the
//! importer reads too). Must not: change what is stored.

use std::borrow::Cow;

use serde::Serialize;

use crate::item::{Item, QUESTION_CHARS, TEXT_CHARS};

/// One field judged on its beginning.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cut {
    /// "answer", "question", "ground_truth" or "contexts[3]".
    pub field: String,
    pub chars: usize,
    pub kept: usize,
}

/// The item as judges read it, and the fields that were shortened (empty when none).
pub fn for_judging(item: &Item) -> (Cow<'_, Item>, Vec<Cut>) {
    let over = |text: &str, limit: usize| text.len() > limit && text.chars().count() > limit;
    let long_context = item.contexts.iter().any(|c| over(&c.text, TEXT_CHARS));
    let long = over(&item.question, QUESTION_CHARS)
        || item.answer.as_deref().is_some_and(|a| over(a, TEXT_CHARS))
        || item
            .ground_truth
            .as_deref()
            .is_some_and(|g| over(g, TEXT_CHARS))
        || long_context;
    if !long {
        return (Cow::Borrowed(item), Vec::new());
    }
    let mut cuts = Vec::new();
    let mut short = item.clone();
    let mut cut = |field: String, text: &mut String, limit: usize| {
        let chars = text.chars().count();
        if chars > limit {
            *text = beginning(text, limit).to_string();
            cuts.push(Cut {
                field,
                chars,
                kept: text.chars().count(),
            });
        }
    };
    cut("question".into(), &mut short.question, QUESTION_CHARS);
    if let Some(a) = short.answer.as_mut() {
        cut("answer".into(), a, TEXT_CHARS);
    }
    if let Some(g) = short.ground_truth.as_mut() {
        cut("ground_truth".into(), g, TEXT_CHARS);
    }
    for (i, c) in short.contexts.iter_mut().enumerate() {
        cut(format!("contexts[{i}]"), &mut c.text, TEXT_CHARS);
    }
    (Cow::Owned(short), cuts)
}

/// At most `limit` characters from the start, ending after the last sentence end in the
/// final fifth of them when there is one (so a claim is not cut in half).
fn beginning(text: &str, limit: usize) -> &str {
    let end = text
        .char_indices()
        .nth(limit)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    let floor = head.len() * 4 / 5;
    head[floor..]
        .rfind(['.', '!', '?', '\n'])
        .map_or(head, |i| &head[..floor + i + 1])
}

/// The sentence every result of a shortened item carries.
pub fn note(cuts: &[Cut]) -> String {
    let parts: Vec<String> = cuts
        .iter()
        .map(|c| {
            format!(
                "{} to its first {} of {} characters",
                c.field.replace('_', " "),
                thousands(c.kept),
                thousands(c.chars)
            )
        })
        .collect();
    format!("Judged on shortened text: {}.", parts.join("; "))
}

fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Context;

    #[test]
    fn a_long_answer_is_cut_at_a_sentence_end_and_the_cut_is_named() {
        let sentence = "The library opens at nine on weekdays. ";
        let item = Item {
            question: "When does it open?".into(),
            answer: Some(sentence.repeat(5_000)),
            contexts: vec![Context {
                id: None,
                text: "Open from 9 am.".into(),
            }],
            ..Default::default()
        };
        let (short, cuts) = for_judging(&item);
        let answer = short.answer.as_deref().unwrap();
        assert!(answer.len() <= TEXT_CHARS && answer.len() > TEXT_CHARS * 4 / 5);
        assert!(answer.ends_with('.'), "cut after a sentence");
        assert_eq!(cuts.len(), 1);
        assert_eq!(cuts[0].field, "answer");
        assert_eq!(cuts[0].chars, sentence.len() * 5_000);
        assert_eq!(
            note(&cuts),
            format!(
                "Judged on shortened text: answer to its first {} of 195,000 characters.",
                thousands(cuts[0].kept)
            )
        );
        assert_eq!(
            short.contexts[0].text, "Open from 9 am.",
            "short fields stay whole"
        );
    }

    #[test]
    fn an_item_within_the_limits_is_judged_as_it_is() {
        let item = Item {
            question: "Q?".into(),
            answer: Some("é".repeat(TEXT_CHARS)),
            ..Default::default()
        };
        let (short, cuts) = for_judging(&item);
        assert!(cuts.is_empty(), "the limit counts characters, not bytes");
        assert!(matches!(short, Cow::Borrowed(_)));
    }
}
