//! A judge's verdict as its cache keeps it: the judge writes and reads these, the store
//! keeps them in the `judge_cache` table. Here so that neither has to know the other.

/// A cached verdict with the tokens it cost when it was first computed.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedVerdict {
    pub verdict_json: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A verdict to keep, with what it answered: everything that shaped the answer is in its
/// key (a hash); the rest says what the entry is when someone looks.
pub struct NewCacheEntry<'a> {
    pub key: &'a str,
    pub provider: &'a str,
    pub model: &'a str,
    pub task: &'a str,
    pub prompt_version: &'a str,
    pub request_json: &'a str,
    pub verdict_json: &'a str,
    pub input_tokens: u64,
    pub output_tokens: u64,
}
