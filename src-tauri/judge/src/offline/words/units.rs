//! Numbers with their units: what a number measures ("30 days", "8 euros", "5 pm"), and
//! which of a claim's measured numbers no passage gives with the same unit.
//!
//! Owns: the unit classes and their aliases. Must not: decide a conflict (`conflicts`
//! reads a unit shift off these) or support (`support`).

use crate::offline::words::evidence::{Evidence, Sentence};
use crate::offline::words::lexicon;

/// Units that can stand after a number, by what they measure: two units of one class
/// after the same number ("30 days" against "30 weeks", "5 pm" against "5 am") state
/// different amounts. Units of different classes are not compared.
#[rustfmt::skip]
const UNIT_CLASSES: &[&[&str]] = &[
    &["second", "seconds", "sec", "secs", "minute", "minutes", "min", "mins", "hour", "hours",
      "hr", "hrs", "day", "days", "week", "weeks", "month", "months", "year", "years", "yr",
      "yrs", "quarter", "quarters", "fortnight"],
    &["am", "pm"],
    &["working", "business", "calendar"],
    &["mg", "g", "gram", "grams", "kg", "kilo", "kilos", "kilogram", "kilograms", "lb", "lbs",
      "oz", "ounce", "ounces", "ml", "l", "litre", "litres", "liter", "liters", "tonne",
      "tonnes", "ton", "tons", "stone"],
    &["kb", "mb", "gb", "tb", "kilobyte", "kilobytes", "megabyte", "megabytes", "gigabyte",
      "gigabytes", "terabyte", "terabytes"],
    &["mm", "cm", "m", "km", "metre", "metres", "meter", "meters", "kilometre", "kilometres",
      "mile", "miles", "mph", "ft", "foot", "feet", "inch", "inches", "yard", "yards"],
    &["euro", "euros", "eur", "dollar", "dollars", "usd", "pound", "pounds", "gbp", "yen",
      "franc", "francs", "cent", "cents", "pence"],
    &["percent", "per cent", "times"],
];

/// Spellings of one unit, mapped to one name: "mins" is "minute", "EUR" is "euro".
#[rustfmt::skip]
const UNIT_ALIASES: &[(&str, &str)] = &[
    ("sec", "second"), ("secs", "second"), ("seconds", "second"), ("min", "minute"),
    ("mins", "minute"), ("minutes", "minute"), ("hr", "hour"), ("hrs", "hour"),
    ("hours", "hour"), ("days", "day"), ("weeks", "week"), ("months", "month"),
    ("years", "year"), ("yr", "year"), ("yrs", "year"), ("quarters", "quarter"),
    ("business", "working"), ("gram", "g"), ("grams", "g"), ("kilo", "kg"), ("kilos", "kg"),
    ("kilogram", "kg"), ("kilograms", "kg"), ("lbs", "lb"), ("ounce", "oz"), ("ounces", "oz"),
    ("litre", "l"), ("litres", "l"), ("liter", "l"), ("liters", "l"), ("tonnes", "tonne"),
    ("ton", "tonne"), ("tons", "tonne"), ("kilobyte", "kb"), ("kilobytes", "kb"),
    ("megabyte", "mb"), ("megabytes", "mb"), ("gigabyte", "gb"), ("gigabytes", "gb"),
    ("terabyte", "tb"), ("terabytes", "tb"), ("metre", "m"), ("metres", "m"), ("meter", "m"),
    ("meters", "m"), ("kilometre", "km"), ("kilometres", "km"), ("miles", "mile"),
    ("foot", "ft"), ("feet", "ft"), ("inches", "inch"), ("yards", "yard"), ("euros", "euro"),
    ("eur", "euro"), ("dollars", "dollar"), ("usd", "dollar"), ("pounds", "pound"),
    ("gbp", "pound"), ("francs", "franc"), ("cents", "cent"), ("per cent", "percent"),
];

/// The class of a unit word and its one name, so "day", "days" and "DAYS" are one unit.
pub(in crate::offline) fn unit(lower: &str) -> Option<(usize, String)> {
    let class = UNIT_CLASSES.iter().position(|c| c.contains(&lower))?;
    let name = UNIT_ALIASES
        .iter()
        .find(|(alias, _)| *alias == lower)
        .map_or(lower, |(_, name)| name);
    Some((class, name.to_string()))
}

/// (number, unit class, unit) for each number followed by a unit word, and the period
/// after it ("10 dollars per day" → day), read as a unit of its own.
pub(in crate::offline) fn measured(tokens: &[lexicon::Token]) -> Vec<(String, usize, String)> {
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if !t.lower.chars().any(|c| c.is_ascii_digit()) && t.norm.parse::<f64>().is_err() {
            continue;
        }
        // A time of day ("16:00", from "4 pm") has been read with its half of the day.
        if t.norm.contains(':') && t.quantity {
            continue;
        }
        let mut j = i + 1;
        // "15 working days": the qualifier and the unit both count.
        while let Some(next) = tokens.get(j).filter(|n| !n.after_punctuation || j == i + 1) {
            match unit(&next.lower) {
                Some((class, name)) => out.push((t.norm.clone(), class, name)),
                None => break,
            }
            j += 1;
        }
        // "per day", "a year", "every week".
        if j > i + 1
            && tokens
                .get(j)
                .is_some_and(|p| matches!(p.lower.as_str(), "per" | "a" | "an" | "every" | "each"))
        {
            if let Some((class, name)) = tokens.get(j + 1).and_then(|u| unit(&u.lower)) {
                out.push((format!("{}/per", t.norm), class, name));
            }
        }
    }
    out
}

/// The numbers the claim gives with a unit ("8 euros", "3 weeks") that no sentence of
/// the item gives with that unit: "you would pay 8 euros" is not confirmed by "up to 8
/// on a children's card". A number written with a currency sign ("€8", "$8") counts
/// for any currency unit, since the sign and the word are two spellings.
pub(in crate::offline) fn unmeasured_numbers(claim: &Sentence, evidence: &Evidence) -> Vec<String> {
    // Most claims give no number with a unit: then the passages need no reading (they
    // are long, and this runs once per claim).
    let ours: Vec<(String, usize, String)> = measured(&claim.tokens)
        .into_iter()
        .filter(|(number, _, _)| !number.ends_with("/per"))
        .collect();
    if ours.is_empty() {
        return Vec::new();
    }
    let money = unit("euro").map(|(class, _)| class);
    let sentences: Vec<&Sentence> = evidence
        .passages
        .iter()
        .flat_map(|p| p.sentences.iter())
        .collect();
    let theirs: Vec<(String, usize, String)> =
        sentences.iter().flat_map(|s| measured(&s.tokens)).collect();
    let signed = |number: &str| {
        sentences.iter().any(|s| {
            s.text.match_indices(['$', '€', '£', '¥']).any(|(i, sign)| {
                let after = &s.text[i + sign.len()..];
                let digits: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
                    .collect();
                lexicon::normalise(digits.trim_end_matches(['.', ','])) == number
            })
        })
    };
    ours.into_iter()
        .filter(|(number, class, name)| {
            let stated = theirs
                .iter()
                .any(|(n, c, u)| n == number && c == class && u == name);
            let spelled_with_a_sign = Some(*class) == money && signed(number);
            !(stated || spelled_with_a_sign)
        })
        .map(|(number, _, _)| number)
        .collect()
}
