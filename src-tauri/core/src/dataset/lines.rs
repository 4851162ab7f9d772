//! A bounded line reader: yields one line at a time with its 1-based number and byte
//! offset, and never buffers more than the line limit.
//!
//! Owns: splitting on `\n` (a trailing `\r` is dropped), skipping a leading UTF-8 BOM,
//! and measuring lines that are too long while discarding them. Must not: interpret the
//! bytes (JSON, CSV, UTF-8 are the callers' business) or read ahead more than one buffer.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

pub(crate) const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Read buffer for every streaming reader: large enough that syscalls are rare.
pub(crate) const READ_BUFFER: usize = 256 * 1024;

/// Opens `path` for buffered reading, positioned after a UTF-8 BOM if there is one.
/// Returns the reader and the number of bytes skipped (0 or 3).
pub(crate) fn open_after_bom(path: &Path) -> io::Result<(BufReader<File>, u64)> {
    let mut reader = BufReader::with_capacity(READ_BUFFER, File::open(path)?);
    let skipped = if reader.fill_buf()?.starts_with(BOM) {
        reader.consume(BOM.len());
        BOM.len() as u64
    } else {
        0
    };
    Ok((reader, skipped))
}

/// Where a line starts and whether it fit in the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Line {
    /// 1-based.
    pub number: u64,
    pub offset: u64,
    /// `Some(length)` when the line was longer than the limit; its bytes were discarded.
    pub too_long: Option<u64>,
}

pub(crate) struct LineReader<R> {
    inner: R,
    max: usize,
    next_number: u64,
    offset: u64,
}

impl<R: BufRead> LineReader<R> {
    /// `offset` is the byte position of `inner` in the file (e.g. 3 after a BOM).
    pub(crate) fn new(inner: R, offset: u64, max_line_bytes: usize) -> Self {
        LineReader {
            inner,
            max: max_line_bytes,
            next_number: 1,
            offset,
        }
    }

    /// Reads the next line into `buf` (cleared first, without the line ending).
    /// Returns `None` at end of file. A line over the limit comes back with
    /// `too_long` set and an empty `buf`; the reader has moved past it.
    pub(crate) fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Option<Line>> {
        buf.clear();
        let start = self.offset;
        let mut length: u64 = 0;
        let mut too_long = false;
        let mut saw_any = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(bytes) => bytes,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if available.is_empty() {
                if !saw_any {
                    return Ok(None);
                }
                break;
            }
            saw_any = true;
            let newline = find_newline(available);
            let content = newline.unwrap_or(available.len());
            if !too_long {
                if buf.len() + content > self.max {
                    too_long = true;
                    // Release the partial line: a 1 GB line must not stay in memory.
                    *buf = Vec::new();
                } else {
                    buf.extend_from_slice(&available[..content]);
                }
            }
            length += content as u64;
            let consumed = content + usize::from(newline.is_some());
            self.inner.consume(consumed);
            self.offset += consumed as u64;
            if newline.is_some() {
                break;
            }
        }
        if !too_long && buf.last() == Some(&b'\r') {
            buf.pop();
        }
        let number = self.next_number;
        self.next_number += 1;
        Ok(Some(Line {
            number,
            offset: start,
            too_long: too_long.then_some(length),
        }))
    }
}

/// Index of the first `\n`, eight bytes per step (this scan touches every byte).
pub(crate) fn find_newline(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    const NEWLINES: u64 = 0x0a0a_0a0a_0a0a_0a0a;
    let mut i = 0;
    while let Some(word) = bytes.get(i..i + 8) {
        let x = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ NEWLINES;
        // Non-zero exactly when some byte of x is zero, i.e. some byte was '\n'.
        if x.wrapping_sub(ONES) & !x & HIGHS != 0 {
            break;
        }
        i += 8;
    }
    bytes[i..].iter().position(|&b| b == b'\n').map(|p| i + p)
}

/// "20 MB", "3.5 KB", "120 bytes": sizes in messages the user reads.
pub(crate) fn human_bytes(n: u64) -> String {
    const KB: f64 = 1024.0;
    let x = n as f64;
    let (value, unit) = if x >= KB * KB * KB {
        (x / (KB * KB * KB), "GB")
    } else if x >= KB * KB {
        (x / (KB * KB), "MB")
    } else if x >= KB {
        (x / KB, "KB")
    } else {
        return format!("{n} bytes");
    };
    let rounded = format!("{value:.1}");
    format!("{} {unit}", rounded.strip_suffix(".0").unwrap_or(&rounded))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines_of(input: &[u8], max: usize) -> Vec<(Line, String)> {
        // A tiny buffer forces lines to straddle refills.
        let reader = BufReader::with_capacity(4, input);
        let mut lines = LineReader::new(reader, 0, max);
        let mut buf = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = lines.next_line(&mut buf).unwrap() {
            out.push((line, String::from_utf8(buf.clone()).unwrap()));
        }
        out
    }

    #[test]
    fn crlf_and_lf_lines_report_numbers_and_offsets() {
        let out = lines_of(b"ab\r\ncdef\n\nxyz", 100);
        let texts: Vec<&str> = out.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            texts,
            ["ab", "cdef", "", "xyz"],
            "CR is dropped, last line needs no newline"
        );
        let offsets: Vec<u64> = out.iter().map(|(l, _)| l.offset).collect();
        assert_eq!(offsets, [0, 4, 9, 10], "offsets count the CRLF bytes");
        assert_eq!(out[3].0.number, 4);
    }

    #[test]
    fn a_line_over_the_limit_is_measured_and_skipped() {
        let out = lines_of(b"short\n0123456789abcdef\nafter\n", 8);
        assert_eq!(out.len(), 3);
        assert_eq!(out[1].0.too_long, Some(16), "the full length is reported");
        assert_eq!(out[1].1, "", "none of the long line is kept");
        assert_eq!(out[2].1, "after", "reading resumes at the next line");
        assert_eq!(out[2].0.number, 3);
        assert_eq!(out[2].0.offset, 23);
    }

    #[test]
    fn newline_search_agrees_with_a_plain_scan() {
        let text = b"abcdefghij\nklmnopqrstuvwxyz0123456789\n\xff\x0b\x09\n";
        for start in 0..text.len() {
            let plain = text[start..].iter().position(|&b| b == b'\n');
            assert_eq!(find_newline(&text[start..]), plain, "from {start}");
        }
        assert_eq!(find_newline(&[b'x'; 100]), None);
    }

    #[test]
    fn sizes_read_naturally() {
        assert_eq!(human_bytes(20 * 1024 * 1024), "20 MB");
        assert_eq!(human_bytes(16 * 1024 * 1024), "16 MB");
        assert_eq!(human_bytes(1536), "1.5 KB");
        assert_eq!(human_bytes(300), "300 bytes");
    }
}
