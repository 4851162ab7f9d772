//! Question aspects: the 1–5 short information needs a question asks for, read off the
//! question's own phrases (never a guessed answer, never a new fact).
//!
//! - Several questions in one ("Who directed it and when was it released?") give one
//!   aspect each.
//! - An enumeration after a colon ("Name two languages: one by JetBrains, and one from
//!   Sun") gives one aspect per item, each with the list's head noun.
//! - A coordination of names or numbers under a plural cue ("Which two noble gases have
//!   atomic numbers 2 and 10?") gives one aspect per coordinated item.
//! - Otherwise the aspect is the question's focus: the question without its wh-word,
//!   auxiliary and question mark ("chemical symbol for gold").
//!
//! Owns: aspect extraction. Must not: look at answers or contexts.

use crate::offline::words::lexicon::{self, Token};
use crate::offline::words::vocabulary::is_auxiliary;
use ragnosis_types::text;

const MAX_ASPECTS: usize = 5;

fn is_wh(lower: &str) -> bool {
    matches!(
        without_contraction(lower),
        "what" | "which" | "who" | "whom" | "whose" | "when" | "where" | "why" | "how"
    )
}

/// "what's" → "what", "who're" → "who": a wh-word with its auxiliary contracted onto it.
fn without_contraction(lower: &str) -> &str {
    ["'s", "\u{2019}s", "'re", "\u{2019}re"]
        .iter()
        .find_map(|suffix| lower.strip_suffix(suffix))
        .unwrap_or(lower)
}

fn is_plural_cue(lower: &str) -> bool {
    matches!(
        lower,
        "two" | "three" | "four" | "five" | "both" | "each" | "all"
    )
}

fn is_preposition(lower: &str) -> bool {
    matches!(
        lower,
        "in" | "on" | "at" | "for" | "from" | "by" | "to" | "with" | "of" | "since" | "until"
    )
}

/// Imperative openers of list questions ("Name the two ...").
fn is_list_verb(lower: &str) -> bool {
    matches!(
        lower,
        "name" | "list" | "give" | "identify" | "state" | "mention" | "provide"
    )
}

/// The information need of one simple question: the question without its wh-word,
/// auxiliary, leading article and question mark. "How much/many/long/old/far" keep
/// their "how", which is the need itself.
fn focus(question: &str) -> String {
    let q = question.trim().trim_end_matches(['?', '.', '!']).trim();
    let words: Vec<&str> = q.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let mut start = 0;
    if lower.first().is_some_and(|w| is_wh(w)) {
        let wh = without_contraction(&lower[0]);
        let quantity = wh == "how"
            && lower.get(1).is_some_and(|w| {
                matches!(
                    w.as_str(),
                    "much" | "many" | "long" | "old" | "far" | "big" | "often"
                )
            });
        if quantity || matches!(wh, "why" | "when" | "where" | "how") {
            return q.to_string();
        }
        start = 1;
        // "What's the default page size": the auxiliary is already inside the wh-word.
        if wh == lower[0] && lower.get(1).is_some_and(|w| is_auxiliary(w)) {
            start = 2;
        }
    } else if lower.first().is_some_and(|w| is_auxiliary(w)) {
        return format!("whether {}", words[1..].join(" "));
    } else if lower.first().is_some_and(|w| is_list_verb(w)) {
        start = 1;
    }
    while lower
        .get(start)
        .is_some_and(|w| matches!(w.as_str(), "the" | "a" | "an"))
        && start + 1 < words.len()
    {
        start += 1;
    }
    let out = words[start..].join(" ");
    if out.is_empty() {
        q.to_string()
    } else {
        out
    }
}

/// Splits several questions joined in one: at "?" followed by more text, and at
/// "and"/"," followed by a wh-word.
fn split_questions(question: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let sentences = text::sentences(question);
    // "I won't ride over the winter. How should I store the battery?": the statement is
    // background to the question, not something the answer must cover. When any sentence
    // asks, only the asking ones are parts.
    let asks = sentences.iter().any(|s| s.trim_end().ends_with('?'));
    for sentence in sentences
        .iter()
        .filter(|s| !asks || s.trim_end().ends_with('?'))
    {
        let words: Vec<&str> = sentence.split_whitespace().collect();
        let mut start = 0;
        for i in 1..words.len() {
            let w = words[i]
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase();
            let next = words
                .get(i + 1)
                .map(|n| n.to_lowercase())
                .unwrap_or_default();
            // "…, and in what body of water is it held?": a preposition may stand before
            // the second question's wh-word.
            let after_next = words
                .get(i + 2)
                .map(|n| n.to_lowercase())
                .unwrap_or_default();
            let asks_next = is_wh(&next)
                || is_auxiliary(&next)
                || (is_preposition(&next) && is_wh(&after_next));
            let joins = w == "and" && asks_next && i > start + 2;
            if joins {
                parts.push(words[start..i].join(" ").trim_end_matches(',').to_string());
                start = i + 1;
            }
        }
        parts.push(words[start..].join(" "));
    }
    parts
        .into_iter()
        .filter(|p| p.chars().any(char::is_alphanumeric))
        .collect()
}

/// "Name the two programming languages: one by X, and one from Y" → one aspect per item,
/// with the head noun put back in place of "one".
fn enumeration(question: &str) -> Option<Vec<String>> {
    let (head, list) = question.split_once(':')?;
    let items: Vec<String> = list
        .trim()
        .trim_end_matches(['?', '.'])
        .split([',', ';'])
        .flat_map(|p| p.split(" and "))
        .map(|p| p.trim().trim_start_matches("and ").trim().to_string())
        .filter(|p| p.chars().any(char::is_alphanumeric))
        .collect();
    if items.len() < 2 {
        return None;
    }
    let head_words: Vec<String> = head
        .split_whitespace()
        .filter(|w| {
            let l = w.to_lowercase();
            !is_list_verb(&l)
                && !is_plural_cue(&l)
                && !is_wh(&l)
                && !is_auxiliary(&l)
                && !matches!(l.as_str(), "the" | "a" | "an")
        })
        .map(|w| w.to_string())
        .collect();
    let head = singular(&head_words.join(" "));
    Some(
        items
            .into_iter()
            .map(|item| match item.split_once(' ') {
                Some((first, rest))
                    if matches!(first.to_lowercase().as_str(), "one" | "another" | "the")
                        && !head.is_empty() =>
                {
                    format!("{head} {rest}")
                }
                _ if head.is_empty() => item,
                _ => format!("{head}: {item}"),
            })
            .collect(),
    )
}

/// A rough singular of a phrase's last word ("programming languages" → "programming
/// language"), used only to put a head noun back in front of a list item.
fn singular(phrase: &str) -> String {
    let mut words: Vec<String> = phrase.split_whitespace().map(str::to_string).collect();
    if let Some(last) = words.last_mut() {
        if last.ends_with("ies") && last.len() > 4 {
            last.truncate(last.len() - 3);
            last.push('y');
        } else if last.ends_with("ses") || last.ends_with("xes") || last.ends_with("ches") {
            last.truncate(last.len() - 2);
        } else if last.ends_with('s') && !last.ends_with("ss") && last.len() > 3 {
            last.pop();
        }
    }
    words.join(" ")
}

fn is_short_item(tokens: &[Token]) -> bool {
    !tokens.is_empty()
        && tokens.len() <= 3
        && tokens
            .iter()
            .all(|t| t.content || t.lower.chars().any(|c| c.is_ascii_digit()))
}

/// "Which two noble gases have atomic numbers 2 and 10?" → one aspect per coordinated
/// number or name, when a plural cue says several things are asked for.
fn coordinated_items(question: &str) -> Option<Vec<String>> {
    let tokens = lexicon::tokens(question);
    if !tokens.iter().any(|t| is_plural_cue(&t.lower)) {
        return None;
    }
    let words: Vec<&str> = question
        .trim()
        .trim_end_matches('?')
        .split_whitespace()
        .collect();
    let and_at = words.iter().rposition(|w| w.eq_ignore_ascii_case("and"))?;
    let right = words.get(and_at + 1)?;
    let left = words.get(and_at.checked_sub(1)?)?;
    let anchor_like = |w: &str| {
        let t = lexicon::tokens(w);
        is_short_item(&t)
            && t.iter()
                .all(|t| t.capitalised || t.lower.chars().any(|c| c.is_ascii_digit()))
    };
    if !(anchor_like(left) && anchor_like(right)) {
        return None;
    }
    // Further list items before the left one: "1, 2 and 3".
    let mut first = and_at - 1;
    while first >= 1
        && words[first - 1].ends_with(',')
        && anchor_like(words[first - 1].trim_end_matches(','))
    {
        first -= 1;
    }
    let frame_before: Vec<&str> = words[..first]
        .iter()
        .copied()
        .filter(|w| !is_plural_cue(&w.to_lowercase()))
        .collect();
    let frame_after = &words[and_at + 2..];
    let base = focus(&frame_before.join(" "));
    let items = words[first..and_at]
        .iter()
        .map(|w| w.trim_end_matches(','))
        .chain([*right]);
    Some(
        items
            .map(|item| {
                let mut aspect = format!("{base} {item}");
                if !frame_after.is_empty() {
                    aspect.push(' ');
                    aspect.push_str(&frame_after.join(" "));
                }
                aspect.trim().to_string()
            })
            .collect(),
    )
}

/// The 1–5 aspects of `question`; none for an empty question.
pub fn extract(question: &str) -> Vec<String> {
    let q = question.trim();
    if !q.chars().any(char::is_alphanumeric) {
        return Vec::new();
    }
    let mut aspects: Vec<String> = Vec::new();
    for part in split_questions(q) {
        let found = enumeration(&part)
            .or_else(|| coordinated_items(&part))
            .unwrap_or_else(|| vec![focus(&part)]);
        for a in found {
            let a = a.trim().trim_end_matches(['?', '.', ',']).trim();
            // "I lost my card. What should I do?": the part asked ("I do") names nothing,
            // so the whole question, background included, is what must be answered.
            let names_nothing = !crate::offline::words::lexicon::tokens(a)
                .iter()
                .any(|t| t.content);
            let a = if names_nothing {
                q.trim_end_matches('?').to_string()
            } else {
                a.to_string()
            };
            if !a.is_empty() && !aspects.iter().any(|x| x.eq_ignore_ascii_case(&a)) {
                aspects.push(a);
            }
        }
    }
    aspects.truncate(MAX_ASPECTS);
    if aspects.is_empty() {
        aspects.push(q.trim_end_matches('?').to_string());
    }
    aspects
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn background_statements_before_a_question_are_not_aspects() {
        let got = extract("I won't ride over the winter. How should I store the battery?");
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].contains("store the battery"), "{got:?}");
        assert_eq!(
            extract("List the planets."),
            ["planets"],
            "a request without a question mark still counts"
        );
    }

    #[test]
    fn simple_question_has_one_focused_aspect() {
        assert_eq!(
            extract("What is the chemical symbol for gold?"),
            ["chemical symbol for gold"]
        );
        assert_eq!(
            extract("Which planet is known as the Red Planet?"),
            ["planet is known as the Red Planet"]
        );
        assert_eq!(
            extract("Does the Moon have permanent rivers?"),
            ["whether the Moon have permanent rivers"]
        );
    }

    #[test]
    fn a_contracted_wh_word_is_read_like_the_full_one() {
        assert_eq!(
            extract("What's the default page size, and how long does a cursor stay valid?"),
            ["default page size", "how long does a cursor stay valid"]
        );
        assert_eq!(extract("Who\u{2019}s the author?"), ["author"]);
    }

    #[test]
    fn two_part_question_has_two_aspects() {
        let a = extract("Which two noble gases have atomic numbers 2 and 10?");
        assert_eq!(a.len(), 2, "{a:?}");
        assert!(
            a[0].ends_with(" 2") && a[1].ends_with(" 10"),
            "one aspect per atomic number: {a:?}"
        );
        assert!(
            a.iter().all(|x| x.contains("noble gases")),
            "each keeps the question's frame: {a:?}"
        );
    }

    #[test]
    fn enumerated_and_joined_questions_split() {
        let a = extract("Name the two programming languages: one by JetBrains for the JVM, and one originally from Sun/Oracle for the JVM.");
        assert_eq!(
            a,
            [
                "programming language by JetBrains for the JVM",
                "programming language originally from Sun/Oracle for the JVM"
            ]
        );
        let b = extract("Who directed Inception and when was it released?");
        assert_eq!(b, ["directed Inception", "when was it released"]);
    }

    #[test]
    fn a_second_question_may_open_with_a_preposition() {
        let a = extract(
            "What is the admission rate for 2019, and in what year did the early programme end?",
        );
        assert_eq!(a.len(), 2, "{a:?}");
        assert!(a[1].starts_with("in what year"), "{a:?}");
        // A preposition without a wh-word after it joins nothing.
        assert_eq!(
            extract("Which shops are open on Monday and on Sunday?").len(),
            1
        );
    }

    #[test]
    fn a_comparison_is_one_need_and_empty_questions_have_none() {
        assert_eq!(
            extract("Which city is farther north: Edinburgh or Paris?").len(),
            1
        );
        assert!(extract("  ").is_empty());
        assert!(
            extract("Tell me everything about a b c d e f g h, i, j, k, l").len() <= MAX_ASPECTS
        );
    }
}
