//! Antonyms from WordNet 3.0 (`assets/wordnet/antonyms.tsv`, built by
//! `scripts/build-antonyms.py` from Debian's `wordnet-base`; licence beside it): direct
//! antonym pairs, looked up by stem so any inflection of either word matches.
//!
//! Owns: loading the list once and the lookup. Must not: decide a contradiction
//! (`conflicts::reversal` does, with its checks that the rest is restated).

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::offline::words::lexicon;

const PAIRS: &str = include_str!("../../../../../assets/wordnet/antonyms.tsv");

fn table() -> &'static HashMap<String, HashSet<String>> {
    static TABLE: OnceLock<HashMap<String, HashSet<String>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut map: HashMap<String, HashSet<String>> = HashMap::new();
        for line in PAIRS.lines().filter(|l| !l.starts_with('#')) {
            let mut fields = line.split('\t');
            let (Some(a), Some(b)) = (fields.next(), fields.next()) else {
                continue;
            };
            let (a, b) = (lexicon::normalise(a), lexicon::normalise(b));
            // Two words the stemmer folds into one cannot oppose each other.
            if a == b {
                continue;
            }
            map.entry(a.clone()).or_default().insert(b.clone());
            map.entry(b).or_default().insert(a);
        }
        map
    })
}

/// The stems WordNet lists as antonyms of the stem `norm`.
pub fn of(norm: &str) -> Option<&'static HashSet<String>> {
    table().get(norm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn antonyms_are_found_both_ways_by_stem() {
        let inc = lexicon::normalise("increased");
        let dec = lexicon::normalise("decreases");
        assert!(of(&inc).is_some_and(|o| o.contains(&dec)));
        assert!(of(&dec).is_some_and(|o| o.contains(&inc)));
        assert!(of(&lexicon::normalise("accept"))
            .is_some_and(|o| o.contains(&lexicon::normalise("reject"))));
        assert!(
            of(&lexicon::normalise("table")).is_none(),
            "a word without antonyms"
        );
    }
}
