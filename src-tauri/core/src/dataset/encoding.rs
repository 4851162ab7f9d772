//! Text that is not UTF-8, and files that are not text. One rule wherever the byte sits:
//! a line or row whose bytes are not UTF-8 but are Windows-1252 text (Latin-1's superset,
//! what Excel and older Windows tools write: "café" as `caf\xe9`) is read as Windows-1252
//! with a warning naming the encoding; one that is neither is rejected with "re-save the
//! file as UTF-8". Only a real binary file — a known file signature, or NUL bytes in
//! numbers no text has — is refused whole. A stray byte in the first 8 KB used to refuse
//! the file where the same byte later rejected one line.
//!
//! Owns: those decisions and the Windows-1252 table. Must not: read files.

/// The characters of Windows-1252's 0x80–0x9F, where it differs from Latin-1; `None` for
/// the five bytes it leaves undefined.
const HIGH: [Option<char>; 32] = [
    Some('€'),
    None,
    Some('‚'),
    Some('ƒ'),
    Some('„'),
    Some('…'),
    Some('†'),
    Some('‡'),
    Some('ˆ'),
    Some('‰'),
    Some('Š'),
    Some('‹'),
    Some('Œ'),
    None,
    Some('Ž'),
    None,
    None,
    Some('\u{2018}'),
    Some('\u{2019}'),
    Some('\u{201C}'),
    Some('\u{201D}'),
    Some('•'),
    Some('–'),
    Some('—'),
    Some('˜'),
    Some('™'),
    Some('š'),
    Some('›'),
    Some('œ'),
    None,
    Some('ž'),
    Some('Ÿ'),
];

/// The warning on a line or row read as Windows-1252.
pub const READ_AS_1252: &str =
    "not UTF-8: read as Windows-1252 (Latin-1); re-save the file as UTF-8 to be sure every character is right";

/// The reason a line or row is rejected when its bytes are no text encoding Ragnosis reads.
pub const NOT_TEXT: &str = "is not UTF-8 text (nor Windows-1252): re-save the file as UTF-8";

/// `bytes` as Windows-1252 text, or `None` when they hold a byte it leaves undefined or a
/// control character other than tab, line feed and carriage return (no text has those).
pub fn windows_1252(bytes: &[u8]) -> Option<String> {
    let mut out = String::with_capacity(bytes.len() + bytes.len() / 8);
    for &b in bytes {
        let c = match b {
            b'\t' | b'\n' | b'\r' => b as char,
            0x00..=0x1F | 0x7F => return None,
            0x80..=0x9F => HIGH[(b - 0x80) as usize]?,
            _ => b as char,
        };
        out.push(c);
    }
    Some(out)
}

/// What a non-UTF-8 line or row becomes: the UTF-8 bytes to read and whether they were
/// transcoded (`Ok(None)`: already UTF-8), or the rejection when they are no text.
pub fn as_utf8(bytes: &[u8]) -> Result<Option<Vec<u8>>, &'static str> {
    if std::str::from_utf8(bytes).is_ok() {
        return Ok(None);
    }
    windows_1252(bytes)
        .map(|text| Some(text.into_bytes()))
        .ok_or(NOT_TEXT)
}

/// File signatures of formats that are never a dataset text, by what they are.
const SIGNATURES: &[(&[u8], &str)] = &[
    (b"%PDF", "a PDF document"),
    (
        b"PK\x03\x04",
        "a ZIP archive (an Excel or Word file is one)",
    ),
    (b"\x89PNG", "a PNG image"),
    (b"\xFF\xD8\xFF", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1F\x8B", "a gzip archive"),
    (b"SQLite format 3\0", "an SQLite database"),
    (b"\x7FELF", "a program"),
    (b"\xD0\xCF\x11\xE0", "an old Office document"),
    (b"\xFF\xFE", "UTF-16 text"),
    (b"\xFE\xFF", "UTF-16 text"),
];

/// Why the start of a file says it is not a text file, if it does: a known signature,
/// or NUL bytes in a number no text has (UTF-16 has one in every other byte).
pub fn binary_kind(head: &[u8]) -> Option<&'static str> {
    if let Some((_, what)) = SIGNATURES.iter().find(|(sig, _)| head.starts_with(sig)) {
        return Some(what);
    }
    let nuls = head.iter().filter(|&&b| b == 0).count();
    (nuls > 8 && nuls * 100 >= head.len()).then_some("binary data (NUL bytes throughout)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_1_and_windows_1252_text_reads_as_itself() {
        assert_eq!(
            windows_1252(b"caf\xe9 \x80 5 \x93q\x94").unwrap(),
            "café € 5 “q”"
        );
        assert_eq!(as_utf8(b"plain").unwrap(), None, "UTF-8 is left alone");
        assert_eq!(as_utf8(b"na\xefve").unwrap().unwrap(), "naïve".as_bytes());
        assert_eq!(as_utf8(b"bad\x00\xe9"), Err(NOT_TEXT), "a NUL is no text");
        assert_eq!(as_utf8(b"undefined \x81"), Err(NOT_TEXT));
    }

    #[test]
    fn only_a_real_binary_file_is_refused_whole() {
        assert!(binary_kind(b"%PDF-1.7\n...").is_some());
        assert!(binary_kind(b"PK\x03\x04rest").is_some());
        let utf16: Vec<u8> = "{\"question\": \"q\"}"
            .bytes()
            .flat_map(|b| [b, 0])
            .collect();
        assert!(binary_kind(&utf16).is_some());
        assert!(binary_kind(b"{\"question\": \"caf\xe9\"}\n").is_none());
        assert!(binary_kind(b"{\"question\": \"a stray \x00 NUL\"}\n").is_none());
    }
}
