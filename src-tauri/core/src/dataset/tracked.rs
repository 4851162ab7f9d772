//! A buffered file reader that knows where it is: byte offset and line number of the
//! next byte, computed lazily, plus a size cap on the JSON element being read.
//!
//! Owns: positions for the JSON streamer (serde_json does not expose its own). Must not:
//! understand JSON. It is shared (`Rc<RefCell>`) between serde's reader and the
//! visitors that ask for positions; serde_json reads one byte per call, so the hot
//! path is a bounds check and a copy.

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::rc::Rc;

use super::lines::{BOM, READ_BUFFER};

pub(crate) struct Tracker {
    file: File,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// File offset of `buf[0]`.
    base: u64,
    /// Newlines in `buf[..counted]` are already in `newlines`.
    counted: usize,
    newlines: u64,
    max_element: u64,
    /// (line, offset) of the element being deserialized, while it is.
    pub element_start: Option<(u64, u64)>,
    /// Set when an element grew past `max_element`; reading then fails.
    pub oversize_element: Option<(u64, u64)>,
}

impl Tracker {
    /// Opens `path` positioned after a UTF-8 BOM, if any.
    pub(crate) fn open(path: &Path, max_element: u64) -> io::Result<Tracker> {
        let mut tracker = Tracker {
            file: File::open(path)?,
            buf: vec![0; READ_BUFFER].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: 0,
            counted: 0,
            newlines: 0,
            max_element,
            element_start: None,
            oversize_element: None,
        };
        tracker.refill()?;
        if tracker.buf[..tracker.end].starts_with(BOM) {
            tracker.pos = BOM.len();
            tracker.counted = BOM.len();
        }
        Ok(tracker)
    }

    /// (1-based line, byte offset) of the next unread byte.
    pub(crate) fn position(&mut self) -> (u64, u64) {
        let pending = &self.buf[self.counted..self.pos];
        self.newlines += pending.iter().filter(|&&b| b == b'\n').count() as u64;
        self.counted = self.pos;
        (self.newlines + 1, self.base + self.pos as u64)
    }

    fn refill(&mut self) -> io::Result<()> {
        self.position();
        self.base += self.end as u64;
        self.pos = 0;
        self.counted = 0;
        self.end = loop {
            match self.file.read(&mut self.buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            }
        };
        Ok(())
    }

    fn read_into(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.end {
            self.refill()?;
            if self.end == 0 {
                return Ok(0);
            }
        }
        if let Some((line, start)) = self.element_start {
            if self.base + self.pos as u64 - start > self.max_element {
                self.oversize_element = Some((line, start));
                return Err(io::Error::other("JSON element over the size limit"));
            }
        }
        let n = out.len().min(self.end - self.pos);
        if n == 1 {
            out[0] = self.buf[self.pos];
        } else {
            out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        }
        self.pos += n;
        Ok(n)
    }
}

/// The `Read` handed to serde_json; the visitors keep the other handle.
pub(crate) struct TrackedRead(pub Rc<RefCell<Tracker>>);

impl Read for TrackedRead {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        self.0.borrow_mut().read_into(out)
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
        let mut t = Tracker::open(file.path(), 1 << 20).unwrap();
        assert_eq!(t.position(), (1, 3), "the BOM is skipped but counted in offsets");
        let mut byte = [0u8; 1];
        for _ in 0..5 {
            t.read_into(&mut byte).unwrap();
        }
        assert_eq!(byte[0], b'\n');
        assert_eq!(t.position(), (3, 8), "two newlines consumed");
    }
}
