//! Claim splitting: an answer (or ground truth) becomes the atomic statements the other
//! modules check. Sentences first; then coordinated clauses are split, conservatively:
//! only at a semicolon, or at a comma + conjunction that starts a new clause with its
//! own subject, so "Helium and Neon" and "the publisher and editorial director" stay
//! whole. Questions, greetings, agreement ("Yes.", "I agree.") and abstentions
//! ("I don't know.") assert nothing and are dropped.
//!
//! Owns: what counts as a claim and whether an answer abstains. Must not: look at
//! evidence.

use crate::offline::words::lexicon::{self, Token};
use crate::offline::words::speech::{self, Act};
use crate::offline::words::vocabulary;
use ragnosis_types::text;

/// Conjunctions after which a new clause may start.
const CLAUSE_CONJUNCTIONS: &[&str] = &[
    "and", "but", "while", "whereas", "although", "though", "so", "yet",
];

/// Words that open a clause with its own subject.
fn is_subject_start(t: &Token) -> bool {
    matches!(
        t.lower.as_str(),
        "he" | "she"
            | "it"
            | "they"
            | "we"
            | "i"
            | "you"
            | "this"
            | "these"
            | "those"
            | "there"
            | "that"
            | "the"
            | "a"
            | "an"
            | "his"
            | "her"
            | "its"
            | "their"
            | "our"
            | "my"
    ) || (t.capitalised && !t.initial)
        || t.lower.chars().next().is_some_and(|c| c.is_ascii_digit())
}

/// Interjections that may open a sentence without being part of the claim.
fn is_leading_interjection(lower: &str) -> bool {
    matches!(
        lower,
        "yes"
            | "yeah"
            | "yep"
            | "yea"
            | "no"
            | "nope"
            | "well"
            | "oh"
            | "ok"
            | "okay"
            | "so"
            | "lol"
            | "haha"
            | "hmm"
            | "sure"
            | "right"
            | "true"
            | "indeed"
            | "actually"
            | "and"
            | "but"
            | "also"
            | "wow"
            | "agreed"
            | "hi"
            | "hello"
            | "hey"
            | "sorry"
            | "unfortunately"
            | "certainly"
            | "absolutely"
            | "great"
            | "thanks"
    )
}

/// Removes opening interjections ("Yes, ", "Well, ", "Oh! ") so the claim reads as the
/// statement it is. A "No" is removed only when punctuation follows it: "No rivers
/// flow" keeps its determiner.
pub fn strip_interjections(sentence: &str) -> &str {
    let mut rest = sentence.trim();
    loop {
        let word_end = rest
            .find(|c: char| !c.is_alphanumeric() && c != '\'')
            .unwrap_or(rest.len());
        let word = rest[..word_end].to_lowercase();
        let after = &rest[word_end..];
        let punctuated = after.starts_with([',', '!', '.', ';', ':'])
            || after.trim_start().to_lowercase().starts_with("but ");
        let always = matches!(
            word.as_str(),
            "yes" | "yeah" | "yep" | "yea" | "oh" | "lol" | "haha" | "wow" | "hi" | "hello" | "hey"
        );
        if word_end == 0
            || !is_leading_interjection(&word)
            || !(punctuated || always)
            || after.trim().is_empty()
        {
            return rest;
        }
        rest = after
            .trim_start_matches([',', '!', '.', ';', ':', ' '])
            .trim_start();
    }
}

/// True when the sentence declines: a refusal or an "I cannot tell" answer, in any
/// wording `speech` recognises.
pub fn is_abstention_sentence(sentence: &str) -> bool {
    speech::act(sentence) == Act::Decline
}

/// Opening hedges that frame a statement as the speaker's belief; the statement after
/// them is still a claim about the world ("I believe the office opens at 9").
const HEDGE_OPENERS: &[&str] = &[
    "i think that ",
    "i think ",
    "i believe that ",
    "i believe ",
    "i understand that ",
    "i understand ",
    "as far as i know ",
    "i'm fairly sure that ",
    "i'm fairly sure ",
    "i'm pretty sure that ",
    "i'm pretty sure ",
    "to my knowledge, ",
];

/// The statement inside a hedged sentence, or the sentence itself: an opening hedge
/// ("I think …"), or a hedge set off by a comma before or after the statement ("As far
/// as I can tell, …", "Just 24 hours, I believe.").
fn strip_hedge(sentence: &str) -> &str {
    let opened = HEDGE_OPENERS
        .iter()
        .find(|h| {
            sentence.len() > h.len() + 3
                && sentence
                    .get(..h.len())
                    .is_some_and(|p| p.eq_ignore_ascii_case(h))
        })
        .map_or(sentence, |h| sentence[h.len()..].trim_start());
    let mut body = opened;
    if let Some((head, rest)) = body.split_once(", ") {
        if is_hedge_clause(head) && rest.chars().any(char::is_alphanumeric) {
            body = rest.trim_start();
        }
    }
    if let Some((statement, tail)) = body.rsplit_once(", ") {
        if is_hedge_clause(tail) && statement.chars().any(char::is_alphanumeric) {
            // The sentence's closing stop goes with the hedge; the statement keeps none,
            // as a clause split from its sentence does.
            body = statement.trim_end();
        }
    }
    body
}

/// Words a hedge clause is made of: the speaker, a verb of believing, knowing or
/// seeing, and the few words that frame one ("as far as I can tell", "if I remember
/// correctly", "I'm fairly sure", "I'd say").
#[rustfmt::skip]
const HEDGE_WORDS: &[&str] = &[
    "i", "i'm", "im", "i'd", "i've", "am", "as", "far", "from", "what", "if", "can", "could",
    "do", "would", "fairly", "pretty", "quite", "reasonably", "correctly", "that",
];

/// The verbs (and "sure") that make a clause of `HEDGE_WORDS` a hedge.
#[rustfmt::skip]
const BELIEF_WORDS: &[&str] = &[
    "think", "believe", "understand", "know", "gather", "reckon", "guess", "suppose",
    "tell", "see", "remember", "recall", "sure", "say",
];

/// Whether `clause` only frames what is said as the speaker's belief: a first-person
/// subject and a verb of believing, and nothing that could be a statement about the
/// world ("I believe", "as far as I can tell", "if I remember correctly").
fn is_hedge_clause(clause: &str) -> bool {
    let words = plain_words(clause, usize::MAX);
    let first_person = words.iter().any(|w| vocabulary::is_first_person(w));
    let believes = words.iter().any(|w| BELIEF_WORDS.contains(&w.as_str()));
    first_person
        && believes
        && words.len() <= 7
        && words
            .iter()
            .all(|w| HEDGE_WORDS.contains(&w.as_str()) || BELIEF_WORDS.contains(&w.as_str()))
}

/// Phrases that frame how a statement is said, not what it says ("In short, …", "To put
/// it plainly, …", "For the record, …"); the statement after them is the claim.
#[rustfmt::skip]
const FRAMING_OPENERS: &[&str] = &[
    "to put it plainly", "to put it simply", "to put it briefly", "put simply", "simply put",
    "plainly put", "for the record", "in short", "in brief", "in summary", "to sum up",
    "to summarise", "to summarize", "in a nutshell", "long story short", "in other words",
    "to be clear", "to be precise", "to be honest", "to be fair", "frankly", "honestly",
    "basically", "essentially", "in essence", "in fact", "as a matter of fact",
    "needless to say", "at the end of the day", "all in all", "bottom line", "the short answer is",
    "the short version is", "the gist is", "simply", "quite simply", "as it happens",
];

/// The statement after opening framing phrases, which may be chained with "and" or
/// commas ("To put it plainly and for the record, the office opens at 9" → "the office
/// opens at 9"). Only a chain closed by a comma (or "is") is removed: "Basically
/// everything is on sale" keeps its words.
fn strip_framing(sentence: &str) -> &str {
    // ASCII lower-casing keeps byte offsets, so positions in `lower` cut `sentence`.
    let lower = sentence.to_ascii_lowercase();
    let (mut at, mut kept) = (0, 0);
    while let Some(opener) = FRAMING_OPENERS.iter().find(|o| {
        lower[at..]
            .strip_prefix(**o)
            .is_some_and(|r| r.starts_with([',', ' ', ':']))
    }) {
        at += opener.len();
        let rest = &lower[at..];
        if let Some(r) = rest.strip_prefix(", and ").or(rest.strip_prefix(" and ")) {
            at = lower.len() - r.len();
        } else if let Some(r) = rest.strip_prefix(", ").or(rest.strip_prefix(": ")) {
            at = lower.len() - r.len();
            kept = at;
        } else if opener.ends_with(" is") {
            at += 1;
            kept = at;
        } else {
            break;
        }
    }
    let statement = sentence[kept..].trim_start();
    if statement.split_whitespace().count() >= 2 {
        statement
    } else {
        sentence
    }
}

/// Whether a sentence is about the provided documents themselves ("The documents only
/// cover shipping", "They list the service centres but say nothing about …").
fn describes_sources(sentence: &str) -> bool {
    const SUBJECTS: &[&str] = &[
        "they",
        "the documents",
        "the provided documents",
        "these documents",
        "the context",
        "the contexts",
        "the provided context",
        "the sources",
        "the passages",
        "the retrieved",
        "the information provided",
        "the provided information",
        "the documentation",
        "the text",
        "the excerpts",
        "it only",
        "they only",
    ];
    const VERBS: &[&str] = &[
        "list", "mention", "say", "cover", "describe", "discuss", "explain", "contain", "include",
        "talk", "state", "address", "refer", "only", "focus", "deal",
    ];
    let lower = sentence.trim().to_lowercase();
    let Some(rest) = SUBJECTS
        .iter()
        .find_map(|s| lower.strip_prefix(s).filter(|r| r.starts_with(' ')))
    else {
        return false;
    };
    rest.split_whitespace().take(3).any(|w| {
        VERBS.iter().any(|v| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .starts_with(v)
        })
    })
}

/// True when the sentence asserts nothing checkable: a question, or no content word,
/// number or name at all ("Yes.", "I agree!", "Hello").
fn asserts_nothing(sentence: &str) -> bool {
    if sentence.trim_end().ends_with('?') {
        return true;
    }
    let tokens = lexicon::tokens(sentence);
    // A short lead-in to a list ("Here's how:", "Your options are:") introduces what
    // follows; the items say it.
    let lead_in = sentence.trim_end().ends_with(':')
        && tokens.len() <= 5
        && !tokens
            .iter()
            .any(|t| t.lower.chars().any(|c| c.is_ascii_digit()));
    if lead_in {
        return true;
    }
    let reaction = tokens.len() <= 5
        && tokens
            .iter()
            .any(|t| vocabulary::is_reaction_word(&t.lower))
        && tokens
            .iter()
            .all(|t| !t.content || vocabulary::is_reaction_word(&t.lower));
    reaction
        || !tokens
            .iter()
            .any(|t| t.content || t.lower.chars().any(|c| c.is_ascii_digit()))
}

/// Whether `text` opens with an outright "yes" ("Yes, each sick day …").
pub fn opens_with_yes(text: &str) -> bool {
    leading_yes_no(text) == Some(true)
}

/// The yes or no an answer opens with, past interjections and a speaker's hedge:
/// "Sure! Yes, …" and "I think so, yes" say yes; "I'm afraid not", "I don't think so"
/// and "I believe not" say no. `None` when it opens with neither.
pub fn leading_yes_no(text: &str) -> Option<bool> {
    let words = plain_words(text, 12);
    // Past the interjections that open a sentence, and the "there" of "Hi there".
    let at = words.iter().position(|w| {
        matches!(w.as_str(), "yes" | "yeah" | "yep" | "no" | "nope")
            || !(is_leading_interjection(w) || w == "there")
    })?;
    match words[at].as_str() {
        "yes" | "yeah" | "yep" => return Some(true),
        "no" | "nope" => return Some(false),
        w if !vocabulary::is_first_person(w) => return None,
        _ => {}
    }
    // The speaker's hedge: a verb of believing (or "afraid"), then "so" (yes, unless a
    // negator came before it) or "not" (no).
    let (mut believes, mut denied) = (false, false);
    for w in words.iter().skip(at + 1).take(5) {
        match w.as_str() {
            "so" if believes => return Some(!denied),
            "not" if believes => return Some(false),
            "do" | "am" => {}
            w if vocabulary::is_negator(w) => denied = true,
            "afraid" => believes = true,
            w if BELIEF_WORDS.contains(&w) => believes = true,
            _ => return None,
        }
    }
    None
}

/// The first `n` words of `text`, lower-cased, without the punctuation around them
/// (apostrophes kept, typographic ones made plain).
fn plain_words(text: &str, n: usize) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '\u{2019}')
                .to_lowercase()
                .replace('\u{2019}', "'")
        })
        .filter(|w| !w.is_empty())
        .take(n)
        .collect()
}

/// A bare "yes" or "no" answer, as its polarity (`Some(true)` for yes).
pub fn yes_no(text: &str) -> Option<bool> {
    let tokens = lexicon::tokens(text);
    let first = tokens.first()?;
    let rest_has_content = tokens[1..].iter().any(|t| t.content);
    match first.lower.as_str() {
        "yes" | "yeah" | "yep" | "correct" | "true" if !rest_has_content => Some(true),
        "no" | "nope" | "false" | "incorrect" if !rest_has_content => Some(false),
        _ => None,
    }
}

/// A question answered by yes or no ("Is it ...?", "Can I ...?", "Does the warranty ...?"):
/// it opens with an auxiliary or modal verb rather than a wh-word.
pub fn asks_yes_no(question: &str) -> bool {
    let tokens = lexicon::tokens(question);
    let Some(first) = tokens.first() else {
        return false;
    };
    let first = first.lower.as_str();
    vocabulary::is_auxiliary(first) || matches!(first, "am" | "shall" | "must")
}

/// A short answer without a verb ("Au", "Helium and Neon", "Edinburgh"): it only means
/// something read together with its question.
pub fn is_fragment(text: &str) -> bool {
    let sentences = text::sentences(text);
    if sentences.len() != 1 {
        return false;
    }
    let tokens = lexicon::tokens(sentences[0]);
    let verb_like = tokens.iter().any(|t| {
        let w = t.lower.as_str();
        vocabulary::is_auxiliary(w)
            || matches!(w, "be" | "been" | "must" | "it's" | "there's")
            || (w.len() > 4 && w.ends_with("ed"))
    });
    !tokens.is_empty() && tokens.len() <= 6 && !verb_like
}

/// Splits a sentence at clause boundaries: every semicolon, and a comma followed by a
/// conjunction and a new subject, when both halves keep at least three words.
fn split_clauses(sentence: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in sentence.split(';') {
        let mut rest = piece.trim();
        'scan: loop {
            let mut search_from = 0;
            while let Some(pos) = rest[search_from..].find(", ") {
                let comma = search_from + pos;
                let after = &rest[comma + 2..];
                let tokens = lexicon::tokens(after);
                let left_words = lexicon::tokens(&rest[..comma]).len();
                let splits = tokens.len() >= 4
                    && left_words >= 3
                    && CLAUSE_CONJUNCTIONS.contains(&tokens[0].lower.as_str())
                    && is_subject_start(&tokens[1]);
                if splits {
                    parts.push(rest[..comma].trim().to_string());
                    let conj_len = tokens[0].surface.len();
                    rest = after[conj_len..].trim_start();
                    continue 'scan;
                }
                search_from = comma + 2;
            }
            break;
        }
        parts.push(rest.to_string());
    }
    parts
        .into_iter()
        .map(|p| p.trim().trim_end_matches([',', ';']).trim().to_string())
        .filter(|p| p.chars().any(char::is_alphanumeric))
        .collect()
}

/// The atomic claims of `text`, in order. A bare "Yes"/"No" or a verbless short answer
/// is kept as one claim: it is the whole answer and means something with its question.
pub fn split(text: &str) -> Vec<String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    let mut claims = Vec::new();
    let abstains = text::sentences(trimmed)
        .iter()
        .any(|s| is_abstention_sentence(s));
    for sentence in text::sentences(trimmed) {
        // Beside a refusal, "They list the service centres but say nothing about gift
        // cards" reports on the documents, not on the world: it explains the refusal.
        if is_abstention_sentence(sentence) || (abstains && describes_sources(sentence)) {
            continue;
        }
        // Greetings, thanks, sign-offs, offers of help, bare referrals ("Please contact
        // the finance team.") and questions back state nothing a context could back.
        if !speech::act(sentence).is_claim() {
            continue;
        }
        let body = strip_hedge(strip_framing(strip_interjections(sentence)));
        for clause in split_clauses(body) {
            if !asserts_nothing(&clause) {
                claims.push(clause);
            }
        }
    }
    if claims.is_empty()
        && !abstains
        && (yes_no(trimmed).is_some() || is_fragment(trimmed))
        && !trimmed.ends_with('?')
        && text::sentences(trimmed)
            .iter()
            .all(|s| speech::act(s).is_claim())
    {
        claims.push(trimmed.trim_end_matches(['.', '!']).to_string());
    }
    claims
}

/// Whether the answer declines to answer: it is empty, its first sentence that does more
/// than greet, thank or refer is a refusal, or nothing but refusals is left once they
/// are set aside. "Returns are accepted within 30 days. The policy says nothing about
/// sale items." answers, with a caveat.
pub fn abstains(answer: &str) -> bool {
    let acts: Vec<Act> = text::sentences(answer)
        .into_iter()
        .map(speech::act)
        .filter(|a| matches!(a, Act::Claim | Act::Decline))
        .collect();
    let Some(first) = acts.first() else {
        return text::sentences(answer).is_empty();
    };
    *first == Act::Decline || (acts.contains(&Act::Decline) && split(answer).is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_new_clauses_become_separate_claims() {
        let claims = split(
            "Paris is the capital of France. It has 2 million people, and it hosts the Louvre.",
        );
        assert_eq!(
            claims,
            [
                "Paris is the capital of France.",
                "It has 2 million people",
                "it hosts the Louvre."
            ]
        );
    }

    #[test]
    fn coordinated_names_and_noun_phrases_stay_whole() {
        assert_eq!(split("Helium and Neon"), ["Helium and Neon"]);
        let c = split("Arnold is the publisher and editorial director of Media Play News.");
        assert_eq!(c.len(), 1, "no comma + new subject, so no split: {c:?}");
    }

    #[test]
    fn an_abstention_and_its_account_of_the_documents_make_no_claims() {
        // nw-021 of the bundled example: a correct abstention is not a hallucination.
        let answer =
            "I don't know based on the provided documents. They list the service centres and how \
                      to book a service, but say nothing about gift cards.";
        assert!(split(answer).is_empty(), "{:?}", split(answer));
        assert!(abstains(answer));
        // Without a refusal, the same kind of sentence is an ordinary claim.
        assert_eq!(split("They list four cities.").len(), 1);
    }

    #[test]
    fn questions_greetings_agreement_and_abstentions_are_not_claims() {
        assert!(split("Hello! Did you see it? I agree. That's true. Interesting!").is_empty());
        assert_eq!(
            split("No but it has 92% on Rotten Tomatoes."),
            ["but it has 92% on Rotten Tomatoes."]
        );
        assert!(split("I don't know.").is_empty());
        assert_eq!(
            split("Yes, there are several liquid rivers."),
            ["there are several liquid rivers."]
        );
        assert!(split("").is_empty() && split("   ").is_empty());
    }

    #[test]
    fn framing_words_and_a_closing_summary_add_no_claim() {
        assert_eq!(
            split("To put it plainly and for the record, the office opens at 9. That is simply what it comes down to."),
            vec!["the office opens at 9."]
        );
        assert_eq!(
            split("In short: refunds take five days."),
            vec!["refunds take five days."]
        );
        // Without a comma the opener is part of the statement.
        assert_eq!(
            split("Basically everything is on sale."),
            vec!["Basically everything is on sale."]
        );
        assert_eq!(
            split("The short answer is yes, dogs are welcome."),
            vec!["yes, dogs are welcome."]
        );
    }

    #[test]
    fn a_hedge_before_or_after_the_statement_is_not_part_of_the_claim() {
        assert_eq!(
            split("As far as I can tell, a replacement card costs 15 pounds."),
            ["a replacement card costs 15 pounds."]
        );
        assert_eq!(
            split("The library opens at 9, if I remember correctly."),
            ["The library opens at 9"]
        );
        let fragment = split("Just 24 hours, I believe.");
        assert_eq!(fragment.len(), 1);
        assert!(!fragment[0].contains('I'), "{fragment:?}");
        // A clause about the world that happens to name the speaker is kept whole.
        assert_eq!(
            split("The desk closes at 5, I was told by the porter."),
            ["The desk closes at 5, I was told by the porter."]
        );
    }

    #[test]
    fn a_lead_in_to_a_list_is_no_claim() {
        assert_eq!(
            split("Sure! Here's how:\n1. Hold the button for 10 seconds.\n2. Wait."),
            ["Hold the button for 10 seconds.", "Wait."]
        );
        assert_eq!(split("Opening times: 9 to 5."), ["Opening times: 9 to 5."]);
    }

    #[test]
    fn a_yes_or_no_is_read_past_interjections_and_a_hedge() {
        assert_eq!(
            leading_yes_no("Sure! Yes, carrier bags go in the blue bin."),
            Some(true)
        );
        assert_eq!(
            leading_yes_no("I think so, yes. Claims need evidence."),
            Some(true)
        );
        assert_eq!(leading_yes_no("Hi there, no - it is closed."), Some(false));
        assert_eq!(leading_yes_no("I'm afraid not."), Some(false));
        assert_eq!(leading_yes_no("I don't think so."), Some(false));
        assert_eq!(leading_yes_no("I believe not."), Some(false));
        assert_eq!(leading_yes_no("I think the office opens at 9."), None);
        assert_eq!(leading_yes_no("Sure, the office opens at 9."), None);
        assert_eq!(leading_yes_no("Nope."), Some(false));
    }

    #[test]
    fn a_bare_answer_is_one_claim() {
        assert_eq!(split("Au"), ["Au"]);
        assert_eq!(split("Yes"), ["Yes"]);
        assert_eq!(yes_no("No."), Some(false));
        assert_eq!(yes_no("Yes, rivers flow."), None, "more than a bare yes");
        assert!(is_fragment("Helium and Neon") && !is_fragment("The Eiffel Tower is tall."));
    }

    #[test]
    fn abstention_is_detected() {
        assert!(abstains("I don't know."));
        assert!(abstains(
            "The answer cannot be determined from the provided documents."
        ));
        assert!(abstains("There is not enough information to answer."));
        assert!(!abstains("Copper is the better conductor."));
        assert!(abstains(""), "an empty answer asserts nothing");
    }
}
