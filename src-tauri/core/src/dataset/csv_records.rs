//! CSV records on top of the bounded line reader: RFC 4180 quoting (`""` escapes,
//! delimiters and newlines inside quotes), with the true starting line and byte offset
//! of every record.
//!
//! Why not the csv crate's reader: its record positions skip blank lines and the `\n`
//! of CRLF, so line numbers drift on Excel exports; reports must name the right line.
//! Owns: splitting bytes into fields. Must not: interpret headers or cells.

use std::io::{self, BufRead};

use super::lines::{Line, LineReader};

/// One record's fields (raw bytes, quotes removed) and where it starts.
#[derive(Debug, Default)]
pub(crate) struct Record {
    pub fields: Vec<Vec<u8>>,
    /// Fields in use; `fields` beyond this are spare buffers.
    pub len: usize,
    pub line: u64,
    pub offset: u64,
}

impl Record {
    pub(crate) fn fields(&self) -> &[Vec<u8>] {
        &self.fields[..self.len]
    }

    fn start_field(&mut self) {
        if self.len == self.fields.len() {
            self.fields.push(Vec::new());
        } else {
            self.fields[self.len].clear();
        }
        self.len += 1;
    }

    fn push(&mut self, byte: u8) {
        self.fields[self.len - 1].push(byte);
    }
}

/// What `next_record` produced.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Next {
    Record,
    /// A record over the size limit; its lines were skipped and reading resumes after.
    TooLong {
        line: u64,
        offset: u64,
    },
    /// The file ended inside a quoted field that started in this record.
    Unclosed {
        line: u64,
        offset: u64,
    },
    End,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    FieldStart,
    Unquoted,
    Quoted,
    /// A `"` inside a quoted field: either the end of the quotes or the first of `""`.
    QuoteInQuoted,
}

pub(crate) struct CsvRecords<R> {
    lines: LineReader<R>,
    delimiter: u8,
    max_record: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> CsvRecords<R> {
    pub(crate) fn new(lines: LineReader<R>, delimiter: u8, max_record_bytes: usize) -> Self {
        CsvRecords {
            lines,
            delimiter,
            max_record: max_record_bytes,
            buf: Vec::new(),
        }
    }

    /// Reads the next non-blank record into `record`.
    pub(crate) fn next_record(&mut self, record: &mut Record) -> io::Result<Next> {
        let first = loop {
            match self.lines.next_line(&mut self.buf)? {
                None => return Ok(Next::End),
                Some(line) if line.too_long.is_some() => {
                    return Ok(Next::TooLong {
                        line: line.number,
                        offset: line.offset,
                    })
                }
                Some(_) if self.buf.iter().all(u8::is_ascii_whitespace) => continue,
                Some(line) => break line,
            }
        };
        let Line { number, offset, .. } = first;
        record.len = 0;
        record.line = number;
        record.offset = offset;
        record.start_field();
        let mut state = State::FieldStart;
        let mut size = 0;
        loop {
            size += self.buf.len() + 1;
            if size > self.max_record {
                return Ok(Next::TooLong {
                    line: number,
                    offset,
                });
            }
            for &b in &self.buf {
                state = match (state, b) {
                    (State::FieldStart, b'"') => State::Quoted,
                    (State::Quoted, b'"') => State::QuoteInQuoted,
                    (State::QuoteInQuoted, b'"') => {
                        record.push(b'"');
                        State::Quoted
                    }
                    (State::Quoted, _) => {
                        record.push(b);
                        State::Quoted
                    }
                    (_, b) if b == self.delimiter => {
                        record.start_field();
                        State::FieldStart
                    }
                    // Text after a closing quote, or a quote mid-field: kept as written.
                    (_, _) => {
                        record.push(b);
                        State::Unquoted
                    }
                };
            }
            if state != State::Quoted {
                return Ok(Next::Record);
            }
            // A newline inside quotes belongs to the field; the record goes on.
            record.push(b'\n');
            match self.lines.next_line(&mut self.buf)? {
                Some(line) if line.too_long.is_none() => {}
                Some(_) => {
                    return Ok(Next::TooLong {
                        line: number,
                        offset,
                    })
                }
                None => {
                    return Ok(Next::Unclosed {
                        line: number,
                        offset,
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn records(input: &str) -> Vec<(u64, u64, Vec<String>)> {
        let lines = LineReader::new(BufReader::new(input.as_bytes()), 0, 1000);
        let mut reader = CsvRecords::new(lines, b',', 1000);
        let mut record = Record::default();
        let mut out = Vec::new();
        while reader.next_record(&mut record).unwrap() == Next::Record {
            let fields = record
                .fields()
                .iter()
                .map(|f| String::from_utf8(f.clone()).unwrap())
                .collect();
            out.push((record.line, record.offset, fields));
        }
        out
    }

    #[test]
    fn quotes_escapes_and_embedded_newlines() {
        let got =
            records("h1,h2\r\n\"a, b\",\"say \"\"hi\"\"\"\r\n\r\n\"two\r\nlines\",x\nlast,\n");
        assert_eq!(got[0], (1, 0, vec!["h1".into(), "h2".into()]));
        assert_eq!(got[1], (2, 7, vec!["a, b".into(), "say \"hi\"".into()]));
        assert_eq!(
            got[2],
            (4, 30, vec!["two\nlines".into(), "x".into()]),
            "blank line 3 counted"
        );
        assert_eq!(
            got[3],
            (6, 45, vec!["last".into(), "".into()]),
            "a trailing delimiter is an empty field"
        );
    }

    #[test]
    fn an_unclosed_quote_ends_as_unclosed_not_a_hang() {
        let lines = LineReader::new(BufReader::new("\"open,\nmore\nstill".as_bytes()), 0, 1000);
        let mut reader = CsvRecords::new(lines, b',', 1000);
        let mut record = Record::default();
        assert_eq!(
            reader.next_record(&mut record).unwrap(),
            Next::Unclosed { line: 1, offset: 0 }
        );
        assert_eq!(reader.next_record(&mut record).unwrap(), Next::End);
    }
}
