//! A buffered file reader that knows where it is, for the JSON streamer (serde_json does
//! not expose its position): the reader goes to serde, and a shared `Position` answers
//! "which line and byte offset is next?" for the visitors, and caps the size of the
//! element being read.
//!
//! Owns: byte offsets, line numbers, the element size cap, and overwriting Python's
//! `NaN` / `Infinity` tokens as each buffer is read (`finite`, same length, so offsets
//! stay the file's). Must not: otherwise understand JSON.
//! serde_json reads one byte per call, so that path is a compare, a copy and a store;
//! newlines are indexed once per buffer refill.

use std::cell::{Cell, RefCell};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::rc::Rc;

use super::finite;
use super::lines::{find_newline, BOM, READ_BUFFER};

/// The reader's position, readable while serde owns the reader.
#[derive(Debug, Default)]
pub(crate) struct Position {
    /// Next unread index into the current buffer.
    pos: Cell<usize>,
    end: Cell<usize>,
    /// File offset of the buffer's first byte.
    base: Cell<u64>,
    /// Newlines before the buffer's first byte.
    lines_before: Cell<u64>,
    /// Indices of `\n` in the current buffer.
    newlines: RefCell<Vec<u32>>,
    /// The byte-at-a-time path runs while `pos < fast_stop` (see `stop`).
    fast_stop: Cell<usize>,
    max_element: u64,
    element: Cell<Option<(u64, u64)>>,
    oversize: Cell<Option<(u64, u64)>>,
    /// Lines holding a `NaN` / `Infinity` token that was read as a missing value.
    non_finite: RefCell<Vec<u64>>,
}

impl Position {
    /// (1-based line, byte offset) of the next unread byte.
    pub(crate) fn now(&self) -> (u64, u64) {
        let pos = self.pos.get();
        let before = self
            .newlines
            .borrow()
            .partition_point(|&i| (i as usize) < pos) as u64;
        (
            self.lines_before.get() + before + 1,
            self.base.get() + pos as u64,
        )
    }

    /// Starts (with the element's line and offset) or ends (`None`) a size-capped element.
    pub(crate) fn set_element(&self, start: Option<(u64, u64)>) {
        self.element.set(start);
        self.fast_stop.set(self.stop());
    }

    /// (line, offset) of an element that grew past the cap; reading failed there.
    pub(crate) fn oversize_element(&self) -> Option<(u64, u64)> {
        self.oversize.get()
    }

    /// The lines where `NaN` / `Infinity` tokens were read as missing values so far.
    pub(crate) fn take_non_finite_lines(&self) -> Vec<u64> {
        std::mem::take(&mut *self.non_finite.borrow_mut())
    }

    /// The buffer end, or the index at which the current element passes the cap.
    fn stop(&self) -> usize {
        let end = self.end.get();
        match self.element.get() {
            None => end,
            Some((_, start)) => {
                let limit = (start + self.max_element).saturating_sub(self.base.get());
                end.min(usize::try_from(limit).unwrap_or(usize::MAX))
            }
        }
    }
}

/// The `Read` handed to serde_json.
pub(crate) struct TrackedRead {
    file: File,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Bytes after `end` that may begin a non-finite token; read again with what follows.
    carry: usize,
    scan: finite::Scan,
    shared: Rc<Position>,
}

impl TrackedRead {
    /// Opens `path` positioned after a UTF-8 BOM, if any.
    pub(crate) fn open(path: &Path, max_element: u64) -> io::Result<(TrackedRead, Rc<Position>)> {
        let shared = Rc::new(Position {
            max_element,
            ..Position::default()
        });
        let mut reader = TrackedRead {
            file: File::open(path)?,
            buf: vec![0; READ_BUFFER].into_boxed_slice(),
            pos: 0,
            end: 0,
            carry: 0,
            scan: finite::Scan::default(),
            shared: Rc::clone(&shared),
        };
        reader.refill()?;
        if reader.buf[..reader.end].starts_with(BOM) {
            reader.pos = BOM.len();
            shared.pos.set(reader.pos);
        }
        Ok((reader, shared))
    }

    fn refill(&mut self) -> io::Result<()> {
        let shared = &self.shared;
        let mut newlines = shared.newlines.borrow_mut();
        shared
            .lines_before
            .set(shared.lines_before.get() + newlines.len() as u64);
        shared.base.set(shared.base.get() + self.end as u64);
        let found = loop {
            let carry = self.carry;
            self.buf.copy_within(self.end..self.end + carry, 0);
            let n = loop {
                match self.file.read(&mut self.buf[carry..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            };
            let total = carry + n;
            let (found, keep) = finite::replace(&mut self.buf[..total], &mut self.scan, n == 0);
            self.end = total - keep;
            self.carry = keep;
            // A read that only brought part of a token: read on until there is a byte.
            if self.end > 0 || n == 0 {
                break found;
            }
        };
        self.pos = 0;
        newlines.clear();
        let mut from = 0;
        while let Some(i) = find_newline(&self.buf[from..self.end]) {
            newlines.push((from + i) as u32);
            from += i + 1;
        }
        let mut lines = shared.non_finite.borrow_mut();
        for at in found {
            let line = shared.lines_before.get()
                + newlines.partition_point(|&i| (i as usize) < at) as u64
                + 1;
            if lines.last() != Some(&line) {
                lines.push(line);
            }
        }
        drop(lines);
        drop(newlines);
        shared.pos.set(0);
        shared.end.set(self.end);
        shared.fast_stop.set(shared.stop());
        Ok(())
    }

    #[cold]
    fn read_slow(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.end {
            self.refill()?;
            if self.end == 0 {
                return Ok(0);
            }
        }
        if let Some((line, start)) = self.shared.element.get() {
            if self.shared.base.get() + self.pos as u64 - start >= self.shared.max_element {
                self.shared.oversize.set(Some((line, start)));
                return Err(io::Error::other("JSON element over the size limit"));
            }
        }
        let stop = self.shared.fast_stop.get().max(self.pos + 1).min(self.end);
        let n = out.len().min(stop - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        self.shared.pos.set(self.pos);
        Ok(n)
    }
}

impl Read for TrackedRead {
    #[inline]
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.len() == 1 && self.pos < self.shared.fast_stop.get() {
            out[0] = self.buf[self.pos];
            self.pos += 1;
            self.shared.pos.set(self.pos);
            return Ok(1);
        }
        self.read_slow(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn positions_count_lines_and_skip_the_bom() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"\xEF\xBB\xBF[\n{},\n\n{}]").unwrap();
        let (mut reader, position) = TrackedRead::open(file.path(), 1 << 20).unwrap();
        assert_eq!(
            position.now(),
            (1, 3),
            "the BOM is skipped but counted in offsets"
        );
        let mut byte = [0u8; 1];
        for _ in 0..6 {
            reader.read_exact(&mut byte).unwrap();
        }
        assert_eq!(byte[0], b'\n');
        assert_eq!(position.now(), (3, 9), "two newlines consumed");
    }

    #[test]
    fn an_element_past_the_cap_fails_the_read() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"[\"0123456789\"]").unwrap();
        let (mut reader, position) = TrackedRead::open(file.path(), 4).unwrap();
        let mut byte = [0u8; 1];
        reader.read_exact(&mut byte).unwrap();
        position.set_element(Some((1, 1)));
        let read = (0..10)
            .map(|_| reader.read(&mut byte))
            .take_while(Result::is_ok)
            .count();
        assert_eq!(read, 4, "exactly the cap is readable");
        assert_eq!(position.oversize_element(), Some((1, 1)));
    }
}
