//! Python's `json.dump` writes `NaN`, `Infinity` and `-Infinity` for floats JSON cannot
//! hold (pandas and RAGAS write a failed metric as `NaN`). They are not JSON, and serde
//! rejects the whole document at the first one. This scanner finds them outside strings
//! and overwrites each in place with a value of the same length that reads as missing:
//! `NaN` becomes `"" ` (an empty string: absent as text and as a number), `Infinity` and
//! `-Infinity` become `null` padded with spaces. Lengths stay equal so every byte offset
//! and line number the readers report is still the file's own.
//!
//! Owns: the token scan (string and escape state carried across buffers). Must not:
//! decide what a missing value means (the mapper and dialects do) or warn (the readers
//! do, with the lines this reports).

/// What the scan knows at the end of one buffer, for the next.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Scan {
    in_string: bool,
    escaped: bool,
}

/// The replacement written over each token; same length as the token.
const REPLACEMENTS: [(&[u8], &[u8]); 3] = [
    (b"NaN", b"\"\" "),
    (b"-Infinity", b"null     "),
    (b"Infinity", b"null    "),
];

/// Overwrites every non-finite token in `buf` (outside strings). Returns the indices
/// where one was replaced, and how many bytes at the end could begin a token cut off by
/// the buffer's end (the caller reads them again with what follows; 0 when `last`).
pub(crate) fn replace(buf: &mut [u8], scan: &mut Scan, last: bool) -> (Vec<usize>, usize) {
    let mut found = Vec::new();
    let mut i = 0;
    while i < buf.len() {
        let b = buf[i];
        if scan.in_string {
            if scan.escaped {
                scan.escaped = false;
            } else if b == b'\\' {
                scan.escaped = true;
            } else if b == b'"' {
                scan.in_string = false;
            }
            i += 1;
            continue;
        }
        match b {
            b'"' => scan.in_string = true,
            b'N' | b'I' | b'-' => {
                let rest = &buf[i..];
                if let Some((token, with)) = REPLACEMENTS.iter().find(|(t, _)| rest.starts_with(t))
                {
                    buf[i..i + token.len()].copy_from_slice(with);
                    found.push(i);
                    i += token.len();
                    continue;
                }
                let cut = REPLACEMENTS
                    .iter()
                    .any(|(t, _)| rest.len() < t.len() && t.starts_with(rest));
                if cut && !last {
                    return (found, rest.len());
                }
            }
            _ => {}
        }
        i += 1;
    }
    (found, 0)
}

/// A whole line or value: the replaced copy and how many tokens it held, or `None` when
/// it holds none.
pub(crate) fn replaced(bytes: &[u8]) -> Option<(Vec<u8>, usize)> {
    let mut copy = bytes.to_vec();
    let (found, _) = replace(&mut copy, &mut Scan::default(), true);
    (!found.is_empty()).then_some((copy, found.len()))
}

/// The warning for a line holding non-finite tokens.
pub(crate) fn warning() -> String {
    "NaN / Infinity is not JSON (Python's json.dump writes it for a number it had none for); read as a missing value".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_outside_strings_become_missing_values_of_the_same_length() {
        let text = br#"{"a": NaN, "b": "NaN \" Infinity", "c": [-Infinity, Infinity]}"#;
        let (out, n) = replaced(text).unwrap();
        assert_eq!(n, 3, "the tokens inside the string are text");
        assert_eq!(out.len(), text.len());
        let value: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(value["a"], "");
        assert_eq!(value["b"], "NaN \" Infinity");
        assert_eq!(value["c"], serde_json::json!([null, null]));
    }

    #[test]
    fn a_token_cut_by_the_buffer_end_is_held_back() {
        let mut scan = Scan::default();
        let mut first = b"[1, Na".to_vec();
        assert_eq!(replace(&mut first, &mut scan, false), (vec![], 2));
        let mut whole = b"NaN]".to_vec();
        assert_eq!(replace(&mut whole, &mut scan, true).0, vec![0]);
        let mut string = b"[\"a\\\"".to_vec();
        replace(&mut string, &mut scan, false);
        let mut rest = b"NaN\"]".to_vec();
        assert!(
            replace(&mut rest, &mut scan, true).0.is_empty(),
            "still inside the string"
        );
    }
}
