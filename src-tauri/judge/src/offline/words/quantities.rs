//! Quantities said in other words. A help-desk answer restates its passage's figures in
//! the reader's words: "an hour and a half" for "90 minutes", "two weeks" for "14 days",
//! "half past three in the afternoon" for "15:30", "Tuesday" under "Sunday–Thursday", a
//! yearly cost worked out from a monthly one. Read word by word, each of those is a
//! number the passages never state, and a correct answer reads as a made-up figure.
//!
//! Owns: the comparison form (`Token::norm`) of the tokens that make up a duration or a
//! time of day, the words a range implies (the days of "Sunday–Thursday", the zones of
//! "A–C"), and the numbers one step of arithmetic makes of given ones. Must not: decide
//! support; `support` asks whether a number is stated, given or worked out.
//!
//! Comparison forms: durations of minutes and hours in minutes, of days, weeks and
//! fortnights in days, of months and years in months; times of day as 24-hour "HH:MM",
//! converted only when the text says which half of the day ("pm", "in the afternoon").

use crate::offline::words::lexicon::{self, Token};

/// The unit a duration is compared in, and how many of it one `word` is.
fn duration_unit(lower: &str) -> Option<(&'static str, f64)> {
    Some(match lower {
        "minute" | "minutes" | "min" | "mins" => ("minutes", 1.0),
        "hour" | "hours" | "hr" | "hrs" => ("minutes", 60.0),
        "day" | "days" => ("days", 1.0),
        "week" | "weeks" => ("days", 7.0),
        "fortnight" | "fortnights" => ("days", 14.0),
        "month" | "months" => ("months", 1.0),
        "year" | "years" => ("months", 12.0),
        _ => return None,
    })
}

/// The value of a token that states a number: digits, a number word, or "a"/"an"/"one"
/// before a unit (the caller decides that).
fn value(t: &Token) -> Option<f64> {
    if t.quantity {
        return None;
    }
    match t.lower.as_str() {
        "a" | "an" | "one" => Some(1.0),
        _ => t.norm.parse::<f64>().ok().filter(|v| v.is_finite()),
    }
}

/// A number as `lexicon::normalise` writes one: no separators, no trailing zeros.
pub fn format_number(v: f64) -> String {
    let rounded = (v * 100.0).round() / 100.0;
    let s = format!("{rounded:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Rewrites, in place, the comparison form of every duration and time of day in one
/// sentence's tokens; the words they consume ("past", "in the afternoon", "and a half")
/// stop counting as content, since the other wording has none of them.
pub fn canonicalise(tokens: &mut [Token]) {
    times_of_day(tokens);
    durations(tokens);
}

fn consume(t: &mut Token) {
    t.content = false;
    t.quantity = true;
}

fn set_number(t: &mut Token, norm: String) {
    t.norm = norm;
    t.quantity = true;
    t.content = true;
}

/// Words after which "a day", "an hour" is an amount of time, not a rate.
fn leads_duration(lower: &str) -> bool {
    matches!(
        lower,
        "for"
            | "within"
            | "in"
            | "after"
            | "than"
            | "over"
            | "under"
            | "about"
            | "around"
            | "nearly"
            | "almost"
            | "least"
            | "most"
            | "to"
            | "only"
            | "just"
            | "takes"
            | "take"
            | "lasts"
            | "last"
            | "is"
            | "are"
            | "be"
            | "of"
            | "by"
            | "until"
    )
}

/// Words that may stand between a number and its unit without changing it.
fn qualifier(lower: &str) -> bool {
    matches!(
        lower,
        "working" | "business" | "calendar" | "full" | "whole" | "more" | "extra"
    )
}

// long: one scan over the tokens; each wording of an amount (a number, "a", "half an", "and a
// half" before or after the unit) is read where it stands
fn durations(tokens: &mut [Token]) {
    for i in 0..tokens.len() {
        let Some((unit, factor)) = duration_unit(&tokens[i].lower) else {
            continue;
        };
        // "12-year-old", "3-day" describe something.
        if tokens[i].hyphen_before || tokens[i].quantity {
            continue;
        }
        let mut at = i;
        while at > 0 && qualifier(&tokens[at - 1].lower) {
            at -= 1;
        }
        if at == 0 {
            continue;
        }
        let n = at - 1;
        let lower = |k: usize| tokens.get(k).map_or("", |t| t.lower.as_str());
        let half_an = matches!(lower(n), "a" | "an") && n >= 1 && lower(n - 1) == "half";
        // "one and a half hours": the whole number three words before.
        let and_half_before =
            lower(n) == "half" && n >= 3 && lower(n - 1) == "a" && lower(n - 2) == "and";
        let (mut amount, first) = if half_an {
            (0.5, n - 1)
        } else if and_half_before {
            match value(&tokens[n - 3]) {
                Some(whole) => (whole + 0.5, n - 3),
                None => continue,
            }
        } else {
            match value(&tokens[n]) {
                Some(v) => (v, n),
                None => continue,
            }
        };
        let article = matches!(lower(first), "a" | "an" | "one");
        let before = first.checked_sub(1).map(|k| &tokens[k]);
        // "within an hour" is a duration; "£500 a day", "two days a year" and "once a
        // fortnight" are rates. An article counts as one of a unit only after a word
        // that leads a duration.
        if article && !before.is_none_or(|b| leads_duration(&b.lower)) {
            continue;
        }
        // "an hour and a half".
        let and_a_half = lower(i + 1) == "and" && lower(i + 2) == "a" && lower(i + 3) == "half";
        if and_a_half {
            amount += 0.5;
        }
        let norm = format_number(amount * factor);
        tokens[first..=n].iter_mut().for_each(consume);
        set_number(&mut tokens[first], norm);
        let u = &mut tokens[i];
        u.lower = unit.to_string();
        u.norm = lexicon::normalise(unit);
        u.quantity = true;
        if and_a_half {
            tokens[i + 1..=i + 3].iter_mut().for_each(consume);
        }
    }
}

/// The hour and minute of a clock reading: "15:30", "9:00", "5.30pm", "4pm", and the
/// half of the day it names, if any (`Some(true)` for pm).
fn clock(lower: &str) -> Option<(u32, u32, Option<bool>)> {
    let (body, pm) = if let Some(b) = lower.strip_suffix("pm") {
        (b, Some(true))
    } else if let Some(b) = lower.strip_suffix("am") {
        (b, Some(false))
    } else {
        (lower, None)
    };
    let (h, m) = match body.split_once([':', '.']) {
        // "3.50" is an amount unless am or pm says it is a time.
        Some((_, _)) if body.contains('.') && pm.is_none() => return None,
        Some((h, m)) if m.len() == 2 => (h.parse().ok()?, m.parse().ok()?),
        Some(_) => return None,
        None if pm.is_some() => (body.parse().ok()?, 0),
        None => return None,
    };
    (h <= 24 && m < 60).then_some((h, m, pm))
}

fn word_hour(t: &Token) -> Option<u32> {
    t.norm.parse::<u32>().ok().filter(|h| (1..=12).contains(h))
}

/// The 24-hour hour of a 12-hour reading in the given half of the day.
fn in_half(h: u32, pm: bool) -> u32 {
    match (h, pm) {
        (12, false) => 0,
        (12, true) => 12,
        (h, true) if h < 12 => h + 12,
        (h, _) => h,
    }
}

/// After a time at `i`: "pm", "p.m.", "in the afternoon", "at night": which half of the
/// day, and how many tokens say it.
fn half_of_day(tokens: &[Token], i: usize) -> Option<(bool, usize)> {
    let lower = |k: usize| tokens.get(k).map_or("", |t| t.lower.as_str());
    match lower(i + 1) {
        "pm" => return Some((true, 1)),
        "am" => return Some((false, 1)),
        "p" if lower(i + 2) == "m" => return Some((true, 2)),
        "a" if lower(i + 2) == "m" => return Some((false, 2)),
        _ => {}
    }
    let part = |w: &str| match w {
        "morning" => Some(false),
        "afternoon" | "evening" => Some(true),
        _ => None,
    };
    if lower(i + 1) == "in" && lower(i + 2) == "the" {
        return part(lower(i + 3)).map(|pm| (pm, 3));
    }
    (lower(i + 1) == "at" && lower(i + 2) == "night").then_some((true, 2))
}

// long: one scan over the tokens; each wording of a time (a clock reading, "N pm", "half past
// N", "noon") is read where it stands, with the half of the day after it
fn times_of_day(tokens: &mut [Token]) {
    let mut i = 0;
    while i < tokens.len() {
        let lower = tokens[i].lower.clone();
        if matches!(lower.as_str(), "noon" | "midday" | "midnight") {
            let norm = if lower == "midnight" {
                "00:00"
            } else {
                "12:00"
            };
            set_number(&mut tokens[i], norm.to_string());
            i += 1;
            continue;
        }
        // "half past three", "quarter to five".
        let (minute, hour_at) = match (lower.as_str(), tokens.get(i + 1).map(|t| t.lower.as_str()))
        {
            ("half", Some("past")) => (Some(30i32), i + 2),
            ("quarter", Some("past")) => (Some(15), i + 2),
            ("quarter", Some("to")) => (Some(-15), i + 2),
            _ => (None, i),
        };
        let read = if let Some(minute) = minute {
            tokens.get(hour_at).and_then(word_hour).map(|h| {
                let (h, m) = if minute < 0 {
                    ((h + 11) % 12, (60 + minute) as u32)
                } else {
                    (h, minute as u32)
                };
                (h, m, None, hour_at)
            })
        } else if let Some((h, m, pm)) = clock(&lower) {
            Some((h, m, pm, i))
        } else {
            // "4 pm", "five in the afternoon", "9 o'clock".
            word_hour(&tokens[i]).and_then(|h| {
                let oclock = tokens.get(i + 1).is_some_and(|t| t.lower == "o'clock");
                (half_of_day(tokens, i).is_some() || oclock).then_some((h, 0, None, i))
            })
        };
        let Some((h, m, pm, last)) = read else {
            i += 1;
            continue;
        };
        let mut end = last;
        if tokens.get(end + 1).is_some_and(|t| t.lower == "o'clock") {
            end += 1;
        }
        let half = pm.or_else(|| {
            half_of_day(tokens, end).map(|(pm, n)| {
                end += n;
                pm
            })
        });
        let hour = match half {
            Some(pm) if h <= 12 => in_half(h, pm),
            _ => h,
        };
        let norm = format!("{hour:02}:{m:02}");
        tokens[i..=end].iter_mut().for_each(consume);
        set_number(&mut tokens[last], norm);
        i = end + 1;
    }
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];

fn weekday(lower: &str) -> Option<usize> {
    let short = match lower {
        "mon" => "monday",
        "tue" | "tues" => "tuesday",
        "wed" => "wednesday",
        "thu" | "thur" | "thurs" => "thursday",
        "fri" => "friday",
        "sat" => "saturday",
        "sun" => "sunday",
        other => other.strip_suffix('s').unwrap_or(other),
    };
    WEEKDAYS.iter().position(|d| *d == short)
}

fn days(range: impl Iterator<Item = usize>) -> impl Iterator<Item = String> {
    range.map(|d| lexicon::normalise(WEEKDAYS[d % 7]))
}

/// The words a sentence implies without writing them, added to what it can match: each
/// day of a range of days ("Sunday–Thursday", "Mon to Fri", "weekdays", "daily"), each
/// letter of a range of letters ("zones A–C") and each whole number of a short range
/// ("aged 12 to 17"). "Tuesday" is then found in "Sunday–Thursday: every 60 minutes".
pub fn implied_norms(tokens: &[Token]) -> Vec<String> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.lower.as_str() {
            "weekday" | "weekdays" => out.extend(days(0..5)),
            "weekend" | "weekends" => out.extend(days(5..7)),
            "daily" => out.extend(days(0..7)),
            "every" if tokens.get(i + 1).is_some_and(|n| n.lower == "day") => {
                out.extend(days(0..7))
            }
            _ => {}
        }
        // The range's end: right after ("Sunday–Thursday", whose dash splits nothing
        // else), or after "to", "through", "until".
        let end = match tokens.get(i + 1) {
            Some(n)
                if matches!(
                    n.lower.as_str(),
                    "to" | "through" | "thru" | "until" | "till"
                ) =>
            {
                tokens.get(i + 2)
            }
            Some(n) if !n.after_punctuation => Some(n),
            _ => None,
        };
        let Some(end) = end else { continue };
        if let (Some(a), Some(b)) = (weekday(&t.lower), weekday(&end.lower)) {
            let span = (b + 7 - a) % 7;
            out.extend(days(a..=a + span));
        } else if let (Some(a), Some(b)) = (letter(t), letter(end)) {
            if a < b && (b as u32 - a as u32) <= 10 {
                out.extend((a..=b).map(|c| c.to_string()));
            }
        } else if let (Ok(a), Ok(b)) = (t.norm.parse::<u32>(), end.norm.parse::<u32>()) {
            let whole = !t.lower.contains(['.', ':']) && !end.lower.contains(['.', ':']);
            if whole && a < b && b - a <= 31 {
                out.extend((a..=b).map(|n| n.to_string()));
            }
        }
    }
    out
}

/// A single capital letter used as a label ("zone B"), lower-cased.
fn letter(t: &Token) -> Option<char> {
    let mut chars = t.surface.chars();
    let c = chars.next()?;
    (chars.next().is_none() && c.is_ascii_uppercase()).then(|| c.to_ascii_lowercase())
}

/// Whether one step of arithmetic on `a` and `b` makes `target`: their sum, difference,
/// product, quotient or `a` percent of `b`, compared in hundredths. An answer that works
/// out a total, a yearly cost or a refund states a number no passage does, and it is not
/// made up.
pub fn combines(a: f64, b: f64, target: f64) -> bool {
    let same = |v: f64| v.is_finite() && ((v - target) * 100.0).abs() < 0.5;
    same(a + b)
        || same((a - b).abs())
        || same(a * b)
        || same(a * b / 100.0)
        || (b != 0.0 && same(a / b))
        || (a != 0.0 && same(b / a))
}

/// The numbers a text states, as values (durations and times in their comparison form;
/// times of day are not amounts and are left out).
pub fn numbers(tokens: &[Token]) -> impl Iterator<Item = f64> + '_ {
    tokens
        .iter()
        .filter(|t| t.lower.chars().any(|c| c.is_ascii_digit()) || t.quantity)
        .filter(|t| !t.norm.contains(':'))
        .filter_map(|t| t.norm.parse::<f64>().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norms(text: &str) -> Vec<String> {
        let mut tokens = lexicon::tokens(text);
        canonicalise(&mut tokens);
        tokens
            .iter()
            .filter(|t| t.quantity && t.content)
            .map(|t| t.norm.clone())
            .collect()
    }

    #[test]
    fn durations_in_other_units_meet() {
        assert_eq!(
            norms("It lasts an hour and a half."),
            norms("It lasts 90 minutes.")
        );
        assert_eq!(norms("within two weeks"), norms("within 14 days"));
        assert_eq!(norms("valid for a year"), norms("valid for 12 months"));
        assert_eq!(norms("half an hour"), norms("30 minutes"));
        assert_eq!(norms("one and a half hours"), norms("90 min"));
        assert_eq!(norms("3 working days"), norms("three days"));
        assert_ne!(norms("two weeks"), norms("two days"));
    }

    #[test]
    fn a_rate_is_not_a_duration() {
        assert!(norms("up to £500 a day").iter().all(|n| n != "1"));
        assert!(norms("twice a week").is_empty());
        assert!(norms("a 12-year-old child").is_empty());
    }

    #[test]
    fn times_of_day_meet_in_24_hour_form() {
        assert_eq!(norms("after half past three in the afternoon"), ["15:30"]);
        assert_eq!(norms("after 15:30 UK time"), ["15:30"]);
        assert_eq!(norms("at 4 pm"), ["16:00"]);
        assert_eq!(norms("at 4pm"), ["16:00"]);
        assert_eq!(norms("by 5.30pm"), ["17:30"]);
        assert_eq!(norms("from 9:00"), ["09:00"]);
        assert_eq!(norms("at noon"), ["12:00"]);
        assert_eq!(norms("five in the morning"), ["05:00"]);
        assert!(norms("costs 3.50").is_empty(), "an amount is not a time");
    }

    #[test]
    fn ranges_imply_their_members() {
        let implied = |text: &str| implied_norms(&lexicon::tokens(text));
        assert!(
            implied("Sunday–Thursday: every 60 minutes").contains(&lexicon::normalise("tuesday"))
        );
        assert!(implied("Friday to Sunday").contains(&lexicon::normalise("saturday")));
        assert!(!implied("Monday, Wednesday").contains(&lexicon::normalise("tuesday")));
        assert!(implied("open daily").contains(&lexicon::normalise("sunday")));
        assert!(implied("zones A–C").contains(&"b".to_string()));
        assert!(implied("children aged 12 to 17").contains(&"13".to_string()));
    }

    #[test]
    fn one_step_of_arithmetic_combines_two_numbers() {
        assert!(combines(260.0, 30.0, 230.0), "a refund less a fee");
        assert!(combines(2.75, 2000.0, 55.0), "a percentage of an amount");
        assert!(combines(12.0, 12.0, 144.0), "a monthly cost for a year");
        assert!(combines(2.0, 3.1, 6.2));
        assert!(!combines(4.0, 28.0, 102.0));
    }
}
