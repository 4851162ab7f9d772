//! The style judgements of `AnswerReview`: clarity (readability, sentence length,
//! vagueness, shouting, doubled words), coherence (self-contradiction, non-sequitur,
//! restating the question) and conciseness (repeated sentences and phrases, filler,
//! unrelated padding). Justified length is never penalised.
//!
//! Owns: those three scores with their issues. Must not: judge relevance or facts.

use std::collections::HashSet;

use crate::offline::words::evidence::{self, Sentence};
use crate::offline::words::vocabulary;
use ragnosis_types::text;

pub(in crate::offline) fn content_set(s: &Sentence) -> HashSet<String> {
    s.content_norms().into_iter().map(str::to_string).collect()
}

/// Starts by referring back ("It", "This", "Therefore"): it continues the previous
/// sentence or answers the question directly.
pub(in crate::offline) fn refers_back(s: &Sentence) -> bool {
    s.tokens
        .first()
        .is_some_and(|t| vocabulary::is_back_reference(&t.lower))
}

pub(in crate::offline) fn clarity(
    answer: &str,
    sentences: &[Sentence],
    vague: &[&str],
    short_direct: bool,
) -> (f64, Vec<String>, Vec<String>) {
    let words = text::words(answer);
    let mut issues = Vec::new();
    let mut suggestions = Vec::new();
    let mut score = if words.len() <= 3 {
        if short_direct {
            0.9
        } else {
            0.7
        }
    } else {
        readability(&words, sentences, &mut issues, &mut suggestions)
    };
    if !vague.is_empty() {
        score -= 0.3 + 0.1 * (vague.len() - 1) as f64;
        // Nothing but hedges ("It depends, kind of."): the answer commits to nothing.
        let hedge_words: HashSet<String> = vague.iter().flat_map(|h| text::words(h)).collect();
        if sentences
            .iter()
            .flat_map(|s| s.tokens.iter())
            .filter(|t| t.content)
            .all(|t| hedge_words.contains(&t.lower))
        {
            score = score.min(0.3);
        }
        issues.push(format!(
            "The answer is vague: \"{}\".",
            vague.join("\", \"")
        ));
        suggestions.push(
            "Commit to a direct answer and state the condition it depends on, if any.".into(),
        );
    }
    let letters: Vec<char> = answer.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() > 12
        && letters.iter().filter(|c| c.is_uppercase()).count() * 10 > letters.len() * 7
    {
        score -= 0.2;
        issues.push("The answer is written in capitals.".into());
        suggestions.push("Use normal capitalisation.".into());
    }
    // Compared as written: "the THE World Reputation Rankings" names the magazine THE.
    let written: Vec<&str> = answer
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    if written.windows(2).any(|w| {
        w[0] == w[1]
            && w[0].chars().all(char::is_alphabetic)
            && !matches!(w[0].to_lowercase().as_str(), "that" | "had")
    }) {
        score -= 0.1;
        issues.push("A word is repeated twice in a row.".into());
        suggestions.push("Proofread for doubled words.".into());
    }
    (score, issues, suggestions)
}

/// The clarity score of a text of more than three words from its Flesch reading ease
/// and its sentence length, with the issues and suggestions they raise.
fn readability(
    words: &[String],
    sentences: &[Sentence],
    issues: &mut Vec<String>,
    suggestions: &mut Vec<String>,
) -> f64 {
    let syllables: usize = words.iter().map(|w| text::syllables(w)).sum();
    let per_sentence = words.len() as f64 / sentences.len().max(1) as f64;
    let fre = 206.835 - 1.015 * per_sentence - 84.6 * syllables as f64 / words.len() as f64;
    let mut s = if fre >= 60.0 {
        1.0
    } else if fre >= 30.0 {
        0.75 + 0.25 * (fre - 30.0) / 30.0
    } else {
        0.5 + 0.25 * fre.max(0.0) / 30.0
    };
    if fre < 30.0 {
        issues.push(format!(
            "The text is hard to read (Flesch reading ease {fre:.0}).",
        ));
        suggestions.push("Use shorter words and sentences.".into());
    }
    if per_sentence > 30.0 {
        s -= 0.15;
        issues.push(format!(
            "Sentences are long ({per_sentence:.0} words on average)."
        ));
        suggestions.push("Split long sentences.".into());
    }
    // Long words and long sentences make a text harder, not unclear: a faithful
    // copy of a dense legal or technical passage must not read as a generation
    // failure (below 0.5) on its length alone. Vagueness, shouting and slips can
    // still take it lower.
    s.max(0.5)
}

pub(in crate::offline) fn coherence(
    sentences: &[Sentence],
    q_terms: &HashSet<String>,
) -> (f64, Vec<String>) {
    let mut score: f64 = 1.0;
    let mut issues = Vec::new();
    let openers: Vec<&str> = sentences
        .iter()
        .filter_map(|s| s.tokens.first().map(|t| t.lower.as_str()))
        .collect();
    let says_yes = openers.iter().any(|o| matches!(*o, "yes" | "yeah" | "yep"));
    // "No rivers flow" opens with a determiner; only a bare or comma-marked "No" answers.
    let says_no = sentences.iter().any(|s| {
        let l = s.text.to_lowercase();
        (s.tokens.len() <= 2 && matches!(s.tokens[0].lower.as_str(), "no" | "nope"))
            || l.starts_with("no,")
            || l.starts_with("nope")
    });
    if says_yes && says_no {
        score -= 0.5;
        issues.push("It answers both \"yes\" and \"no\".".into());
    }
    let sets: Vec<HashSet<String>> = sentences.iter().map(content_set).collect();
    'pairs: for i in 0..sentences.len() {
        for j in i + 1..sentences.len() {
            let shared = sets[i].intersection(&sets[j]).count();
            let union = sets[i].union(&sets[j]).count().max(1);
            if shared >= 2
                && shared * 2 >= union
                && sentences[i].has_negator() != sentences[j].has_negator()
            {
                score -= 0.5;
                issues.push(format!(
                    "It contradicts itself: \"{}\" versus \"{}\".",
                    evidence::quote(&sentences[i].text, 12),
                    evidence::quote(&sentences[j].text, 12)
                ));
                break 'pairs;
            }
        }
    }
    if sentences.len() > 1 {
        let mut jumps = 0;
        for (i, s) in sentences.iter().enumerate() {
            let linked = sets[i].iter().any(|n| q_terms.contains(n))
                || refers_back(s)
                || sets
                    .iter()
                    .enumerate()
                    .any(|(j, o)| j != i && !sets[i].is_disjoint(o));
            if !linked && !sets[i].is_empty() && jumps < 2 {
                jumps += 1;
                score -= 0.2;
                issues.push(format!(
                    "\"{}\" does not connect to the question or the rest.",
                    evidence::quote(&s.text, 12)
                ));
            }
        }
    }
    let all: HashSet<&String> = sets.iter().flatten().collect();
    if all.len() >= 3 && all.iter().all(|n| q_terms.contains(*n)) {
        score -= 0.3;
        issues.push("It only restates the question.".into());
    }
    (score, issues)
}

pub(in crate::offline) fn conciseness(
    answer: &str,
    sentences: &[Sentence],
    lower: &str,
    off_topic: usize,
) -> (f64, Vec<String>) {
    let mut score: f64 = 1.0;
    let mut issues = Vec::new();
    let mut seen = HashSet::new();
    let repeats = sentences
        .iter()
        .filter(|s| !seen.insert(text::normalize_squad(&s.text)))
        .count();
    if repeats > 0 {
        score -= (0.3 * repeats as f64).min(0.6);
        issues.push(format!(
            "{repeats} sentence(s) repeat an earlier one word for word."
        ));
    }
    let words = text::words(answer);
    if words.len() >= 12 {
        let grams: Vec<&[String]> = words.windows(3).collect();
        let unique: HashSet<&[String]> = grams.iter().copied().collect();
        let repeated = 1.0 - unique.len() as f64 / grams.len() as f64;
        if repeated > 0.15 {
            score -= (repeated * 1.2).min(0.5);
            issues.push(format!(
                "{:.0}% of its three-word phrases are repeats.",
                repeated * 100.0
            ));
        }
    }
    // One phrase said over and over ("the supplied 4 A Northwind charger" five times) is
    // padding even when the sentences around it differ.
    if let Some((phrase, count)) = most_repeated_phrase(&words, 4).filter(|(_, n)| *n >= 3) {
        score -= (0.15 * (count - 2) as f64).min(0.4);
        issues.push(format!("The phrase \"{phrase}\" comes {count} times."));
    }
    let fillers: Vec<&str> = vocabulary::FILLER_PHRASES
        .iter()
        .copied()
        .filter(|f| vocabulary::contains_phrase(lower, f))
        .collect();
    if !fillers.is_empty() {
        score -= (0.1 * fillers.len() as f64).min(0.3);
        issues.push(format!("Filler: \"{}\".", fillers.join("\", \"")));
    }
    if off_topic > 0 && sentences.len() > 1 {
        score -= (0.1 * off_topic as f64).min(0.3);
        issues.push(format!(
            "{off_topic} sentence(s) pad the answer with unrelated content."
        ));
    }
    (score, issues)
}

/// The `n`-word phrase said most often (first met wins a tie), with its count.
fn most_repeated_phrase(words: &[String], n: usize) -> Option<(String, usize)> {
    let mut counts: std::collections::HashMap<&[String], (usize, usize)> =
        std::collections::HashMap::new();
    for (i, gram) in words.windows(n).enumerate() {
        counts.entry(gram).or_insert((0, i)).0 += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
        .map(|(gram, (count, _))| (gram.join(" "), count))
}

#[cfg(test)]
mod tests {
    use crate::offline::answer::review::review;

    fn aspects(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn vague_answer_has_low_clarity() {
        let r = review(
            "Is copper a better conductor than iron?",
            "It depends, kind of.",
            &aspects(&["whether copper a better conductor than iron"]),
            None,
        );
        assert!(r.clarity < 0.5, "{r:?}");
        assert!(
            r.clarity_issues.iter().any(|i| i.contains("it depends")),
            "{:?}",
            r.clarity_issues
        );
    }

    #[test]
    fn a_long_dense_sentence_is_hard_to_read_but_not_a_failure() {
        let answer = "Tymnet was an international data communications network headquartered in \
            San Jose that utilized virtual call packet switched technology and used X.25, \
            SNA/SDLC, BSC and ASCII interfaces to connect host computers at thousands of large \
            companies, educational institutions, and government agencies.";
        let r = review("What was Tymnet?", answer, &aspects(&["Tymnet"]), None);
        assert!(!r.clarity_issues.is_empty(), "{r:?}");
        assert!((0.5..0.75).contains(&r.clarity), "{r:?}");
        // A doubled word still costs, compared as written: "the THE" names a magazine.
        let slip = review(
            "Who ranks it?",
            "It is ranked by the the magazine.",
            &aspects(&["ranks it"]),
            None,
        );
        let acronym = review(
            "Who ranks it?",
            "It is ranked by the THE magazine.",
            &aspects(&["ranks it"]),
            None,
        );
        assert!(slip.clarity < acronym.clarity, "{slip:?} / {acronym:?}");
    }

    #[test]
    fn a_phrase_said_again_and_again_is_padding() {
        // nw-023 of the bundled example: five mentions of the same charger.
        let r = review(
            "Which charger should I use for my battery?",
            "You should use the charger that came with your bike, which is the supplied 4 A Northwind charger. \
             It is important to use only the supplied 4 A Northwind charger, because the supplied 4 A Northwind \
             charger is the charger that is meant for your battery. In other words, the right charger is the \
             supplied 4 A Northwind charger. To summarise, please use only the supplied 4 A Northwind charger and \
             charge between 10 °C and 30 °C, and again, always use the supplied 4 A Northwind charger.",
            &aspects(&["which charger to use for the battery"]),
            None,
        );
        assert!(r.conciseness < 0.5, "{r:?}");
        assert!(
            r.conciseness_issues
                .iter()
                .any(|i| i.contains("supplied 4 a")),
            "{:?}",
            r.conciseness_issues
        );
        let once = review(
            "Which charger should I use for my battery?",
            "Use the supplied 4 A Northwind charger. Charge between 10 °C and 30 °C.",
            &aspects(&["which charger to use for the battery"]),
            None,
        );
        assert!(once.conciseness >= 0.9, "{once:?}");
    }

    #[test]
    fn repetitive_answer_is_not_concise() {
        let r = review(
            "What is the capital of France?",
            "Paris is the capital of France. Paris is the capital of France. Paris is the capital of France.",
            &aspects(&["capital of France"]),
            None,
        );
        assert!(r.conciseness < 0.5, "{r:?}");
        let tight = review(
            "What is the capital of France?",
            "Paris is the capital of France.",
            &aspects(&["capital of France"]),
            None,
        );
        assert!(tight.conciseness >= 0.9, "{tight:?}");
    }

    #[test]
    fn self_contradiction_lowers_coherence() {
        let r = review(
            "Does the Moon have rivers?",
            "The Moon has liquid rivers. The Moon has no liquid rivers.",
            &aspects(&["whether the Moon have rivers"]),
            None,
        );
        assert!(r.coherence <= 0.5, "{r:?}");
        let ok = review(
            "Does the Moon have rivers?",
            "No. The Moon is airless and dry, so water cannot stay liquid.",
            &aspects(&["whether the Moon have rivers"]),
            None,
        );
        assert!(ok.coherence >= 0.8, "{ok:?}");
    }
}
