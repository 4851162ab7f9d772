//! Python literals as pandas writes them into CSV cells (`str(dict)`, `str(list)`):
//! `{'name': 'x', 'n': 1, 'ok': True, 'none': None, 'tags': ['a', "b's"]}`.
//!
//! Owns: turning such a cell into JSON (dicts as objects, lists and tuples as arrays,
//! `None` as null, `nan` as null, `True`/`False`, numbers, strings with Python's
//! escapes, an enum member such as `EventRecordType.SPAN` as its text). Must not: run
//! anything, or accept a cell it cannot read whole (`None`: the cell stays text).

use serde_json::{Map, Number, Value};

/// The cell as JSON when the whole of it is one Python literal.
pub(crate) fn parse(cell: &str) -> Option<Value> {
    let mut reader = Reader {
        chars: cell.chars().collect(),
        at: 0,
        depth: 0,
    };
    let value = reader.value()?;
    reader.skip_space();
    (reader.at == reader.chars.len()).then_some(value)
}

/// Nesting beyond this is no cell anyone wrote; refusing it keeps the stack bounded.
const MAX_DEPTH: usize = 64;

struct Reader {
    chars: Vec<char>,
    at: usize,
    depth: usize,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.skip_space();
        match self.peek()? {
            '{' => self.nested('}', true),
            '[' => self.nested(']', false),
            '(' => self.nested(')', false),
            '\'' | '"' => self.string().map(Value::String),
            c if c == '-' || c == '+' || c == '.' || c.is_ascii_digit() => self.number(),
            c if c.is_alphabetic() || c == '_' => self.word(),
            _ => None,
        }
    }

    /// A dict (`map`) or a list / tuple, up to `close`; a trailing comma is allowed.
    /// Strings side by side in a list (numpy's `['a' 'b']`) are separate elements.
    fn nested(&mut self, close: char, map: bool) -> Option<Value> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        self.at += 1;
        let mut object = Map::new();
        let mut list = Vec::new();
        loop {
            self.skip_space();
            match self.peek()? {
                c if c == close => {
                    self.at += 1;
                    break;
                }
                ',' if !list.is_empty() || !object.is_empty() => {
                    self.at += 1;
                    continue;
                }
                _ => {}
            }
            let item = self.value()?;
            if map {
                self.skip_space();
                if self.peek()? != ':' {
                    return None;
                }
                self.at += 1;
                let key = match item {
                    Value::String(key) => key,
                    Value::Null | Value::Object(_) | Value::Array(_) => return None,
                    other => other.to_string(),
                };
                object.insert(key, self.value()?);
            } else {
                list.push(item);
            }
            self.skip_space();
            if !matches!(self.peek()?, ',' | '\'' | '"') && self.peek()? != close {
                return None;
            }
        }
        self.depth -= 1;
        Some(if map {
            Value::Object(object)
        } else {
            Value::Array(list)
        })
    }

    /// A string literal, with an optional `r`, `u` or `b` prefix, in single, double or
    /// triple quotes.
    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        let triple = self.chars[self.at..].starts_with(&[quote, quote, quote]);
        self.at += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            if c == quote {
                if !triple {
                    return Some(out);
                }
                if self.chars[self.at..].starts_with(&[quote, quote]) {
                    self.at += 2;
                    return Some(out);
                }
                out.push(c);
                continue;
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let escaped = self.peek()?;
            self.at += 1;
            match escaped {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                'x' => out.push(self.code_point(2)?),
                'u' => out.push(self.code_point(4)?),
                'U' => out.push(self.code_point(8)?),
                '\n' => {}
                other => out.push(other),
            }
        }
    }

    fn code_point(&mut self, digits: usize) -> Option<char> {
        let hex: String = self.chars.get(self.at..self.at + digits)?.iter().collect();
        self.at += digits;
        char::from_u32(u32::from_str_radix(&hex, 16).ok()?)
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.' | '_'))
        {
            self.at += 1;
        }
        let text: String = self.chars[start..self.at]
            .iter()
            .filter(|&&c| c != '_')
            .collect();
        if let Ok(n) = text.parse::<i64>() {
            return Some(Value::Number(n.into()));
        }
        let n = text.parse::<f64>().ok()?;
        // `-inf` and friends have no JSON number: a missing value, as NaN is.
        Some(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    /// `None`, `True`, `False`, `nan`, `inf`, a string prefix, or a dotted name (an
    /// enum member) read as its text. A name followed by `(` is a call, and any other
    /// bare name no literal.
    fn word(&mut self) -> Option<Value> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            self.at += 1;
        }
        let word: String = self.chars[start..self.at].iter().collect();
        if matches!(self.peek(), Some('\'' | '"'))
            && matches!(
                word.to_ascii_lowercase().as_str(),
                "r" | "u" | "b" | "rb" | "br"
            )
        {
            let raw = word.to_ascii_lowercase().contains('r');
            return if raw {
                self.raw_string().map(Value::String)
            } else {
                self.string().map(Value::String)
            };
        }
        if self.peek() == Some('(') {
            return None;
        }
        Some(match word.as_str() {
            "None" | "nan" | "NaN" | "inf" => Value::Null,
            "True" => Value::Bool(true),
            "False" => Value::Bool(false),
            // `EventRecordType.SPAN`: an enum member's repr without its value.
            _ if word.contains('.') => Value::String(word),
            // Any other bare name is code, or a cell that only looks like a list.
            _ => return None,
        })
    }

    /// A raw string: backslashes are kept as written.
    fn raw_string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.at += 1;
        let mut out = String::new();
        loop {
            let c = self.peek()?;
            self.at += 1;
            match c {
                c if c == quote => return Some(out),
                '\\' => {
                    out.push('\\');
                    out.push(self.peek()?);
                    self.at += 1;
                }
                c => out.push(c),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pandas_dict_cell_reads_as_json() {
        let cell = r#"{'name': 'q', 'kind': 1, 'ok': True, 'gone': None, 'score': 0.5, 'tags': ['a', "b's"], 'type': EventRecordType.SPAN, 'nested': {'x': (1, 2)}}"#;
        assert_eq!(
            parse(cell).unwrap(),
            json!({"name": "q", "kind": 1, "ok": true, "gone": null, "score": 0.5,
                   "tags": ["a", "b's"], "type": "EventRecordType.SPAN",
                   "nested": {"x": [1, 2]}})
        );
    }

    #[test]
    fn escapes_and_prefixes_are_python_s() {
        assert_eq!(
            parse(r"'line\none \'q\' caf\xe9 \u00e9'").unwrap(),
            json!("line\none 'q' café é")
        );
        assert_eq!(parse(r"r'a\nb'").unwrap(), json!("a\\nb"));
        assert_eq!(parse("'''it's'''").unwrap(), json!("it's"));
        assert_eq!(parse("[nan, -1e3, 2]").unwrap(), json!([null, -1000.0, 2]));
    }

    #[test]
    fn numpy_lists_without_commas_are_separate_elements() {
        assert_eq!(parse("['a' 'b']").unwrap(), json!(["a", "b"]));
    }

    #[test]
    fn what_is_not_one_whole_literal_stays_text() {
        for cell in [
            "{'a': 1",
            "{'a': 1} and more",
            "datetime.datetime(2024, 1, 1)",
            "{'a' 1}",
            "[1 2]",
            "",
            "{'a': open('x')}",
            "[not, a, list]",
        ] {
            assert_eq!(parse(cell), None, "{cell}");
        }
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep), None, "too deep");
    }
}
