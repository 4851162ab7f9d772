//! The offline judge's vocabulary: small closed word classes and phrase lists that
//! English lexical judgement needs beyond `text::is_stop_word` — negators, first-person
//! words, conversational fillers and reactions, sentence openers that name nothing,
//! months, and the phrases of abstention, padding and vagueness.
//!
//! Owns: these lists and the phrase search. Must not: grow into a dictionary; every
//! entry is a function word or a fixed phrase, never a topic word.

/// Words that negate what follows them (plus any "n't" contraction).
#[rustfmt::skip]
const NEGATORS: &[&str] = &[
    "no", "not", "never", "none", "nothing", "nobody", "neither", "nor", "cannot", "n't", "nt",
];

/// The auxiliary and modal verbs a clause leans on: what opens a yes-or-no question,
/// what follows a wh-word, what makes a short answer a sentence. Each reader adds the
/// few it needs beyond these ("am", "shall", "must", "been").
#[rustfmt::skip]
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "do", "does", "did", "has", "have", "had", "can", "could",
    "will", "would", "should", "may", "might",
];

/// First-person singular words: a sentence with one speaks about the speaker. The
/// plural is left out on purpose: in an answer "we" and "our" are the organisation's
/// own voice ("We accept returns within 30 days", against a passage saying "Our return
/// policy ..."), a claim its documents can confirm.
#[rustfmt::skip]
const FIRST_PERSON: &[&str] = &[
    "i", "me", "my", "mine", "myself", "i'm", "im", "i've", "i'd", "i'll",
];

/// Words of agreement and reaction: a short sentence made of them only answers the
/// other speaker ("That's true.", "I agree!", "Interesting.").
#[rustfmt::skip]
const REACTIONS: &[&str] = &[
    "agree", "agreed", "true", "right", "sure", "exactly", "correct", "indeed", "same",
    "interesting", "cool", "nice", "great", "awesome", "amazing", "crazy", "wow", "fun",
    "funny", "neat", "wild", "know", "see", "guess", "think", "totally", "definitely",
    "absolutely", "thanks", "thank", "lol", "haha", "good", "bad", "sad", "weird", "strange",
    "believe", "hope", "glad",
];

/// Conversational words and contraction fragments that carry no topic.
#[rustfmt::skip]
const FILLERS: &[&str] = &[
    "yes", "yeah", "yep", "yea", "ok", "okay", "oh", "ooh", "lol", "haha", "hi", "hello",
    "hey", "wow", "hmm", "um", "uh", "well", "really", "actually", "basically", "maybe",
    "perhaps", "s", "t", "d", "ll", "re", "ve", "m", "one", "thing", "things", "lot", "kind",
    "sort", "get", "got", "happen", "happens", "happened", "even", "still", "already", "now", "can't", "don", "didn", "i'll",
    "i've", "i'd", "you're", "we're", "they're", "he's", "she's", "what's", "let's",
];

/// Words that open a sentence by referring back to what came before.
#[rustfmt::skip]
const BACK_REFERENCES: &[&str] = &[
    "it", "it's", "its", "this", "that", "these", "those", "they", "he", "she", "their", "his",
    "her", "therefore", "thus", "so", "hence", "also", "however", "because", "which", "there",
    "then",
];

/// Words that open sentences, capitalised, without naming anything.
#[rustfmt::skip]
const COMMON_OPENERS: &[&str] = &[
    "ly", "yes", "yeah", "several", "many", "another", "although", "since", "today", "there",
    "however", "unlike", "like", "overall", "instead", "also", "still", "even", "well", "oh",
    "ok", "okay", "note", "first", "second", "third", "finally", "later", "meanwhile",
    "according", "despite", "among", "based", "yesterday", "tomorrow", "whereas", "hello",
    "hi", "thanks", "one", "its", "in", "on", "it",
];

#[rustfmt::skip]
const MONTHS: [&str; 12] = [
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december",
];

/// Words that say "no" without a negator: evidence using them may agree with a claim
/// that says the same with "not" ("not allowed" / "forbidden", "no charge" / "free").
#[rustfmt::skip]
const IMPLICIT_NEGATIVES: &[&str] = &[
    "forbidden", "prohibited", "banned", "barred", "free", "closed", "only", "except",
    "unless", "without", "unavailable", "excluded", "refused", "denied", "absent", "lacks",
    "lacking", "fails", "failed", "exempt", "waived", "neither", "nor", "solely",
];

pub fn is_implicit_negative(lower: &str) -> bool {
    IMPLICIT_NEGATIVES.contains(&lower)
}

pub fn is_negator(lower: &str) -> bool {
    NEGATORS.contains(&lower) || (lower.ends_with("n't") && lower.len() > 3)
}

pub fn is_auxiliary(lower: &str) -> bool {
    AUXILIARIES.contains(&lower)
}

pub fn is_first_person(lower: &str) -> bool {
    FIRST_PERSON.contains(&lower)
}

pub fn is_reaction_word(lower: &str) -> bool {
    REACTIONS.contains(&lower)
}

pub fn is_filler_word(lower: &str) -> bool {
    FILLERS.contains(&lower) || is_pronoun_contraction(lower)
}

/// "You'd", "we're", "it'll": a pronoun with its verb, which names nothing and carries no
/// topic (at the start of a sentence it once read as a name no passage mentions).
fn is_pronoun_contraction(lower: &str) -> bool {
    let Some((head, tail)) = lower.split_once('\'') else {
        return false;
    };
    matches!(
        head,
        "i" | "you" | "we" | "they" | "he" | "she" | "it" | "that" | "there" | "let"
    ) && matches!(tail, "d" | "ll" | "re" | "ve" | "m" | "s")
}

/// "It", "This", "Therefore", ...: the sentence continues the previous one.
pub fn is_back_reference(lower: &str) -> bool {
    BACK_REFERENCES.contains(&lower)
}

/// "Several", "However", "Clearly", ...: a capital that names nothing.
pub fn is_common_opener(lower: &str) -> bool {
    lower.ends_with("ly") || COMMON_OPENERS.contains(&lower)
}

/// Months and their common abbreviations, as the lower-cased month ("Sept" →
/// "september"). "Mar" and "May" are left alone: they are also words.
pub fn month(lower: &str) -> Option<&'static str> {
    MONTHS.iter().copied().find(|m| {
        *m == lower
            || (lower.len() == 3 && m.starts_with(lower) && lower != "mar" && lower != "may")
            || (lower == "sept" && *m == "september")
    })
}

/// Phrases that answer nothing: refusals and "not enough information" answers. Phrases
/// a rule also says ("we do not provide refunds", "not available in the evening") are
/// left to `speech`, which asks for a source or a speaker.
#[rustfmt::skip]
pub const ABSTENTION_PHRASES: &[&str] = &[
    "i don't know", "i do not know", "i dont know", "i'm not sure", "i am not sure",
    "i cannot answer", "i can't answer", "i am unable to", "i'm unable to", "unable to answer",
    "unable to determine", "cannot be determined", "can't be determined", "cannot determine",
    "not enough information", "insufficient information", "no information",
    "does not contain information", "do not contain information",
    "doesn't contain information", "is not mentioned", "are not mentioned", "not mentioned in",
    "not specified in", "not stated in", "no answer", "cannot answer", "can't answer",
    "not possible to answer", "there is no mention", "i could not find", "i couldn't find",
];

/// Padding that adds words but no content.
#[rustfmt::skip]
pub const FILLER_PHRASES: &[&str] = &[
    "it is important to note that", "it's important to note that", "it is worth noting that",
    "it's worth noting that", "needless to say", "as a matter of fact",
    "at the end of the day", "in today's world", "as previously mentioned",
    "as mentioned above", "in conclusion", "to sum up", "basically", "essentially",
    "in order to", "due to the fact that", "for all intents and purposes",
    "it goes without saying", "kind of", "sort of", "i hope this helps",
];

/// Non-committal phrases that make an answer vague.
#[rustfmt::skip]
pub const HEDGE_PHRASES: &[&str] = &[
    "it depends", "kind of", "sort of", "maybe", "perhaps", "possibly", "more or less",
    "in some ways", "to some extent", "somewhat", "who knows",
];

/// True when `phrase` occurs in `lower` at word boundaries.
pub fn contains_phrase(lower: &str, phrase: &str) -> bool {
    let bytes = lower.as_bytes();
    let mut from = 0;
    while let Some(pos) = lower[from..].find(phrase) {
        let start = from + pos;
        let end = start + phrase.len();
        let before_ok = start == 0 || !bytes[start - 1].is_ascii_alphanumeric();
        let after_ok = end == lower.len() || !bytes[end].is_ascii_alphanumeric();
        if before_ok && after_ok {
            return true;
        }
        from = start + 1;
        while from < lower.len() && !lower.is_char_boundary(from) {
            from += 1;
        }
        if from >= lower.len() {
            return false;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_match_only_at_word_boundaries() {
        assert!(contains_phrase("well, i don't know.", "i don't know"));
        assert!(!contains_phrase("hi don't know", "i don't know"));
        assert!(contains_phrase("kind of", "kind of"));
    }

    #[test]
    fn negators_include_contractions_and_months_their_abbreviations() {
        assert!(is_negator("isn't") && is_negator("never") && !is_negator("note"));
        assert_eq!(month("sept"), Some("september"));
        assert_eq!(month("may"), Some("may"));
        assert_eq!(month("mar"), None, "'mar' is also a verb");
    }
}
