//! What one sentence of an answer *does*. Only a statement that can be true or false is a
//! claim; the rest manages the conversation — greets, thanks, apologises, signs off,
//! offers more help, sends the reader to someone, asks back — or declines to answer.
//! A help-desk answer is full of the former ("Please contact the finance team.", "Let me
//! know if you need anything else."): scored as claims, they read as things "no context
//! mentions" and turned correct answers into the report's headline hallucinations.
//!
//! A decline is recognised by what it says, not by a fixed phrase: a speaker or a source
//! ("I", "the documents", "our policies") with a negated verb of knowing, finding or
//! saying ("could not find", "do not say", "has nothing about"), a passive "is not
//! covered in the material", "no information about", or "outside what I can help with".
//! A negative answer ("No, you cannot bring pets.") is an answer, not a decline: it has
//! no speaker or source that lacks the information.
//!
//! Owns: the sentence act. Must not: look at evidence or at the other sentences.

use crate::offline::words::lexicon::{self, Token};
use crate::offline::words::vocabulary;

/// The act of one sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// States something that can be true or false.
    Claim,
    /// Greets, thanks, apologises, signs off, hedges or offers more help.
    Courtesy,
    /// Sends the reader to someone without stating a fact ("Please contact HR.").
    Referral,
    /// Asks the reader something.
    QuestionBack,
    /// Says the answer is not known or not in the sources.
    Decline,
}

impl Act {
    /// Whether the sentence can be true or false, so a context can back it or not.
    pub fn is_claim(self) -> bool {
        self == Act::Claim
    }
}

pub fn act(sentence: &str) -> Act {
    // "I can't say for certain, but the timetable lists the last train at 23:40" answers:
    // a sentence with a clause that states something is a claim, whatever else it says.
    let clauses = clauses(sentence.trim());
    let acts: Vec<Act> = clauses.iter().map(|c| clause_act(c)).collect();
    if acts.len() == 1 {
        return acts[0];
    }
    // Beside a decline, a clause about the speaker or the sources ("I searched the FAQ",
    // "the context covers shipping times") explains the decline.
    let declined = acts.contains(&Act::Decline);
    // "it covers pass prices and timetables, but not the ferry": a clause that is only
    // "not …" denies the previous clause's verb of something else, and so belongs to
    // the same account.
    let accounts: Vec<bool> = clauses
        .iter()
        .scan(false, |previous, c| {
            let elliptic = c.trim_start().to_ascii_lowercase().starts_with("not ");
            let account = about_speaker_or_sources(c) || (elliptic && *previous);
            *previous = account;
            Some(account)
        })
        .collect();
    let claims_about_the_world = acts
        .iter()
        .zip(&accounts)
        .any(|(a, account)| a.is_claim() && !(declined && *account));
    if claims_about_the_world {
        Act::Claim
    } else if declined {
        Act::Decline
    } else {
        acts[0]
    }
}

/// Whether any clause of `sentence` declines ("The warranty covers defects only; the
/// documents say nothing about theft."), even where another clause states a fact.
pub fn any_clause_declines(sentence: &str) -> bool {
    clauses(sentence.trim())
        .iter()
        .any(|c| clause_act(c) == Act::Decline)
}

/// The act of one clause, never split again: each clause is read once, so the work
/// stays linear in the text.
fn clause_act(clause: &str) -> Act {
    let tokens = lexicon::tokens(clause);
    // The phrase lists are written lower-case with ASCII apostrophes.
    let lower = clause.to_lowercase().replace('\u{2019}', "'");
    if declines(&lower, &tokens) {
        Act::Decline
    } else if clause.ends_with('?') {
        Act::QuestionBack
    } else if is_courtesy(&lower, &tokens) || is_wrap_up(&tokens) {
        Act::Courtesy
    } else if is_referral(&lower, &tokens) {
        Act::Referral
    } else {
        Act::Claim
    }
}

/// Where a sentence breaks into clauses that can each be weighed on their own.
#[rustfmt::skip]
const CLAUSE_BREAKS: &[&str] = &[
    ", but ", " but ", "; ", ", though", ", however", ", although ", " - ", " – ", " — ", ": ",
];

/// Clauses weighed one by one, at most; the rest of a longer sentence is one clause, so
/// a pathological sentence (a megabyte of "a; b; c") costs linear time.
const MAX_CLAUSES: usize = 16;

/// The clauses of a sentence at a contrast or a semicolon ("…, but …", "…; …",
/// "…, though"), each with at least two words. A courtesy word set off by a comma at the
/// start ("Sorry, the tour is fully booked") is dropped.
fn clauses(sentence: &str) -> Vec<&str> {
    // ASCII lower-casing keeps byte offsets, so positions found in `lower` cut `sentence`.
    let lower = sentence.to_ascii_lowercase();
    let mut from = 0;
    if let Some(comma) = lower.find(", ") {
        if matches!(
            lower[..comma].trim(),
            "sorry"
                | "thanks"
                | "hi"
                | "hello"
                | "hey"
                | "unfortunately"
                | "ok"
                | "okay"
                | "great"
                | "good news"
                | "apologies"
        ) {
            from = comma + 2;
        }
    }
    let mut out = Vec::new();
    // Counted by cuts, not by clauses kept: "a; b; c; …" keeps none of its one-word parts.
    for _ in 0..MAX_CLAUSES {
        let cut = CLAUSE_BREAKS
            .iter()
            .filter_map(|sep| lower[from..].find(sep).map(|at| (from + at, sep.len())))
            .min();
        let Some((at, len)) = cut else {
            break;
        };
        let head = sentence[from..at].trim();
        if head.split_whitespace().count() >= 2 {
            out.push(head);
        }
        from = at + len;
    }
    let tail = sentence[from..].trim();
    if tail.split_whitespace().count() >= 2 || out.is_empty() {
        out.push(tail);
    }
    out
}

/// A clause whose subject is the speaker or the sources: a speaker or source word among
/// its first four words.
fn about_speaker_or_sources(clause: &str) -> bool {
    let head = clause
        .char_indices()
        .nth(80)
        .map_or(clause, |(at, _)| &clause[..at]);
    let tokens = lexicon::tokens(head);
    let opening = || tokens.iter().take(4);
    // "… — it covers pass prices and timetables", "they describe only the Everyday
    // account": a pronoun or a source with a verb of saying or holding gives the account
    // of the documents that goes with a decline.
    opening().any(|t| is(t, SPEAKERS) || is(t, INFO_SOURCES) || is(t, RULE_SOURCES))
        || (opening().any(|t| is(t, SAYING_SUBJECTS))
            && tokens
                .iter()
                .take(6)
                .any(|t| is(t, SAY_VERBS) || is(t, HOLD_VERBS)))
}

/// Words that carry the information an answer would need.
#[rustfmt::skip]
const INFO_SOURCES: &[&str] = &[
    "document", "documents", "doc", "docs", "context", "contexts", "information", "info",
    "material", "materials", "source", "sources", "passage", "passages", "text", "texts",
    "excerpt", "excerpts", "record", "records", "data", "knowledge", "article", "articles",
    "page", "pages", "note", "notes", "resource", "resources", "file", "files", "content",
    "documentation", "result", "results", "search", "snippet", "snippets", "chunk", "chunks",
    "details", "detail", "database", "reference", "references", "section", "sections",
    "leaflet", "leaflets", "brochure", "brochures", "table", "tables", "chapter", "entry",
    "entries",
];

/// Documents of rules: they decline with a verb of saying ("the policy does not say"),
/// but "our policy does not cover water damage" is a rule, not a decline.
#[rustfmt::skip]
const RULE_SOURCES: &[&str] = &[
    "policy", "policies", "guide", "guidance", "guidelines", "handbook", "manual", "faq", "faqs", "rules",
    "terms",
];

/// Subjects that decline only with a verb of saying ("it doesn't say", "the website
/// does not mention"); elsewhere they are ordinary words ("not allowed in this area").
const SAYING_SUBJECTS: &[&str] = &["it", "they", "this", "that", "website", "site", "page"];

/// The one who would answer.
const SPEAKERS: &[&str] = &[
    "i", "i'm", "i've", "i'd", "i'll", "im", "me", "my", "we", "we're", "we've", "us",
];

/// The speaker in the singular: "we" is also the organisation stating its rules ("we
/// do not provide refunds on sale items"), so it declines only with verbs of knowing.
const SPEAKER_SINGULAR: &[&str] = &["i", "i'm", "i've", "i'd", "i'll", "im", "me", "my"];

/// What an organisation's "we" cannot do when it does not know: "we don't know", "we
/// could not find", "we can't confirm". "We don't have a car park" is a fact.
#[rustfmt::skip]
const WE_KNOW_VERBS: &[&str] = &[
    "know", "knew", "find", "found", "locate", "located", "see", "tell", "say", "determine",
    "answer", "confirm", "verify", "identify", "recall", "sure", "certain",
];

/// Verbs of saying: a source that does not say something leaves it unknown.
#[rustfmt::skip]
const SAY_VERBS: &[&str] = &[
    "say", "says", "said", "mention", "mentions", "mentioned", "specify", "specifies",
    "specified", "state", "states", "stated", "address", "addresses", "addressed", "tell",
    "tells", "indicate", "indicates", "indicated", "detail", "details", "detailed", "discuss",
    "discusses", "discussed", "explain", "explains", "explained", "talk", "talks", "clarify",
    "clarifies", "reference", "references", "referenced", "describe", "describes", "described",
];

/// Verbs of holding: a document that does not contain something leaves it unknown.
#[rustfmt::skip]
const HOLD_VERBS: &[&str] = &[
    "contain", "contains", "contained", "cover", "covers", "covered", "include", "includes",
    "included", "provide", "provides", "provided", "give", "gives", "given", "list", "lists",
    "listed", "have", "has", "had", "show", "shows", "shown", "offer", "offers", "cite",
];

/// Verbs of knowing and finding: a speaker who cannot do them cannot answer.
#[rustfmt::skip]
const KNOW_VERBS: &[&str] = &[
    "know", "knew", "find", "found", "locate", "located", "see", "saw", "seen", "tell", "say",
    "determine", "answer", "confirm", "help", "access", "have", "verify", "identify",
    "spot", "recall", "provide", "give", "share", "comment", "advise", "sure", "certain",
    "seeing", "finding", "knowing",
];

/// Participles of a passive decline: "is not covered in the material".
#[rustfmt::skip]
const PASSIVE: &[&str] = &[
    "answered", "answerable",
    "mentioned", "covered", "specified", "stated", "included", "addressed", "listed", "given",
    "described", "provided", "found", "available", "documented", "detailed", "explained",
    "discussed", "indicated", "present", "contained", "referenced", "shown", "noted",
];

/// Participles of saying: a source that has not "stated" something leaves it unknown,
/// where "not available" or "not included" may be a rule.
const SAID: &[&str] = &[
    "mentioned",
    "specified",
    "stated",
    "documented",
    "described",
    "detailed",
    "explained",
    "addressed",
    "covered",
    "indicated",
    "noted",
    "referenced",
];

fn is(t: &Token, words: &[&str]) -> bool {
    words.contains(&t.lower.as_str())
}

/// A negator within `before` tokens before position `i`, or within `after` tokens
/// after it ("say nothing", "provide no details").
fn negated_near(tokens: &[Token], i: usize, before: usize, after: usize) -> bool {
    let from = i.saturating_sub(before);
    let to = (i + after + 1).min(tokens.len());
    tokens[from..to]
        .iter()
        .enumerate()
        .any(|(k, t)| from + k != i && (t.negator || t.lower == "unable" || t.lower == "nowhere"))
}

/// A negator within `before` tokens before position `i` that governs the word there:
/// nothing but function words and adverbs between them ("do not say", "doesn't
/// explicitly state"). In "smaller states are not dominated by larger member states"
/// the negator belongs to "dominated", and "states" is a noun.
fn negator_governs(tokens: &[Token], i: usize, before: usize) -> bool {
    (i.saturating_sub(before)..i).any(|k| {
        (tokens[k].negator || tokens[k].lower == "unable")
            && tokens[k + 1..i]
                .iter()
                .all(|t| !t.content || t.lower.ends_with("ly") || t.lower == "able")
    })
}

/// Set phrases of declining that the word rules below cannot see.
#[rustfmt::skip]
const DECLINE_IDIOMS: &[&str] = &[
    "no idea", "came up empty", "come up empty", "not in a position to", "is silent on",
    "are silent on", "is silent about", "are silent about", "can't help with that",
    "cannot help with that", "can't help you with that", "no way to tell", "no way of knowing",
    "drew a blank", "draw a blank",
];

/// Verbs of disclosure a speaker may refuse ("I won't look up", "not permitted to
/// disclose").
const DISCLOSE_VERBS: &[&str] = &["disclose", "share", "reveal", "look", "comment", "discuss"];

/// "says nothing", "provides no details", "mentions none of": a negating word right after
/// the verb. A negator further on belongs to what is reported ("the policy says you
/// can't claim ...").
fn nothing_after(tokens: &[Token], i: usize) -> bool {
    tokens[i + 1..]
        .iter()
        .take(2)
        .any(|t| matches!(t.lower.as_str(), "nothing" | "no" | "none" | "little"))
}

// long: a list of the ways an answer declines, each a few lines with its example; they are tried in
// order and the first match decides
/// `lower`: the clause lower-cased, with ASCII apostrophes.
fn declines(lower: &str, tokens: &[Token]) -> bool {
    if vocabulary::ABSTENTION_PHRASES
        .iter()
        .chain(DECLINE_IDIOMS)
        .any(|p| vocabulary::contains_phrase(lower, p))
    {
        return true;
    }
    let has = |words: &[&str]| tokens.iter().any(|t| is(t, words));
    // "None of the sources I was given mention ...".
    if tokens.len() > 3
        && tokens[0].lower == "none"
        && tokens[1].lower == "of"
        && tokens[2..5.min(tokens.len())]
            .iter()
            .any(|t| is(t, INFO_SOURCES) || is(t, RULE_SOURCES))
    {
        return true;
    }
    let speaker = has(SPEAKERS);
    let singular = has(SPEAKER_SINGULAR);
    let info_source = has(INFO_SOURCES);
    let rule_source = has(RULE_SOURCES);
    let saying_subject = has(SAYING_SUBJECTS);
    for (i, t) in tokens.iter().enumerate() {
        // "the documents do not say", "our policies don't mention", "it says nothing",
        // "none of the sources I was given mention".
        if (info_source || rule_source || speaker || saying_subject)
            && is(t, SAY_VERBS)
            && (negator_governs(tokens, i, 5) || nothing_after(tokens, i))
        {
            return true;
        }
        // "the information provided does not include", "the context has no details",
        // "the guide doesn't include anything about".
        if is(t, HOLD_VERBS)
            && ((info_source && (negator_governs(tokens, i, 3) || nothing_after(tokens, i)))
                || ((rule_source || speaker)
                    && negated_near(tokens, i, 3, 0)
                    && tokens
                        .get(i + 1)
                        .is_some_and(|n| matches!(n.lower.as_str(), "anything" | "any"))))
        {
            return true;
        }
        // "I could not find", "we don't know", "I'm not able to see", "I can't say",
        // "I won't look up".
        let knowing = if singular {
            is(t, KNOW_VERBS) || is(t, DISCLOSE_VERBS)
        } else {
            speaker && is(t, WE_KNOW_VERBS)
        };
        if knowing && negated_near(tokens, i, 4, 0) {
            return true;
        }
        // "I'm not able to", "not permitted to disclose".
        if speaker
            && matches!(
                t.lower.as_str(),
                "able" | "permitted" | "allowed" | "authorised" | "authorized"
            )
            && negated_near(tokens, i, 3, 0)
            && tokens.get(i + 1).is_some_and(|n| n.lower == "to")
        {
            return true;
        }
        // "isn't in the material I have", "there isn't enough in the documents".
        // The source must follow at once (after a determiner or two): "not allowed in this
        // area" is a rule.
        if (t.lower == "in" || t.lower == "enough")
            && negated_near(tokens, i, 2, 0)
            && tokens[i + 1..]
                .iter()
                .take(if t.lower == "in" { 3 } else { 4 })
                .any(|n| is(n, INFO_SOURCES) || (t.lower == "in" && is(n, RULE_SOURCES)))
        {
            return true;
        }
        let about_information = |n: &Token| {
            matches!(
                n.lower.as_str(),
                "information"
                    | "info"
                    | "mention"
                    | "details"
                    | "detail"
                    | "data"
                    | "record"
                    | "records"
                    | "reference"
                    | "indication"
                    | "answer"
            )
        };
        // "our guidance does not appear to cover cancellations": a source hedged with
        // "appear" or "seem" speaks of what is known, not of what a rule allows.
        if (info_source || rule_source)
            && matches!(t.lower.as_str(), "appear" | "seem" | "appears" | "seems")
            && negated_near(tokens, i, 2, 0)
            && tokens.get(i + 1).is_some_and(|n| n.lower == "to")
            && tokens
                .get(i + 2)
                .is_some_and(|v| is(v, HOLD_VERBS) || is(v, SAY_VERBS))
        {
            return true;
        }
        // "that's not something I've got any info on", "pets aren't something the rules
        // I have cover": what the speaker or the sources lack, said of the topic.
        if t.lower == "something"
            && negated_near(tokens, i, 2, 0)
            && (speaker || info_source || rule_source)
            && tokens[i + 1..].iter().take(8).any(|n| {
                is(n, HOLD_VERBS) || is(n, SAY_VERBS) || about_information(n) || n.lower == "got"
            })
        {
            return true;
        }
        // "that detail doesn't seem to be documented": the word names the sources itself.
        if t.lower == "documented" && negated_near(tokens, i, 5, 0) {
            return true;
        }
        // "is not covered in the material", "isn't mentioned anywhere".
        // A participle of saying in a clause that names a source reaches further back:
        // "the documents cover X, so neither the dose nor … is stated".
        let said_of_source = info_source && is(t, SAID) && negated_near(tokens, i, 5, 0);
        if is(t, PASSIVE) && (negated_near(tokens, i, 3, 0) || said_of_source) {
            let rest = &tokens[i + 1..];
            let sourced = said_of_source
                || rest
                    .iter()
                    .take(6)
                    .any(|r| is(r, INFO_SOURCES) || is(r, RULE_SOURCES))
                || rest.first().is_some_and(|r| r.lower == "anywhere")
                // "not available to me"
                || (rest.first().is_some_and(|r| r.lower == "to")
                    && rest.get(1).is_some_and(|r| matches!(r.lower.as_str(), "me" | "us")));
            if sourced {
                return true;
            }
        }
        // "unable to find", "not possible to say".
        if (t.lower == "unable" || t.lower == "possible" || t.lower == "impossible")
            && tokens.get(i + 1).is_some_and(|n| n.lower == "to")
            && tokens
                .get(i + 2)
                .is_some_and(|v| is(v, KNOW_VERBS) || is(v, SAY_VERBS))
            && (t.lower != "possible" || negated_near(tokens, i, 2, 0))
        {
            return true;
        }
        // "no information about", "no relevant information was found", "nothing on
        // gift cards in our policies", "nothing in the passages answers that". A bare
        // preposition after "no" needs a speaker or a source: "no fee on Sundays" is a rule.
        let preposition =
            |n: &Token| matches!(n.lower.as_str(), "about" | "on" | "regarding" | "in");
        let sourced = info_source || rule_source || speaker;
        if matches!(t.lower.as_str(), "no" | "nothing" | "any")
            && tokens[i + 1..]
                .iter()
                .take(2)
                .any(|n| about_information(n) || (sourced && preposition(n)))
            && (t.lower != "any" || negated_near(tokens, i, 5, 0))
            && (t.lower != "nothing" || sourced)
        {
            return true;
        }
        // "outside what I can help with", "beyond the scope of".
        let next = |k: usize| tokens.get(i + k).map(|n| n.lower.as_str());
        if (t.lower == "outside" || t.lower == "beyond")
            && ((next(1) == Some("what") && speaker)
                || tokens[i + 1..]
                    .iter()
                    .take(3)
                    .any(|n| n.lower == "scope" || is(n, RULE_SOURCES) || is(n, INFO_SOURCES)))
            && (speaker || info_source || rule_source || tokens.iter().any(|x| x.lower == "scope"))
        {
            return true;
        }
    }
    false
}

/// Phrases that mark a sentence as managing the conversation: greeting, thanking,
/// apologising, wishing, signing off, offering more help, checking it was understood.
#[rustfmt::skip]
const COURTESY_PHRASES: &[&str] = &[
    "thanks", "thank you", "many thanks", "sorry", "apologies", "apologise", "apologize",
    "we appreciate", "i appreciate", "appreciate your", "hope this", "hope that", "i hope",
    "we hope you", "hopefully that", "hopefully this", "enjoy your", "enjoy the", "wishing you",
    "best regards", "kind regards", "warm regards", "regards,", "cheers", "good luck",
    "all the best", "best of luck", "take care", "get well", "safe travels", "have a great",
    "have a good", "have a nice", "have a lovely", "have a wonderful", "let me know",
    "feel free", "don't hesitate", "do not hesitate", "i'm here", "i am here", "we're here",
    "happy to help", "glad to help", "happy to walk", "happy to explain", "happy to go",
    "if you want, i", "if you like, i", "if you'd like, i", "i can explain", "i can go over", "if that would", "should you need",
    "if you need anything", "anything else", "any other questions", "any more questions",
    "any further questions", "reply here", "reach out again", "ping me",
    "that's everything", "that is everything", "that's all", "that should cover",
    "should cover it", "double-check", "misunderstood", "understood your question",
    "makes things", "nice to hear", "great to see", "good to hear", "welcome back",
    "you're welcome", "my pleasure", "go over the details", "in more detail",
    "pick this up", "what you were looking for", "good question", "great question",
];

/// First words of a greeting.
const GREETINGS: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "dear",
    "greetings",
    "welcome",
    "morning",
    "afternoon",
    "evening",
];

/// A sentence that only manages the conversation: it carries a courtesy phrase (or opens
/// with a greeting), is short, and holds no number a passage could confirm.
fn is_courtesy(lower: &str, tokens: &[Token]) -> bool {
    if tokens.is_empty()
        || tokens.len() > 18
        || tokens
            .iter()
            .any(|t| t.lower.chars().any(|c| c.is_ascii_digit()))
    {
        return false;
    }
    // A greeting word counts only when the greeting stands alone or ends at punctuation:
    // "Evening classes run on Tuesdays" is a fact.
    let set_off = |k: usize| tokens.get(k).is_none_or(|t| t.after_punctuation) || tokens.len() <= 3;
    let greeting = (is(&tokens[0], GREETINGS) && set_off(1))
        || (tokens[0].lower == "good"
            && set_off(2)
            && tokens.get(1).is_some_and(|t| {
                matches!(
                    t.lower.as_str(),
                    "morning" | "afternoon" | "evening" | "day"
                )
            }));
    greeting
        || COURTESY_PHRASES
            .iter()
            .any(|p| vocabulary::contains_phrase(lower, p))
}

/// Words a wrap-up remark is made of besides function words: it points back at what was
/// said ("that", "this") and calls it the gist, the whole of it, or where it ends.
#[rustfmt::skip]
const WRAP_UP_WORDS: &[&str] = &[
    "that", "this", "that's", "this's", "it", "it's", "is", "was", "what", "all", "there",
    "to", "of", "the", "a", "about", "really", "just", "simply", "basically", "pretty",
    "much", "comes", "come", "boils", "boil", "down", "sums", "sum", "up", "gist", "short",
    "long", "story", "version", "whole", "thing", "point", "bottom", "line", "nutshell",
    "in", "and", "so", "well", "essentially", "everything", "answer", "summary", "matter",
];

/// A remark that closes an answer without adding a fact: it points back at what was
/// said and sums it up ("That is simply what it comes down to.", "That's the gist of
/// it.", "That's the long and short of it.", "That's the short version."). Every word is
/// a pointer, a function word or a word of summing up, and the remark is short. "Short",
/// "long" and "all" alone sum up nothing: "It's long." and "That's a short story." are
/// answers, checked as claims.
fn is_wrap_up(tokens: &[Token]) -> bool {
    let pointer = |t: &Token| matches!(t.lower.as_str(), "that" | "this" | "that's" | "it's");
    let has = |word: &str| tokens.iter().any(|t| t.lower == word);
    let summing = tokens.iter().any(|t| {
        matches!(
            t.lower.as_str(),
            "comes" | "come" | "boils" | "boil" | "sums" | "sum" | "gist" | "nutshell" | "summary"
        )
    }) || (has("short") && (has("long") || has("version") || has("answer")));
    (2..=10).contains(&tokens.len())
        && tokens.iter().take(3).any(pointer)
        && summing
        && tokens.iter().all(|t| is(t, WRAP_UP_WORDS))
}

/// Phrases that send the reader to someone.
#[rustfmt::skip]
const REFERRAL_PHRASES: &[&str] = &[
    "please contact", "please speak", "please call", "please email", "please ask",
    "please reach", "please check with", "please get in touch", "contact our", "contact the",
    "contact your", "speak with", "speak to", "talk to", "check with", "checking with",
    "raising this with", "raise this with", "reach out to", "get in touch with",
    "the one to ask", "best person to ask", "ask your", "consult your", "consult the",
    "contact them", "call them", "email them", "should be able to help", "will be able to help",
    "should be able to confirm", "will be able to confirm", "right people to ask",
    "right person to ask", "the people to ask",
];

/// A sentence that only tells the reader whom to contact, and states nothing that could
/// be checked: no number or address ("Please contact the finance team.", "You can reach
/// out to HR for details."). "The finance team can be reached at ext. 4410." is a claim.
fn is_referral(lower: &str, tokens: &[Token]) -> bool {
    if tokens.is_empty()
        || tokens.len() > 16
        || tokens
            .iter()
            .any(|t| t.lower.chars().any(|c| c.is_ascii_digit()) || t.lower.contains('@'))
    {
        return false;
    }
    // "you may want to contact customer service": a verb of contacting after a modal,
    // with someone to contact after it ("guests can ask for late checkout" is a fact).
    let someone = |n: &Token| {
        matches!(
            n.lower.as_str(),
            "team"
                | "desk"
                | "office"
                | "service"
                | "support"
                | "staff"
                | "department"
                | "manager"
                | "librarian"
                | "pharmacist"
                | "advisor"
                | "adviser"
                | "us"
                | "them"
                | "hr"
                | "reception"
                | "centre"
                | "center"
                | "helpline"
                | "agent"
                | "representative"
                | "registrar"
                | "supervisor"
                | "doctor"
                | "provider"
                | "branch"
                | "store"
        )
    };
    let modal_contact = tokens.iter().enumerate().any(|(i, t)| {
        matches!(
            t.lower.as_str(),
            "contact" | "call" | "email" | "reach" | "phone" | "ask"
        ) && tokens[i.saturating_sub(2)..i].iter().any(|m| {
            matches!(
                m.lower.as_str(),
                "please" | "to" | "can" | "could" | "may" | "might" | "should"
            )
        }) && tokens[i + 1..].iter().take(4).any(someone)
    });
    modal_contact
        || REFERRAL_PHRASES
            .iter()
            .any(|p| vocabulary::contains_phrase(lower, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn courtesy_referrals_and_questions_back_are_not_claims() {
        for s in [
            "Hi there!",
            "Good morning, thanks for reaching out.",
            "Let me know if you need anything else.",
            "Hope this helps!",
            "Have a great day.",
            "Sorry for the trouble.",
            "Thanks for your patience.",
            "Feel free to ask if anything is unclear.",
            "Please contact the finance team.",
            "You can reach out to HR for more details.",
            "Would you like me to check your order?",
        ] {
            assert!(!act(s).is_claim(), "{s}: {:?}", act(s));
        }
    }

    #[test]
    fn statements_in_a_chatbot_tone_are_claims() {
        for s in [
            "We accept returns within 30 days of delivery.",
            "The finance team can be reached at ext. 4410.",
            "Our members may borrow up to 12 items at a time.",
            "I believe the office opens at 9.",
            "Help is available at the front desk until 8 pm.",
            "No, you cannot bring pets into the reading room.",
            "Our policy does not cover water damage.",
            "The warranty does not include batteries.",
            // Rules and facts shaped like declines or courtesies (found in review).
            "There is no fee on Sundays.",
            "No smoking in the building.",
            "Dogs are not allowed in this area.",
            "Breakfast is not included in this rate.",
            "Parking is available outside the site.",
            "Results are not available until Monday.",
            "We do not provide refunds on sale items.",
            "We don't have a car park.",
            "Evening classes run on Tuesdays.",
            "You can cancel at any time.",
            "Children are welcome to attend.",
            "Guests can ask for late checkout.",
            "Pharmacists can advise on minor ailments.",
            "If you want a refund, return the item within 30 days.",
            // "states" is a noun here; the negator belongs to "dominated".
            "Smaller member states are not dominated by larger member states.",
        ] {
            assert_eq!(act(s), Act::Claim, "{s}");
        }
    }

    #[test]
    fn a_sentence_of_many_clauses_is_split_a_bounded_number_of_times() {
        // Splitting every clause of a long answer rescanned the rest each time; the cap
        // keeps the work linear in the text.
        let long = "the fee is 5 euros; ".repeat(20_000);
        assert_eq!(clauses(&long).len(), MAX_CLAUSES + 1);
        assert_eq!(act(&long), Act::Claim);
    }

    #[test]
    fn answers_that_mention_limits_or_sources_are_not_declines() {
        for s in [
            "If you don't pass limit, list endpoints return 25 items per page.",
            "Our policy does not cover water damage.",
            "It is usually £5, but the fee is not charged on Sundays.",
            "No, pets are not allowed on the trams.",
            "The pass covers buses and trams, but not the ferry.",
        ] {
            assert_ne!(act(s), Act::Decline, "{s}");
        }
    }

    #[test]
    fn declines_are_recognised_in_many_wordings() {
        for s in [
            "The documents I have do not say whether pets are allowed.",
            "I'm sorry, but the provided information does not mention parking fees.",
            "Unfortunately that isn't covered in the material I can see.",
            "There's nothing about refunds for gift cards in our policies, so I can't say.",
            "I wasn't able to find details on that; please ask the front desk.",
            "That's outside what I can help with.",
            "The policy doesn't say anything about sale items.",
            "I couldn't find anything about that.",
            "We don't have any information about evening classes.",
            "I couldn't find surfboards in the rules I have: the special-baggage section only gives prices for bicycles.",
            "The documents do not cover a Student account; they describe only the Everyday and Premier accounts.",
            "Regrettably, our guidance on international payments does not appear to cover cancellations.",
            "Hmm, I'm not seeing anything about returns in the info I've got, sorry!",
            "That's not something I've got any info on, I'm afraid!",
            "Pets aren't something the rules I have access to cover, unfortunately.",
            "That detail doesn't seem to be documented.",
            "The documents cover loratadine, not cetirizine, so neither the dose nor the combination is stated.",
            "There's nothing about a night boat in the information I can see \u{2014} it covers fares and the bus timetables, but not the boat \u{2014} so I can't say when it sails.",
        ] {
            assert_eq!(act(s), Act::Decline, "{s}");
        }
    }
}
