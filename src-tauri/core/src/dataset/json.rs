//! JSON documents: a top-level array of items, or an object whose `results` / `data` /
//! `items` array holds them. Elements are streamed one at a time through serde visitors
//! over a position-tracking reader, so each element's starting line is known and only
//! one element is in memory.
//!
//! Owns: element streaming, wrapper-key search, per-element reasons, and ending the read
//! at a syntax error (items before it are kept; serde cannot resume after one). Must
//! not: buffer the document, or map fields (the collector does).

use std::fmt;
use std::path::Path;
use std::rc::Rc;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::jsonl::invalid_json;
use super::lines::human_bytes;
use super::report::Collector;
use super::tracked::{Position, TrackedRead};
use super::values::type_name;
use super::{DatasetError, Format};

/// Keys whose array holds the items (searched one object deep too: promptfoo's
/// `results.results`, DeepEval's `testRunData.testCases`).
pub(crate) const WRAPPER_KEYS: [&str; 7] = [
    "results",
    "data",
    "items",
    "examples",
    "testCases",
    "testRunData",
    "resourceSpans",
];

pub(crate) fn is_wrapper_key(key: &str) -> bool {
    WRAPPER_KEYS.iter().any(|k| k.eq_ignore_ascii_case(key))
}

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
    };

    let outcome = if wrapped {
        match (&mut de).deserialize_map(WrapperVisitor(&mut stream)) {
            Ok(Err(keys)) => {
                let listed = if keys.is_empty() {
                    "none".to_string()
                } else {
                    keys.join(", ")
                };
                return Err(DatasetError::UnsupportedShape {
                    path: display,
                    message: format!(
                        "a JSON object that is not an item list or a known wrapper \
                         ({}); its top-level keys are: {listed}",
                        WRAPPER_KEYS.join("/")
                    ),
                });
            }
            Ok(Ok(())) => de.end(),
            Err(e) => Err(e),
        }
    } else {
        stream.collector.set_format(Format::JsonArray);
        (&mut de)
            .deserialize_seq(ItemsVisitor(&mut stream))
            .and_then(|()| de.end())
    };
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

struct Stream<'c, 'a> {
    collector: &'c mut Collector<'a>,
    position: Rc<Position>,
    /// The callback's stop request, carried past serde (which only knows its own errors).
    abort: Option<DatasetError>,
    /// The wrapper key whose array is being (or was) read.
    wrapper: Option<String>,
}

impl Stream<'_, '_> {
    fn element<'de, D: Deserializer<'de>>(&mut self, d: D) -> Result<(), D::Error> {
        // serde_json has consumed the element's first byte (it peeks to see that an
        // element follows), so the element starts one byte back.
        let (line, offset) = self.position.now();
        let offset = offset.saturating_sub(1);
        self.position.set_element(Some((line, offset)));
        let value = Value::deserialize(d)?;
        self.position.set_element(None);
        match value {
            Value::Object(record) => {
                if let Err(stop) = self.collector.record(line, offset, record) {
                    self.abort = Some(stop);
                    return Err(de::Error::custom("import stopped"));
                }
            }
            other => self.collector.reject(
                line,
                offset,
                format!("element holds {}, not a JSON object", type_name(&other)),
            ),
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

/// The top-level object: finds the first wrapper key holding an array. Returns the
/// object's keys (up to 20) when there is none.
struct WrapperVisitor<'s, 'c, 'a>(&'s mut Stream<'c, 'a>);

impl<'de> Visitor<'de> for WrapperVisitor<'_, '_, '_> {
    type Value = Result<(), Vec<String>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object with a results, data or items array")
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
        let mut keys = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if is_wrapper_key(&key) && self.0.wrapper.is_none() {
                map.next_value_seed(MaybeItems {
                    stream: &mut *self.0,
                    key: &key,
                })?;
            } else {
                if is_wrapper_key(&key) {
                    let (line, _) = self.0.position.now();
                    let used = self.0.wrapper.clone().unwrap_or_default();
                    self.0.collector.warn(
                        line,
                        format!("`{key}` was not read: the items come from `{used}`"),
                    );
                }
                map.next_value::<IgnoredAny>()?;
            }
            if keys.len() < 20 {
                keys.push(key);
            }
        }
        Ok(if self.0.wrapper.is_some() {
            Ok(())
        } else {
            Err(keys)
        })
    }
}

/// The value under a wrapper key: streamed when it is an array, skipped otherwise.
struct MaybeItems<'s, 'k, 'c, 'a> {
    stream: &'s mut Stream<'c, 'a>,
    key: &'k str,
}

impl<'de> DeserializeSeed<'de> for MaybeItems<'_, '_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MaybeItems<'_, '_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.stream.wrapper = Some(self.key.to_string());
        self.stream.collector.set_format(Format::JsonWrapper {
            key: self.key.to_string(),
        });
        self.stream.elements(seq)
    }
    fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<(), M::Error> {
        // An object under a wrapper key may itself hold the items under one.
        while let Some(key) = map.next_key::<String>()? {
            if is_wrapper_key(&key) && self.stream.wrapper.is_none() {
                let nested = format!("{}.{key}", self.key);
                map.next_value_seed(MaybeItems {
                    stream: &mut *self.stream,
                    key: &nested,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
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
