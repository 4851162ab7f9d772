//! The kind of answer a question part asks for, when its words say so, and whether a
//! sentence states that kind: "how long" wants a duration, "how old" an age, "how
//! much / what does it cost" an amount, "what time" a clock time.
//!
//! A sentence that shares the question's topic words but states no answer of the asked
//! kind ("an adult card" for "how old must you be for an adult card?") has not covered
//! the question; one that states it in other words ("DVDs are lent for 1 week" for "how
//! long can I keep a DVD?") has answered its wh-part.
//!
//! Owns: those cues. Must not: weigh words or decide coverage (callers do).

use crate::offline::words::evidence::Sentence;

/// What a question part asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// "How long / old": a number with a unit of time.
    Duration,
    /// "How far": a number with a unit of distance.
    Distance,
    /// "How often": a frequency or a period.
    Frequency,
    /// "How much / many": any number.
    Amount,
    /// "What does it cost", "what is the fee": an amount of money, or "free".
    Price,
    /// "What time", "when does it open": a clock time.
    ClockTime,
    /// "In what year …", "since which year …": a year.
    Year,
}

impl Wanted {
    /// The question's own word that names the asked kind ("long" of "how long"), which
    /// counts as found when a sentence states that kind.
    pub fn cue_word(self, aspect: &str) -> Option<&'static str> {
        let lower = aspect.to_lowercase();
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        let candidates: &[&str] = match self {
            Wanted::Duration => &["long", "old"],
            Wanted::Distance => &["far"],
            Wanted::Frequency => &["often"],
            Wanted::Amount => &["much", "many"],
            Wanted::Price => &["cost", "costs", "price", "fee", "fees", "charge", "much"],
            Wanted::ClockTime => &["time", "hours"],
            Wanted::Year => &["year"],
        };
        candidates.iter().copied().find(|c| words.contains(c))
    }
}

/// The kind of answer `aspect` asks for, when its words say so.
pub fn wanted(aspect: &str) -> Option<Wanted> {
    let lower = aspect.trim_start().to_lowercase();
    // "for how long", "by how much": the preposition leaves the need as it is.
    let lower = match lower.split_once(' ') {
        Some((first, rest))
            if matches!(first, "for" | "by" | "in" | "at" | "from" | "until" | "to")
                && rest.starts_with("how ") =>
        {
            rest.to_string()
        }
        _ => lower,
    };
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    let money = words
        .iter()
        .any(|w| matches!(*w, "cost" | "costs" | "price" | "fee" | "fees" | "charge"));
    if let Some(rest) = lower.strip_prefix("how ") {
        let next = rest.split_whitespace().next().unwrap_or_default();
        return match next {
            "long" | "old" => Some(Wanted::Duration),
            // "How far ahead / in advance / back": a time, not a distance.
            "far"
                if words
                    .iter()
                    .any(|w| matches!(*w, "ahead" | "advance" | "back" | "beforehand")) =>
            {
                Some(Wanted::Duration)
            }
            "far" => Some(Wanted::Distance),
            "often" => Some(Wanted::Frequency),
            "much" if money || words.iter().any(|w| matches!(*w, "pay" | "charged")) => {
                Some(Wanted::Price)
            }
            "much" | "many" => Some(Wanted::Amount),
            _ => None,
        };
    }
    // "What time …", and opening hours ("the library's Saturday hours"), which a time of
    // day answers; "how many hours" asked for an amount above.
    let year_asked = words
        .windows(2)
        .take(3)
        .any(|w| matches!(w[0], "what" | "which") && w[1] == "year");
    if year_asked {
        return Some(Wanted::Year);
    }
    if lower.starts_with("what time")
        || lower.starts_with("at what time")
        || words.contains(&"hours") && !words.contains(&"many")
    {
        return Some(Wanted::ClockTime);
    }
    // "what does it cost", "what is the fee for …", "it cost" (a part split off a longer
    // question): asked about, not merely mentioned, when the part is short or opens with
    // "what".
    if money && (lower.starts_with("what") || words.len() <= 4) {
        return Some(Wanted::Price);
    }
    None
}

const TIME_UNITS: &[&str] = &[
    "second", "minute", "hour", "day", "week", "month", "year", "decade",
];
const DISTANCE_UNITS: &[&str] = &[
    "km",
    "kilometre",
    "kilometer",
    "mile",
    "metre",
    "meter",
    "m",
    "ft",
    "feet",
    "yard",
];
const FREQUENCY_WORDS: &[&str] = &[
    "every", "daily", "weekly", "monthly", "yearly", "annually", "once", "twice", "time",
];
const MONEY_WORDS: &[&str] = &[
    "euro", "cent", "dollar", "pound", "penny", "pence", "franc", "yen", "rupee", "usd", "eur",
    "gbp",
];
/// Saying the price is nothing answers "what does it cost".
const NO_CHARGE: &[&str] = &["free", "gratis", "complimentary"];

/// Whether `s` states the kind of answer `wanted` names.
pub fn states(s: &Sentence, wanted: Wanted) -> bool {
    let numbers: Vec<usize> = s
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.lower.chars().any(|c| c.is_ascii_digit())
                || t.norm.chars().all(|c| c.is_ascii_digit()) && !t.norm.is_empty()
        })
        .map(|(i, _)| i)
        .collect();
    let unit_near = |units: &[&str]| {
        numbers.iter().any(|&i| {
            s.tokens[i + 1..]
                .iter()
                .take(2)
                .any(|t| units.iter().any(|u| t.lower.trim_end_matches('s') == *u))
        })
    };
    let has_word = |list: &[&str]| {
        s.tokens
            .iter()
            .any(|t| list.contains(&t.lower.trim_end_matches('s')))
    };
    match wanted {
        Wanted::Duration => unit_near(TIME_UNITS),
        Wanted::Distance => unit_near(DISTANCE_UNITS),
        Wanted::Frequency => unit_near(TIME_UNITS) || has_word(FREQUENCY_WORDS),
        Wanted::Amount => !numbers.is_empty(),
        Wanted::Price => {
            unit_near(MONEY_WORDS)
                || s.text.contains(['$', '€', '£', '¥'])
                    && s.text.chars().any(|c| c.is_ascii_digit())
                || has_word(NO_CHARGE)
        }
        Wanted::Year => s.tokens.iter().any(|t| {
            let digits = t.lower.trim_end_matches('s');
            digits.len() == 4
                && digits
                    .parse::<u32>()
                    .is_ok_and(|y| (1000..=2100).contains(&y))
        }),
        // "Closed on Saturdays" answers for the hours of a day it is closed.
        Wanted::ClockTime => {
            has_word(&["closed"])
                || s.tokens.iter().any(|t| {
                    matches!(
                        t.lower.as_str(),
                        "am" | "pm" | "a.m" | "p.m" | "noon" | "midnight"
                    )
                })
                || s.tokens.iter().any(|t| {
                    let mut parts = t.lower.split(':');
                    matches!((parts.next(), parts.next()), (Some(h), Some(m))
                    if !h.is_empty() && !m.is_empty()
                        && h.chars().all(|c| c.is_ascii_digit())
                        && m.chars().all(|c| c.is_ascii_digit()))
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn says(text: &str, w: Wanted) -> bool {
        states(&Sentence::new(text), w)
    }

    #[test]
    fn question_words_name_the_kind_of_answer_wanted() {
        assert_eq!(wanted("How long can I keep a DVD"), Some(Wanted::Duration));
        assert_eq!(wanted("How old must I be"), Some(Wanted::Duration));
        assert_eq!(wanted("How many books can I borrow"), Some(Wanted::Amount));
        assert_eq!(wanted("for how long"), Some(Wanted::Duration));
        assert_eq!(
            wanted("How far ahead can I book a room"),
            Some(Wanted::Duration)
        );
        assert_eq!(wanted("How much does printing cost"), Some(Wanted::Price));
        assert_eq!(wanted("it cost"), Some(Wanted::Price));
        assert_eq!(
            wanted("What is the fee for a lost card"),
            Some(Wanted::Price)
        );
        assert_eq!(
            wanted("What time does the library open on weekdays"),
            Some(Wanted::ClockTime)
        );
        assert_eq!(
            wanted("the library's Saturday hours"),
            Some(Wanted::ClockTime)
        );
        assert_eq!(
            wanted("How many hours can I book a room for"),
            Some(Wanted::Amount)
        );
        assert_eq!(wanted("whether the room can be hired"), None);
        assert_eq!(
            wanted("why cost overruns happen on large building projects"),
            None
        );
    }

    #[test]
    fn a_year_is_asked_for_and_given_as_a_year() {
        assert_eq!(
            wanted("in what year did the programme end"),
            Some(Wanted::Year)
        );
        assert_eq!(wanted("Which year was it founded"), Some(Wanted::Year));
        assert_eq!(wanted("what did the year bring"), None);
        assert!(says("The programme ended in 2007.", Wanted::Year));
        assert!(says("It peaked in the 1990s.", Wanted::Year));
        assert!(!says("It admitted 5.3% of 2,000 applicants.", Wanted::Year));
    }

    #[test]
    fn a_sentence_states_the_kind_only_with_a_fitting_value() {
        assert!(says("DVDs are lent for 1 week.", Wanted::Duration));
        assert!(!says(
            "The library lends up to 12 items on an adult card.",
            Wanted::Duration
        ));
        assert!(says("We charge 15 euros per hour.", Wanted::Price));
        assert!(says("Printing is free for members.", Wanted::Price));
        assert!(says("A copy costs $2.", Wanted::Price));
        assert!(!says(
            "Printing is available on every floor.",
            Wanted::Price
        ));
        assert!(says("It opens at 9 am.", Wanted::ClockTime));
        assert!(says("Doors open at 18:30.", Wanted::ClockTime));
        assert!(!says("It opens on weekdays.", Wanted::ClockTime));
        assert!(says("You can borrow twelve items.", Wanted::Amount));
    }
}
