//! Token windows over a document's text (RAGalyst's chunking: 800 tokens with 400 of
//! overlap by default). A token here is a word: a run of characters between whitespace,
//! which a reader can count and check; it is about 1.3 model sub-word tokens in English.
//!
//! Owns: the window arithmetic and the offsets. Pure.

/// Where a chunk lies in its document's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// Byte offsets into the document's text (`start..end` is the chunk's text).
    pub start: usize,
    pub end: usize,
    /// Tokens (words) in the chunk.
    pub tokens: usize,
}

/// Chunking settings; `overlap` < `size`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Chunking {
    pub size: usize,
    pub overlap: usize,
}

impl Default for Chunking {
    fn default() -> Self {
        Chunking {
            size: 800,
            overlap: 400,
        }
    }
}

impl Chunking {
    /// Refuses settings that cannot make progress through a text.
    pub fn checked(self) -> Result<Chunking, String> {
        if self.size == 0 {
            return Err("a chunk needs at least 1 token".into());
        }
        if self.overlap >= self.size {
            return Err(format!(
                "the overlap ({}) must be smaller than the chunk size ({})",
                self.overlap, self.size
            ));
        }
        Ok(self)
    }
}

/// The word spans (byte offsets) of `text`.
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// Windows of `size` words stepping by `size − overlap`; the last window ends at the last
/// word (a window wholly inside the one before is not repeated). An empty text has none.
pub fn chunks(text: &str, chunking: Chunking) -> Vec<Span> {
    let words = words(text);
    let step = chunking.size - chunking.overlap;
    let mut out = Vec::new();
    let mut first = 0;
    while first < words.len() {
        let last = (first + chunking.size).min(words.len());
        out.push(Span {
            start: words[first].0,
            end: words[last - 1].1,
            tokens: last - first,
        });
        if last == words.len() {
            break;
        }
        first += step;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_overlap_and_the_last_one_ends_at_the_last_word() {
        let text = "a b c d e f g h i j";
        let spans = chunks(
            text,
            Chunking {
                size: 4,
                overlap: 2,
            },
        );
        let got: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(got, vec!["a b c d", "c d e f", "e f g h", "g h i j"]);
        let spans = chunks(
            text,
            Chunking {
                size: 4,
                overlap: 1,
            },
        );
        let got: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(got, vec!["a b c d", "d e f g", "g h i j"]);
        assert_eq!(chunks("  ", Chunking::default()), Vec::new());
        assert_eq!(chunks("one two", Chunking::default()).len(), 1);
    }

    #[test]
    fn offsets_are_bytes_of_the_original_text() {
        let text = "Café  au\nlait — très bon";
        let spans = chunks(
            text,
            Chunking {
                size: 2,
                overlap: 0,
            },
        );
        let got: Vec<&str> = spans.iter().map(|s| &text[s.start..s.end]).collect();
        assert_eq!(got, vec!["Café  au", "lait —", "très bon"]);
    }

    #[test]
    fn settings_that_cannot_advance_are_refused() {
        assert!(Chunking {
            size: 4,
            overlap: 4
        }
        .checked()
        .is_err());
        assert!(Chunking {
            size: 0,
            overlap: 0
        }
        .checked()
        .is_err());
        assert!(Chunking::default().checked().is_ok());
    }
}
