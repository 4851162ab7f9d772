//! Word-level analysis the offline judge shares: surface-preserving tokens (the
//! capitalisation is what tells a name from a common word), a light stemmer so
//! "directed" meets "directs", number words as digits, negators, and the small phrase
//! lists (discourse markers, abstentions, fillers) the other modules look up.
//!
//! Owns: turning one sentence into `Token`s. Must not: know about claims, passages or
//! verdicts. Word boundaries follow `ragnosis_types::text::words` (apostrophes inside words,
//! separators inside numbers) so counts agree with the lexical metrics.

use crate::offline::words::vocabulary::{is_filler_word, is_negator};
use ragnosis_types::text;

/// One word of a sentence, as written and as compared.
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    /// As written ("Paris", "6,650").
    pub surface: String,
    /// Lower-cased surface.
    pub lower: String,
    /// What matching compares: stemmed, numbers without separators, number words as
    /// digits ("rivers" → "river", "6,650" → "6650", "three" → "3").
    pub norm: String,
    /// Starts with an upper-case letter.
    pub capitalised: bool,
    /// First word of its sentence (its capital letter says nothing about names).
    pub initial: bool,
    /// Carries topic: not a stop word, negator or discourse filler.
    pub content: bool,
    /// "no", "not", "never", "n't", ...
    pub negator: bool,
    /// A comma, colon, semicolon, bracket or quote separates it from the previous word
    /// ("Paris, France"); hyphens and slashes do not ("year-round").
    pub after_punctuation: bool,
    /// A hyphen joins it to the previous word ("12-year-old": "year", "old").
    pub hyphen_before: bool,
    /// A hyphen joins it to the next word ("12-year-old": "12", "year").
    pub hyphen_after: bool,
    /// Part of a duration or time of day whose comparison form `quantities` wrote
    /// ("an hour and a half": "an" is 90, "hour" is minutes, "and a half" consumed).
    pub quantity: bool,
}

/// Splits one sentence into tokens with the same boundaries as `text::words`.
pub fn tokens(sentence: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut last_end = 0;
    let mut prev = ' ';
    let mut iter = sentence.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let next = iter.peek().map(|&(_, n)| n).unwrap_or(' ');
        if c.is_alphanumeric() {
            start.get_or_insert(i);
        } else if let Some(s) = start {
            let joins_word =
                matches!(c, '\'' | '\u{2019}') && prev.is_alphabetic() && next.is_alphabetic();
            let joins_number =
                matches!(c, '.' | ',' | ':') && prev.is_numeric() && next.is_numeric();
            if !(joins_word || joins_number) {
                push_token(&mut out, &sentence[s..i], &sentence[last_end..s]);
                start = None;
                last_end = i;
            }
        }
        prev = c;
    }
    if let Some(s) = start {
        push_token(&mut out, &sentence[s..], &sentence[last_end..s]);
    }
    unmark_bounds(&mut out);
    unmark_conditions(&mut out);
    out
}

/// "No more than 4", "not later than Friday", "not only": a limit or an addition, not a
/// denial. "You can borrow up to 4 DVDs" agrees with "no more than 4 may be DVDs".
fn unmark_bounds(tokens: &mut [Token]) {
    const COMPARATIVES: &[&str] = &[
        "more", "less", "fewer", "later", "earlier", "longer", "sooner", "greater", "higher",
        "lower", "older", "younger", "over", "under",
    ];
    for i in 0..tokens.len() {
        if !tokens[i].negator || !matches!(tokens[i].lower.as_str(), "no" | "not") {
            continue;
        }
        let next = tokens.get(i + 1).map(|t| t.lower.as_str());
        let bound = next.is_some_and(|w| COMPARATIVES.contains(&w))
            && tokens.get(i + 2).is_some_and(|t| t.lower == "than");
        if bound || next == Some("only") {
            tokens[i].negator = false;
        }
    }
}

/// "If you don't pass limit, you get 25 items": a negator inside the condition of an "if"
/// clause denies nothing, it names the case the rest of the sentence is about. Read as a
/// denial, it made "don't pass limit" contradict "pass limit (default 25)". The condition
/// runs from "if" to the next punctuation.
fn unmark_conditions(tokens: &mut [Token]) {
    let mut in_condition = false;
    for t in tokens.iter_mut() {
        if t.after_punctuation {
            in_condition = false;
        }
        if t.lower == "if" {
            in_condition = true;
        } else if in_condition && t.negator {
            t.negator = false;
        }
    }
}

fn push_token(out: &mut Vec<Token>, surface: &str, gap: &str) {
    let lower = surface.to_lowercase().replace('\u{2019}', "'");
    let negator = is_negator(&lower);
    let content = !negator && !text::is_stop_word(&lower) && !is_filler_word(&lower);
    let hyphen_before = !out.is_empty() && gap == "-";
    if hyphen_before {
        if let Some(previous) = out.last_mut() {
            previous.hyphen_after = true;
        }
    }
    out.push(Token {
        hyphen_before,
        hyphen_after: false,
        quantity: false,
        surface: surface.to_string(),
        norm: normalise(&lower),
        capitalised: surface.chars().next().is_some_and(char::is_uppercase),
        initial: out.is_empty(),
        content,
        negator,
        after_punctuation: !out.is_empty()
            && gap.chars().any(|c| {
                matches!(
                    c,
                    ',' | ';'
                        | ':'
                        | '.'
                        | '!'
                        | '?'
                        | '('
                        | ')'
                        | '"'
                        | '['
                        | ']'
                        | '\u{201C}'
                        | '\u{201D}'
                )
            }),
        lower,
    });
}

/// The comparison form of a lower-cased word (see `Token::norm`).
pub fn normalise(lower: &str) -> String {
    if lower.chars().any(|c| c.is_ascii_digit()) {
        return normalise_number(lower);
    }
    if let Some(d) = number_word(lower) {
        return d.to_string();
    }
    let stemmed = stem(lower.trim_end_matches("'s"));
    synonym(&stemmed).map_or(stemmed, str::to_string)
}

/// A handful of everyday equivalences that lexical matching would otherwise miss
/// ("movie" for "film"). Deliberately tiny: each entry must be a true synonym in
/// almost every context.
fn synonym(stemmed: &str) -> Option<&'static str> {
    Some(match stemmed {
        "movie" | "movi" => "film",
        "kid" => "child",
        "childre" => "child",
        "begin" | "began" | "begun" => "start",
        "large" => "big",
        "purchas" => "buy",
        // An overdue book is a late one; staff are the employees.
        "overdu" => "lat",
        "staff" => "employe",
        // To notify or inform someone is to tell them.
        "notify" | "inform" => "tell",
        "bought" => "buy",
        _ => return None,
    })
}

/// "6,650" → "6650", "3.50" → "3.5", "21st" → "21". Years and decades stay as written.
fn normalise_number(lower: &str) -> String {
    let mut s: String = lower.chars().filter(|&c| c != ',').collect();
    for suffix in ["st", "nd", "rd", "th"] {
        if s.len() > suffix.len()
            && s.ends_with(suffix)
            && s[..s.len() - suffix.len()]
                .chars()
                .all(|c| c.is_ascii_digit())
        {
            s.truncate(s.len() - suffix.len());
        }
    }
    if s.contains('.') && s.chars().all(|c| c.is_ascii_digit() || c == '.') {
        let trimmed = s.trim_end_matches('0').trim_end_matches('.');
        s = trimmed.to_string();
    }
    s
}

fn number_word(w: &str) -> Option<u32> {
    const WORDS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    const TENS: [&str; 7] = [
        "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    WORDS
        .iter()
        .position(|&x| x == w)
        .map(|i| i as u32)
        .or_else(|| {
            TENS.iter()
                .position(|&x| x == w)
                .map(|i| 30 + 10 * i as u32)
        })
}

/// A deliberately light English stemmer: strips plural, past, gerund and adverb
/// endings, then keeps at most the first seven letters so "publisher" / "published" /
/// "publishing" agree. Conflating a few unrelated words is the price of catching
/// ordinary inflection without a dictionary.
pub fn stem(word: &str) -> String {
    let mut w = word.to_string();
    let len = w.chars().count();
    // Four-letter plurals too ("days", "fees", "DVDs"), but not the few short words whose
    // final s is no plural ("this", "plus", "news").
    if len == 4 && w.ends_with('s') && !matches!(w.as_str(), "news" | "does" | "goes") {
        if !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is") {
            w.pop();
        }
    } else if len > 4 {
        if w.ends_with("ies") {
            w.truncate(w.len() - 3);
            w.push('y');
        } else if w.ends_with("sses")
            || w.ends_with("xes")
            || w.ends_with("ches")
            || w.ends_with("shes")
        {
            w.truncate(w.len() - 2);
        } else if w.ends_with('s') && !w.ends_with("ss") && !w.ends_with("us") && !w.ends_with("is")
        {
            w.truncate(w.len() - 1);
        }
    }
    // "carried", "applied": the y the plural and the past tense share.
    if w.ends_with("ied") && w.chars().count() >= 6 {
        w.truncate(w.len() - 3);
        w.push('y');
    }
    for suffix in ["ing", "ed", "ly"] {
        if w.ends_with(suffix) && w.chars().count() >= suffix.len() + 4 {
            w.truncate(w.len() - suffix.len());
            break;
        }
    }
    if w.ends_with('e') && w.chars().count() >= 4 {
        w.pop();
    }
    w.chars().take(7).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_keep_capitalisation_and_mark_sentence_start() {
        let t = tokens("The Eiffel Tower isn't in London.");
        let surfaces: Vec<&str> = t.iter().map(|t| t.surface.as_str()).collect();
        assert_eq!(
            surfaces,
            ["The", "Eiffel", "Tower", "isn't", "in", "London"]
        );
        assert!(
            t[0].initial && !t[1].initial,
            "only the first word is sentence-initial"
        );
        assert!(t[1].capitalised && t[5].capitalised && !t[4].capitalised);
        assert!(t[3].negator, "a n't contraction negates");
        let bound = tokens("No more than 4 may be DVDs, and not only books.");
        assert!(
            bound.iter().all(|t| !t.negator),
            "a limit and an addition deny nothing"
        );
        assert!(tokens("There is no charge.")[2].negator);
        assert!(!t[0].content && t[1].content, "stop words carry no topic");
    }

    #[test]
    fn normalisation_meets_inflections_numbers_and_number_words() {
        assert_eq!(normalise("rivers"), normalise("river"));
        assert_eq!(normalise("gases"), normalise("gas"));
        assert_eq!(normalise("days"), normalise("day"));
        assert_eq!(normalise("DVDs".to_lowercase().as_str()), normalise("dvd"));
        assert_eq!(normalise("carried"), normalise("carry"));
        assert_eq!(normalise("notified"), normalise("tell"));
        assert_eq!(normalise("applied"), normalise("applies"));
        assert_ne!(normalise("news"), normalise("new"));
        assert_eq!(normalise("this"), "this");
        assert_eq!(normalise("directed"), normalise("directing"));
        assert_eq!(normalise("publisher"), normalise("published"));
        assert_eq!(normalise("6,650"), "6650");
        assert_eq!(normalise("3.50"), "3.5");
        assert_eq!(normalise("three"), "3");
        assert_eq!(normalise("21st"), "21");
        assert_ne!(normalise("paris"), normalise("london"));
    }
}
