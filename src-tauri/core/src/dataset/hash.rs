//! `Item::content_hash`, computed without cloning the item: the same JSON bytes
//! (serialised from borrowed fields into a reused buffer) and the same BLAKE3 prefix.
//!
//! Owns: the import path's hashing only; `Item::content_hash` stays the definition, and
//! the test below fails if the two ever disagree. Must not: be used outside `dataset`.

use serde::Serialize;

use crate::item::{Context, Item};

/// The evaluated fields, in the order `Item::content_hash` lists them.
#[derive(Serialize)]
struct Evaluated<'a> {
    question: &'a str,
    answer: &'a Option<String>,
    contexts: &'a [Context],
    ground_truth: &'a Option<String>,
    reference_contexts: &'a [String],
    citation_label: &'a Option<String>,
    retrieved_ids: &'a [String],
    gold_context_ids: &'a [String],
}

#[derive(Debug, Default)]
pub(crate) struct ContentHasher {
    scratch: Vec<u8>,
}

impl ContentHasher {
    /// The 32-hex-digit hash and the same 128 bits as a number (the duplicate key).
    pub(crate) fn hash(&mut self, item: &Item) -> (String, u128) {
        self.scratch.clear();
        let evaluated = Evaluated {
            question: &item.question,
            answer: &item.answer,
            contexts: &item.contexts,
            ground_truth: &item.ground_truth,
            reference_contexts: &item.reference_contexts,
            citation_label: &item.citation_label,
            retrieved_ids: &item.retrieved_ids,
            gold_context_ids: &item.gold_context_ids,
        };
        serde_json::to_writer(&mut self.scratch, &evaluated)
            .expect("serialising plain JSON cannot fail");
        let digest = blake3::hash(&self.scratch);
        let mut prefix = [0u8; 16];
        prefix.copy_from_slice(&digest.as_bytes()[..16]);
        (
            digest.to_hex()[..32].to_string(),
            u128::from_be_bytes(prefix),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Context;

    #[test]
    fn matches_item_content_hash() {
        let bare = Item {
            question: "q".into(),
            ..Item::default()
        };
        let full = Item {
            id: Some("x1".into()),
            question: "Wie heißt \"das\"?\n\t\u{1F600}".into(),
            answer: Some("a\\b".into()),
            contexts: vec![
                Context {
                    id: Some("d1".into()),
                    text: "one".into(),
                },
                Context {
                    id: None,
                    text: "two\u{0007}".into(),
                },
            ],
            ground_truth: Some("gt".into()),
            reference_contexts: vec!["r".into()],
            citation_label: Some("d1".into()),
            retrieved_ids: vec!["d1".into(), "d2".into()],
            gold_context_ids: vec!["d2".into()],
            ..Item::default()
        };
        let mut hasher = ContentHasher::default();
        for item in [bare, full] {
            let (hex, key) = hasher.hash(&item);
            assert_eq!(hex, item.content_hash(), "same bytes, same hash");
            assert_eq!(key, u128::from_str_radix(&hex, 16).unwrap());
        }
    }
}
