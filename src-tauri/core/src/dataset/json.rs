//! JSON documents: a top-level array of records, or an object whose records are where
//! `outline` found them (lists under keys, the entries of a map, the whole object, or
//! several values one after another). Records are streamed one at a time through serde
//! visitors over a position-tracking reader, so each one's starting line is known and
//! only one is in memory.
//!
//! Owns: record streaming along the plan, per-record reasons, the lines where `NaN`
//! tokens were read as missing values, and ending the read at a syntax error (records
//! before it are kept; serde cannot resume after one). Must not: buffer the document, or
//! map fields (the collector does).

use std::fmt;
use std::path::Path;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::dialects::inspectorraget;
use super::finite;
use super::jsonl::invalid_json;
use super::lines::human_bytes;
use super::outline::{self, Plan, Step, WRAPPER_KEYS};
use super::report::Collector;
use super::tracked::{Position, TrackedRead};
use super::values::type_name;
use super::{DatasetError, Format};

/// Reads a JSON document; `wrapped` when it starts with `{` rather than `[`.
pub(crate) fn read(
    path: &Path,
    wrapped: bool,
    collector: &mut Collector<'_>,
) -> Result<(), DatasetError> {
    let display = path.display().to_string();
    let unreadable = |e: std::io::Error| DatasetError::unreadable(path, e);
    let max_element = collector.limits().max_line_bytes as u64;
    let (reader, position) = TrackedRead::open(path, max_element).map_err(unreadable)?;
    let mut de = serde_json::Deserializer::from_reader(reader);
    let mut stream = Stream {
        collector,
        position: Rc::clone(&position),
        abort: None,
        wrapper: None,
        group: Vec::new(),
    };

    let outcome = if wrapped {
        let outline = outline::read(path, max_element).map_err(unreadable)?;
        let plan = match outline::plan(&outline) {
            Ok(plan) => plan,
            Err(keys) => return Err(not_a_list(display, &outline, keys)),
        };
        match plan {
            Plan::Columns(_) => whole_document_fits(path, max_element, "of parallel lists")?,
            Plan::Joined => whole_document_fits(path, max_element, "of tasks and results")?,
            _ => {}
        }
        stream.plan(&mut de, plan)
    } else {
        stream.collector.set_format(Format::JsonArray);
        (&mut de)
            .deserialize_seq(ItemsVisitor(&mut stream))
            .and_then(|()| de.end())
    };
    for line in position.take_non_finite_lines() {
        stream.collector.warn(line, finite::warning());
    }
    let Err(e) = outcome else { return Ok(()) };
    if let Some(abort) = stream.abort.take() {
        return Err(abort);
    }
    if let Some((line, offset)) = position.oversize_element() {
        let reason = format!(
            "the element at line {line} is over the {} size limit; the rest of the file was not read",
            human_bytes(max_element)
        );
        stream.collector.reject(line, offset, reason);
        return Ok(());
    }
    if e.is_io() {
        return Err(unreadable(std::io::Error::other(e.to_string())));
    }
    let (_, offset) = position.now();
    if wrapped && stream.wrapper.is_none() {
        return Err(DatasetError::UnsupportedShape {
            path: display,
            message: format!(
                "{} (before any item list was found)",
                invalid_json(&e, true)
            ),
        });
    }
    let reason = format!(
        "{}; the rest of the file was not read",
        invalid_json(&e, true)
    );
    stream.collector.reject(e.line() as u64, offset, reason);
    Ok(())
}

/// Entry `i` of every list makes item `i`, and a result needs its task: such a document
/// is read whole, so one that would not fit the size of one record is refused, not
/// half-read.
fn whole_document_fits(path: &Path, max_element: u64, what: &str) -> Result<(), DatasetError> {
    let size = std::fs::metadata(path)
        .map_err(|e| DatasetError::unreadable(path, e))?
        .len();
    if size <= max_element {
        return Ok(());
    }
    Err(DatasetError::UnsupportedShape {
        path: path.display().to_string(),
        message: format!(
            "a JSON object {what} is read whole, and this one is {}, over the {} limit; \
             write it as JSONL, one item per line",
            human_bytes(size),
            human_bytes(max_element)
        ),
    })
}

struct Stream<'c, 'a> {
    collector: &'c mut Collector<'a>,
    position: Rc<Position>,
    /// The callback's stop request, carried past serde (which only knows its own errors).
    abort: Option<DatasetError>,
    /// The path of the first record list read.
    wrapper: Option<String>,
    /// The keys of the maps (and sibling lists) the current list sits under.
    group: Vec<String>,
}

type De = serde_json::Deserializer<serde_json::de::IoRead<TrackedRead>>;

impl Stream<'_, '_> {
    /// Streams the records where `plan` says they are.
    fn plan(&mut self, de: &mut De, plan: Plan) -> Result<(), serde_json::Error> {
        match plan {
            Plan::Lists { lists, side, spans } => {
                if let Some(dialect) = spans {
                    self.collector.expect_spans(dialect);
                }
                let paths: Vec<&[Step]> = lists.iter().map(Vec::as_slice).collect();
                let several = paths.len() > 1;
                (&mut *de).deserialize_map(PathVisitor {
                    stream: self,
                    paths,
                    side: side.as_deref(),
                    several,
                    at: String::new(),
                })?;
                if self.collector.nothing_read() {
                    let at = self.wrapper.clone().unwrap_or_default();
                    self.collector.warn(
                        1,
                        format!("0 items: the file holds no results (`{at}` is an empty list)"),
                    );
                }
            }
            Plan::Entries(key) => {
                self.collector.set_format(Format::JsonWrapper {
                    key: format!("{key}.*"),
                });
                self.wrapper = Some(key.clone());
                (&mut *de).deserialize_map(EntriesRoot {
                    stream: self,
                    key: &key,
                })?;
            }
            Plan::Columns(path) => {
                self.collector.set_format(Format::JsonColumns {
                    key: path.join("."),
                });
                self.wrapper = Some(path.join("."));
                // Columns are read whole: an item needs entry `i` of every list.
                let document = Value::deserialize(&mut *de)?;
                for record in super::columns::records(&document, &path) {
                    self.pass(1, 0, record)?;
                }
            }
            Plan::Joined => {
                self.collector.set_format(Format::JsonWrapper {
                    key: "tasks + results".into(),
                });
                self.wrapper = Some("results".into());
                let document = Value::deserialize(&mut *de)?;
                for record in inspectorraget::records(&document) {
                    match record {
                        Ok(record) => self.pass(1, 0, record)?,
                        Err(reason) => self.reject_record(1, 0, reason),
                    }
                }
            }
            Plan::Whole | Plan::Values => {
                self.collector.set_format(if plan == Plan::Whole {
                    Format::JsonObject
                } else {
                    Format::JsonValues
                });
                self.wrapper = Some(String::new());
                // `end` peeks past whitespace: an error means another value follows.
                while de.end().is_err() {
                    self.element(&mut *de)?;
                }
            }
        }
        de.end()
    }

    fn element<'de, D: Deserializer<'de>>(&mut self, d: D) -> Result<(), D::Error> {
        // serde_json has consumed the element's first byte (it peeks to see that an
        // element follows), so the element starts one byte back.
        let (line, offset) = self.position.now();
        let offset = offset.saturating_sub(1);
        self.position.set_element(Some((line, offset)));
        let value = Value::deserialize(d)?;
        self.position.set_element(None);
        match value {
            Value::Object(mut record) => {
                if !self.group.is_empty() && !record.contains_key("group") {
                    record.insert("group".into(), Value::String(self.group.join("/")));
                }
                self.pass(line, offset, record)
            }
            other => {
                let reason = format!("element holds {}, not a JSON object", type_name(&other));
                self.reject_record(line, offset, reason);
                Ok(())
            }
        }
    }

    /// A record of the document that is no item: rejected under its number when it
    /// shares its line (`Collector::start_record`).
    fn reject_record(&mut self, line: u64, offset: u64, reason: String) {
        self.collector.start_record(line);
        self.collector.reject(line, offset, reason);
        self.collector.end_record();
    }

    fn pass<E: de::Error>(
        &mut self,
        line: u64,
        offset: u64,
        record: Map<String, Value>,
    ) -> Result<(), E> {
        self.collector.start_record(line);
        let passed = self.collector.record(line, offset, record);
        self.collector.end_record();
        if let Err(stop) = passed {
            self.abort = Some(stop);
            return Err(de::Error::custom("import stopped"));
        }
        Ok(())
    }

    fn elements<'de, A: SeqAccess<'de>>(&mut self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(ElementSeed(self))?.is_some() {}
        Ok(())
    }
}

struct ElementSeed<'s, 'c, 'a>(&'s mut Stream<'c, 'a>);

impl<'de> DeserializeSeed<'de> for ElementSeed<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        self.0.element(d)
    }
}

/// The top-level array.
struct ItemsVisitor<'s, 'c, 'a>(&'s mut Stream<'c, 'a>);

impl<'de> Visitor<'de> for ItemsVisitor<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of items")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.0.elements(seq)
    }
}

/// An object on the way to record lists: follows the keys the plan's paths name (every
/// key for `Each`), streams the arrays where a path ends, skips everything else.
struct PathVisitor<'s, 'p, 'c, 'a> {
    stream: &'s mut Stream<'c, 'a>,
    paths: Vec<&'p [Step]>,
    /// A top-level key whose object goes to the collector whole (Langfuse's `trace`).
    side: Option<&'p str>,
    /// Several lists: each list's own key is part of its records' group.
    several: bool,
    /// The keys followed so far, joined by dots.
    at: String,
}

impl<'de> Visitor<'de> for PathVisitor<'_, '_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object holding record lists")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if self.side == Some(key.as_str()) {
                let (line, offset) = self.stream.position.now();
                let value: Value = map.next_value()?;
                let elsewhere = !self.paths.is_empty();
                self.stream
                    .collector
                    .envelope(line, offset, value, elsewhere);
                continue;
            }
            let matched: Vec<(&Step, &[Step])> = self
                .paths
                .iter()
                .filter(|p| match &p[0] {
                    Step::Each => true,
                    Step::Key(k) => k.eq_ignore_ascii_case(&key),
                })
                .map(|p| (&p[0], &p[1..]))
                .collect();
            if matched.is_empty() {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let grouped = matched
                .iter()
                .any(|(s, rest)| **s == Step::Each || (self.several && rest.is_empty()));
            if grouped {
                self.stream.group.push(key.clone());
            }
            let at = if self.at.is_empty() {
                key.clone()
            } else {
                format!("{}.{key}", self.at)
            };
            map.next_value_seed(PathSeed {
                stream: &mut *self.stream,
                paths: matched.into_iter().map(|(_, rest)| rest).collect(),
                several: self.several,
                at,
            })?;
            if grouped {
                self.stream.group.pop();
            }
        }
        Ok(())
    }
}

/// The value at a key a path goes through: the list itself where a path ends there, an
/// object to go on into otherwise; anything else is skipped.
struct PathSeed<'s, 'p, 'c, 'a> {
    stream: &'s mut Stream<'c, 'a>,
    paths: Vec<&'p [Step]>,
    several: bool,
    at: String,
}

impl<'de> DeserializeSeed<'de> for PathSeed<'_, '_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for PathSeed<'_, '_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if !self.paths.iter().any(|p| p.is_empty()) {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        if self.stream.wrapper.is_none() {
            self.stream.collector.set_format(Format::JsonWrapper {
                key: self.at.clone(),
            });
            self.stream.wrapper = Some(self.at.clone());
        }
        self.stream.elements(seq)
    }
    fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<(), M::Error> {
        let paths: Vec<&[Step]> = self.paths.into_iter().filter(|p| !p.is_empty()).collect();
        PathVisitor {
            stream: self.stream,
            paths,
            side: None,
            several: self.several,
            at: self.at,
        }
        .visit_map(map)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Ok(())
    }
}

/// The top-level object of a file whose records are the entries of one of its objects.
struct EntriesRoot<'s, 'k, 'c, 'a> {
    stream: &'s mut Stream<'c, 'a>,
    key: &'k str,
}

impl<'de> Visitor<'de> for EntriesRoot<'_, '_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(key) = map.next_key::<String>()? {
            if key == self.key {
                map.next_value_seed(Entries(&mut *self.stream))?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// Each entry a record: the value's fields plus its key under `lookup_key`.
struct Entries<'s, 'c, 'a>(&'s mut Stream<'c, 'a>);

impl<'de> DeserializeSeed<'de> for Entries<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for Entries<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object of records")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        while let Some(key) = map.next_key::<String>()? {
            let (line, offset) = self.0.position.now();
            match map.next_value::<Value>()? {
                Value::Object(mut record) => {
                    record.insert("lookup_key".into(), Value::String(key));
                    self.0.pass(line, offset, record)?;
                }
                other => self.0.collector.reject(
                    line,
                    offset,
                    format!("entry holds {}, not a JSON object", type_name(&other)),
                ),
            }
        }
        Ok(())
    }
}

/// Why a JSON object could not be read: a syntax error before any list, or no list.
fn not_a_list(path: String, outline: &outline::Outline, keys: Vec<String>) -> DatasetError {
    let message = match &outline.error {
        Some(e) => format!("{} (before any item list was found)", invalid_json(e, true)),
        None => {
            let listed = if keys.is_empty() {
                "none".to_string()
            } else {
                keys.join(", ")
            };
            format!(
                "a JSON object that is not an item list or a known wrapper ({}); its top-level keys are: {listed}",
                WRAPPER_KEYS.join("/")
            )
        }
    };
    DatasetError::UnsupportedShape { path, message }
}
