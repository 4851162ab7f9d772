//! Reading text: closed word classes and phrase lists (`vocabulary`), tokens and stems
//! (`lexicon`), antonyms, quantities and units, analysed passages (`evidence`), anchors
//! (names, numbers, dates) and what a sentence does (`speech`). Every verdict reads text
//! through these; they know nothing of claims or tasks.

pub(super) mod anchors;
pub(super) mod antonyms;
pub(super) mod evidence;
pub(super) mod lexicon;
pub(super) mod quantities;
pub(super) mod speech;
pub(super) mod units;
pub(super) mod vocabulary;
