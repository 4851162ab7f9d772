//! Texts analysed once for matching: a passage (chunk, knowledge paragraph, evidence
//! sentence) split into tokenised sentences, its set of normalised words, its SQuAD
//! form for verbatim checks; and `Evidence`, the passages of one task with the
//! within-item document frequencies that weight rare words above common ones.
//!
//! Owns: analysis and lookup structures. Must not: decide support; that is `support`.

use std::collections::{HashMap, HashSet};

use crate::offline::words::lexicon::{self, Token};
use crate::offline::words::quantities;
use ragnosis_types::text;

/// One sentence of an analysed text.
#[derive(Debug, Clone)]
pub struct Sentence {
    pub text: String,
    pub tokens: Vec<Token>,
    /// Every normalised word of the sentence.
    pub norms: HashSet<String>,
}

impl Sentence {
    pub fn new(text: &str) -> Sentence {
        let mut tokens = lexicon::tokens(text);
        quantities::canonicalise(&mut tokens);
        let mut norms: HashSet<String> = tokens.iter().map(|t| t.norm.clone()).collect();
        norms.extend(quantities::implied_norms(&tokens));
        Sentence {
            text: text.to_string(),
            tokens,
            norms,
        }
    }

    /// Normalised words a negator governs: up to three content words after each "no",
    /// "not", "never", "n't" ("no liquid water" → liquid, water).
    pub fn negated_norms(&self) -> HashSet<&str> {
        let mut out = HashSet::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if denies(t) {
                let governed = self.reach(i).0.into_iter().filter(|n| n.content).take(3);
                out.extend(governed.map(|n| n.norm.as_str()));
            }
        }
        out
    }

    /// What each denial in the sentence denies: the first content word it governs (the
    /// head) and up to three content words of its reach, stopping at punctuation, "but"
    /// or another negator. A reach holding a second denial ("doesn't work without a
    /// connection") affirms, and is left out.
    pub fn negated_spans(&self) -> Vec<(&str, Vec<&str>)> {
        let mut out = Vec::new();
        // A denial inside an earlier one's reach is the second half of a double negative.
        let mut inside_reach_until = 0;
        for (i, t) in self.tokens.iter().enumerate() {
            if !denies(t) {
                continue;
            }
            let (reach, forward) = self.reach(i);
            let nested = i < inside_reach_until;
            // Only a reach that runs forward covers later denials; a clause-final "not"
            // reaches back over words already read.
            if forward {
                inside_reach_until = inside_reach_until.max(i + 1 + reach.len());
            }
            if nested || reach.iter().any(|n| denies(n)) {
                continue;
            }
            let words: Vec<&str> = reach
                .iter()
                .filter(|n| n.content)
                .take(3)
                .map(|n| n.norm.as_str())
                .collect();
            if let Some(head) = words.first() {
                out.push((*head, words.clone()));
            }
        }
        out
    }

    /// Every word (lower-cased, function words included) within four words after a
    /// denial, up to punctuation, "but" or another negator.
    pub fn denied_words(&self) -> HashSet<&str> {
        let mut out = HashSet::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if denies(t) {
                out.extend(
                    self.reach(i)
                        .0
                        .into_iter()
                        .take(4)
                        .map(|n| n.lower.as_str()),
                );
            }
        }
        out
    }

    /// The words the denial at `i` governs: those after it up to punctuation, "but" or
    /// another negator; or, when it ends its clause ("…, but the processing fee is
    /// not"), the clause before it.
    /// The second value says whether the reach runs forward.
    fn reach(&self, i: usize) -> (Vec<&Token>, bool) {
        let stops = |n: &&Token| !n.negator && n.lower != "but" && !n.after_punctuation;
        let after: Vec<&Token> = self.tokens[i + 1..].iter().take_while(stops).collect();
        let ends_clause = self
            .tokens
            .get(i + 1)
            .is_none_or(|n| n.after_punctuation || n.lower == "but");
        if !after.is_empty() || !ends_clause {
            return (after, true);
        }
        let start = self.tokens[..i]
            .iter()
            .rposition(|n| n.after_punctuation || n.lower == "but" || n.negator)
            .map_or(0, |p| {
                p + usize::from(self.tokens[p].lower == "but" || self.tokens[p].negator)
            });
        let mut before: Vec<&Token> = self.tokens[start..i].iter().collect();
        before.retain(|n| n.lower != "but");
        (before, false)
    }

    /// Whether any word denies: a negator, or "except", "excluding", "without".
    pub fn has_denial(&self) -> bool {
        self.tokens.iter().any(denies)
    }

    /// Normalised content words, first occurrence order, no repeats.
    pub fn content_norms(&self) -> Vec<&str> {
        let mut seen = HashSet::new();
        self.tokens
            .iter()
            .filter(|t| t.content && seen.insert(t.norm.as_str()))
            .map(|t| t.norm.as_str())
            .collect()
    }

    pub fn has_negator(&self) -> bool {
        self.tokens.iter().any(|t| t.negator)
    }
}

/// A negator, or an exception word that denies what it governs ("every day except
/// Sunday", "without a card").
fn denies(t: &Token) -> bool {
    t.negator || matches!(t.lower.as_str(), "except" | "excluding" | "without")
}

/// A passage analysed for matching.
#[derive(Debug, Clone)]
pub struct Passage {
    pub sentences: Vec<Sentence>,
    /// Every normalised word of the passage.
    pub norms: HashSet<String>,
    /// Lower-cased words written with a capital somewhere other than a sentence start.
    pub capitalised: HashSet<String>,
    /// Lower-cased words written in lower case somewhere.
    pub lowercase: HashSet<String>,
    /// `text::normalize_squad` of the whole passage, padded with spaces so a
    /// word-boundary search is a plain substring search.
    pub squad: String,
}

impl Passage {
    pub fn new(text: &str) -> Passage {
        let sentences: Vec<Sentence> = text::sentences(text)
            .into_iter()
            .map(Sentence::new)
            .collect();
        let mut norms = HashSet::new();
        let mut capitalised = HashSet::new();
        let mut lowercase = HashSet::new();
        for s in &sentences {
            norms.extend(s.norms.iter().cloned());
        }
        for t in sentences.iter().flat_map(|s| s.tokens.iter()) {
            if t.capitalised && !t.initial {
                capitalised.insert(t.lower.clone());
            } else if !t.capitalised {
                lowercase.insert(t.lower.clone());
            }
        }
        let squad = format!(" {} ", text::normalize_squad(text));
        Passage {
            sentences,
            norms,
            capitalised,
            lowercase,
            squad,
        }
    }

    /// Whether `phrase` (already SQuAD-normalised, non-empty) occurs in the passage at
    /// word boundaries.
    pub fn contains_squad(&self, phrase: &str) -> bool {
        !phrase.is_empty() && self.squad.contains(&format!(" {phrase} "))
    }
}

/// The passages of one task and how many of them contain each normalised word.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub passages: Vec<Passage>,
    df: HashMap<String, usize>,
    capitalised: HashSet<String>,
    lowercase: HashSet<String>,
    /// Numbers the question gives ("I paid 260 EUR"): an answer may restate them.
    given: HashSet<String>,
    /// The question's numbers as values.
    given_values: Vec<f64>,
    /// The passages' numbers, for what arithmetic makes of them.
    numbers: Vec<f64>,
}

impl Evidence {
    pub fn new<S: AsRef<str>>(texts: &[S]) -> Evidence {
        let passages: Vec<Passage> = texts.iter().map(|t| Passage::new(t.as_ref())).collect();
        let mut df: HashMap<String, usize> = HashMap::new();
        let mut capitalised = HashSet::new();
        let mut lowercase = HashSet::new();
        for p in &passages {
            for n in &p.norms {
                *df.entry(n.clone()).or_default() += 1;
            }
            capitalised.extend(p.capitalised.iter().cloned());
            lowercase.extend(p.lowercase.iter().cloned());
        }
        let numbers = passages
            .iter()
            .flat_map(|p| p.sentences.iter())
            .flat_map(|s| quantities::numbers(&s.tokens))
            .collect();
        Evidence {
            passages,
            df,
            capitalised,
            lowercase,
            given: HashSet::new(),
            given_values: Vec::new(),
            numbers,
        }
    }

    /// The same passages, with the numbers `question` gives: an answer restating "your
    /// 260 EUR ticket" or working with it states nothing the passages must hold.
    pub fn with_question(mut self, question: &str) -> Evidence {
        let asked = Sentence::new(question);
        self.given = asked
            .tokens
            .iter()
            .filter(|t| t.norm.chars().any(|c| c.is_ascii_digit()))
            .map(|t| t.norm.clone())
            .collect();
        self.given_values = quantities::numbers(&asked.tokens).collect();
        self
    }

    /// Whether a number that no passage states is given by the question, or made by one
    /// step of arithmetic on a number the text itself states (`operands`: the claim's
    /// other numbers) or the question gives, with another of those or of the passages'.
    /// One operand must be the text's own or the question's: any two of a long passage's
    /// numbers make almost any number, and a swapped figure would pass as a total.
    pub fn works_out(&self, norm: &str, operands: &[f64]) -> bool {
        if self.given.contains(norm) {
            return true;
        }
        let Ok(target) = norm.parse::<f64>() else {
            return false;
        };
        let firsts = || operands.iter().chain(&self.given_values);
        firsts().any(|a| {
            self.numbers
                .iter()
                .chain(firsts())
                .any(|b| quantities::combines(*a, *b, target))
        })
    }

    pub fn len(&self) -> usize {
        self.passages.len()
    }

    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }

    /// Inverse document frequency within the item, smoothed so a word found in every
    /// passage still weighs something and a word found nowhere weighs the most.
    pub fn idf(&self, norm: &str) -> f64 {
        let n = self.passages.len() as f64;
        let df = self.df.get(norm).copied().unwrap_or(0) as f64;
        ((n + 1.0) / (df + 0.5)).ln().max(0.0) + 1.0
    }

    /// Whether some passage contains the normalised word.
    pub fn contains(&self, norm: &str) -> bool {
        self.df.contains_key(norm)
    }

    /// Whether some passage writes `lower` with a capital letter mid-sentence.
    pub fn capitalised_somewhere(&self, lower: &str) -> bool {
        self.capitalised.contains(lower)
    }

    /// Whether some passage writes `lower` in lower case.
    pub fn lowercase_somewhere(&self, lower: &str) -> bool {
        self.lowercase.contains(lower)
    }
}

/// A short quote of at most `max_words` words of `text`, with "…" when cut.
pub fn quote(text: &str, max_words: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= max_words {
        return words.join(" ");
    }
    format!("{}…", words[..max_words].join(" "))
}

/// A quote of at most `max_words` words of `sentence` centred on the tokens whose
/// normalised form is in `focus`, so the quote shows the matching part.
pub fn quote_around(sentence: &str, focus: &HashSet<&str>, max_words: usize) -> String {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    if words.len() <= max_words {
        return words.join(" ");
    }
    let hits: Vec<usize> = words
        .iter()
        .enumerate()
        .filter(|(_, w)| {
            lexicon::tokens(w)
                .iter()
                .any(|t| focus.contains(t.norm.as_str()))
        })
        .map(|(i, _)| i)
        .collect();
    let centre = if hits.is_empty() {
        0
    } else {
        (hits[0] + hits[hits.len() - 1]) / 2
    };
    let start = centre
        .saturating_sub(max_words / 2)
        .min(words.len() - max_words);
    let body = words[start..start + max_words].join(" ");
    let lead = if start > 0 { "…" } else { "" };
    let tail = if start + max_words < words.len() {
        "…"
    } else {
        ""
    };
    format!("{lead}{body}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rare_words_weigh_more_than_words_every_passage_shares() {
        let e = Evidence::new(&[
            "Gold is an element.",
            "Copper is an element.",
            "Gold is yellow.",
        ]);
        assert!(
            e.idf("copper") > e.idf("gold"),
            "copper is in one passage, gold in two"
        );
        assert!(
            e.idf("element") > 0.0,
            "a word in every passage still counts a little"
        );
    }

    #[test]
    fn verbatim_lookup_respects_word_boundaries() {
        let p = Passage::new("Gold has the symbol Au.");
        assert!(p.contains_squad("symbol au"));
        assert!(
            !p.contains_squad("old has"),
            "a phrase must start at a word boundary"
        );
    }

    #[test]
    fn quotes_are_capped_and_centred_on_the_match() {
        let focus: HashSet<&str> = ["amper"].into_iter().collect();
        let q = quote_around(
            "one two three four five six seven eight nine ten eleven the ampere unit",
            &focus,
            5,
        );
        assert!(
            q.contains("ampere"),
            "the quote shows the matching word: {q}"
        );
        assert!(q.split_whitespace().count() <= 5);
    }
}
