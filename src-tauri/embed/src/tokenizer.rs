//! BERT's uncased WordPiece tokenizer, as the model was trained with it: clean the text,
//! put spaces around CJK ideographs, lower-case, strip accents, split off punctuation,
//! then cut each word into the longest vocabulary pieces from the left ("##" marks a
//! piece that continues a word). Owns the vocabulary; knows nothing of the network.

use std::collections::HashMap;

use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use crate::EmbedError;

/// Words longer than this become `[UNK]` whole, as in the reference tokenizer.
const MAX_WORD_CHARS: usize = 100;

pub struct Tokenizer {
    vocab: HashMap<String, u32>,
    cls: u32,
    sep: u32,
    unk: u32,
}

impl Tokenizer {
    /// Reads `vocab.txt`: one token per line, the line number is the id.
    pub fn from_vocab(text: &str) -> Result<Tokenizer, EmbedError> {
        let vocab: HashMap<String, u32> = text
            .lines()
            .enumerate()
            .map(|(id, token)| (token.trim_end_matches('\r').to_string(), id as u32))
            .collect();
        let special = |name: &str| {
            vocab
                .get(name)
                .copied()
                .ok_or_else(|| EmbedError::Model(format!("vocab.txt has no {name} token")))
        };
        Ok(Tokenizer {
            cls: special("[CLS]")?,
            sep: special("[SEP]")?,
            unk: special("[UNK]")?,
            vocab,
        })
    }

    /// Token ids of one text, framed by `[CLS]` and `[SEP]`, at most `max_len` in all
    /// (the text's tail is cut, as sentence-transformers does).
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let mut ids = vec![self.cls];
        let room = max_len.saturating_sub(2);
        'words: for word in basic_words(text) {
            for id in self.word_pieces(&word) {
                if ids.len() > room {
                    break 'words;
                }
                ids.push(id);
            }
        }
        ids.push(self.sep);
        ids
    }

    /// Greedy longest-match-first split of one word; a word with any unmatched stretch
    /// is a single `[UNK]`.
    fn word_pieces(&self, word: &str) -> Vec<u32> {
        let chars: Vec<char> = word.chars().collect();
        if chars.len() > MAX_WORD_CHARS {
            return vec![self.unk];
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut candidate = String::with_capacity(word.len() + 2);
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                candidate.clear();
                if start > 0 {
                    candidate.push_str("##");
                }
                candidate.extend(&chars[start..end]);
                if let Some(&id) = self.vocab.get(candidate.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => {
                    pieces.push(id);
                    start = end;
                }
                None => return vec![self.unk],
            }
        }
        pieces
    }
}

/// The basic tokenizer: whitespace-separated words, lower-cased and without accents,
/// with every punctuation character and CJK ideograph a word of its own.
fn basic_words(text: &str) -> Vec<String> {
    let mut spaced = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || (c.is_control() && !c.is_whitespace()) {
            continue;
        }
        if is_cjk(c) {
            spaced.push(' ');
            spaced.push(c);
            spaced.push(' ');
        } else if c.is_whitespace() {
            spaced.push(' ');
        } else {
            spaced.push(c);
        }
    }
    let mut words = Vec::new();
    for raw in spaced.split(' ').filter(|w| !w.is_empty()) {
        let folded: String = raw
            .to_lowercase()
            .nfd()
            .filter(|c| !is_combining_mark(*c))
            .collect();
        let mut current = String::new();
        for c in folded.chars() {
            if is_punctuation(c) {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
                words.push(c.to_string());
            } else {
                current.push(c);
            }
        }
        if !current.is_empty() {
            words.push(current);
        }
    }
    words
}

/// ASCII symbols count as punctuation (BERT's rule: "$" and "^" split too), plus the
/// Unicode punctuation (category P) that occurs in prose; symbols such as "°" or "×"
/// stay inside their word, as in the reference tokenizer.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    matches!(c as u32,
        0x00A1 | 0x00A7 | 0x00AB | 0x00B6 | 0x00B7 | 0x00BB | 0x00BF | 0x2010..=0x2027 | 0x2030..=0x205E
        | 0x2E00..=0x2E7F | 0x3001..=0x3003 | 0x3008..=0x3011 | 0x3014..=0x301F
        | 0xFE10..=0xFE19 | 0xFE30..=0xFE4F | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20
        | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// CJK Unified Ideographs and their extensions (not Hangul or kana, as in BERT).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Tokenizer {
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\ncafe\nun\n##aff\n##able\n,\n!\nrun\n##ning\n$\n5\n中\n";
        Tokenizer::from_vocab(vocab).unwrap()
    }

    #[test]
    fn words_are_lower_cased_stripped_of_accents_and_split_at_punctuation() {
        assert_eq!(
            basic_words("The  Café, unaffable!"),
            ["the", "cafe", ",", "unaffable", "!"]
        );
        assert_eq!(basic_words("$5\tok\u{0007}"), ["$", "5", "ok"]);
        assert_eq!(basic_words("中文"), ["中", "文"]);
    }

    #[test]
    fn word_pieces_take_the_longest_match_from_the_left() {
        let t = tiny();
        // [CLS] un ##aff ##able [SEP]
        assert_eq!(t.encode("unaffable", 16), [2, 6, 7, 8, 3]);
        assert_eq!(t.encode("Running", 16), [2, 11, 12, 3]);
    }

    #[test]
    fn a_word_with_an_unknown_stretch_is_one_unknown_token() {
        let t = tiny();
        assert_eq!(t.encode("unxyz the", 16), [2, 1, 4, 3]);
        assert_eq!(t.encode(&"a".repeat(101), 16), [2, 1, 3]);
    }

    #[test]
    fn long_texts_are_cut_to_the_maximum_length_including_the_frame() {
        let t = tiny();
        let ids = t.encode(&"the ".repeat(50), 8);
        assert_eq!(ids.len(), 8);
        assert_eq!((ids[0], ids[7]), (2, 3));
    }

    #[test]
    fn a_vocabulary_without_the_special_tokens_is_refused() {
        assert!(Tokenizer::from_vocab("the\ncat\n").is_err());
    }
}
