//! The criteria file a team keeps in its own repository: TOML (the default) or JSON,
//! holding one criterion (its fields at the top level) or several (a `criteria` list).
//! Reading names the file, the line and the field on any problem ("unknown field
//! `treshold`", "the question is empty"); writing gives back a file that reads to the
//! same definitions.
//!
//! Owns: the file format. Must not: store anything (the CLI and the window import what
//! this reads through `store::criteria`).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::Definition;
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl Format {
    /// By extension: `.json` is JSON, anything else TOML.
    pub fn of(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("json") => Format::Json,
            _ => Format::Toml,
        }
    }
}

/// Several criteria in one file.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Many {
    criteria: Vec<Definition>,
}

/// The definitions in `text`, each validated. `source` names the file in messages.
pub fn parse(text: &str, format: Format, source: &str) -> Result<Vec<Definition>> {
    let bad = |e: String| Error::Invalid(format!("{source}: {e}"));
    let defs = match format {
        Format::Toml => parse_toml(text).map_err(bad)?,
        Format::Json => parse_json(text).map_err(bad)?,
    };
    if defs.is_empty() {
        return Err(bad("the file holds no criterion".into()));
    }
    let mut names = std::collections::HashSet::new();
    for def in &defs {
        super::validate(def).map_err(bad)?;
        if !names.insert(def.name.as_str()) {
            return Err(bad(format!("criterion '{}' is defined twice", def.name)));
        }
    }
    Ok(defs)
}

fn parse_toml(text: &str) -> std::result::Result<Vec<Definition>, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| e.to_string())?;
    if table.contains_key("criteria") {
        let many: Many = toml::from_str(text).map_err(|e| e.to_string())?;
        Ok(many.criteria)
    } else {
        Ok(vec![toml::from_str(text).map_err(|e| e.to_string())?])
    }
}

fn parse_json(text: &str) -> std::result::Result<Vec<Definition>, String> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let shape = |e: serde_json::Error| e.to_string();
    match value {
        serde_json::Value::Array(_) => serde_json::from_value(value).map_err(shape),
        serde_json::Value::Object(ref map) if map.contains_key("criteria") => {
            serde_json::from_value::<Many>(value)
                .map(|m| m.criteria)
                .map_err(shape)
        }
        serde_json::Value::Object(_) => Ok(vec![serde_json::from_value(value).map_err(shape)?]),
        _ => Err(
            "a criteria file holds an object (one criterion), a list, or {\"criteria\": [...]}"
                .into(),
        ),
    }
}

/// Reads and validates a criteria file.
pub fn read(path: &Path) -> Result<Vec<Definition>> {
    let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    // A file named .txt or without extension may still be JSON.
    let format = match Format::of(path) {
        Format::Toml
            if text.trim_start().starts_with(['{', '[']) && !looks_like_toml_table(&text) =>
        {
            Format::Json
        }
        f => f,
    };
    parse(&text, format, &path.display().to_string())
}

/// `[criteria]` or `[[criteria]]` opens a TOML file too.
fn looks_like_toml_table(text: &str) -> bool {
    let first = text.trim_start();
    first.starts_with("[[")
        || (first.starts_with('[') && first[1..].trim_start().starts_with(char::is_alphabetic))
}

/// The file text of `defs`: one criterion at the top level, several as a list.
pub fn render(defs: &[Definition], format: Format) -> Result<String> {
    let bad = |e: String| Error::Invalid(format!("cannot write the criteria file: {e}"));
    match (format, defs) {
        (Format::Json, [one]) => Ok(serde_json::to_string_pretty(one)? + "\n"),
        (Format::Json, many) => Ok(serde_json::to_string_pretty(&Many {
            criteria: many.to_vec(),
        })? + "\n"),
        (Format::Toml, [one]) => Ok(format!(
            "{HEADER}{}",
            toml::to_string(one).map_err(|e| bad(e.to_string()))?
        )),
        (Format::Toml, many) => Ok(format!(
            "{HEADER}{}",
            toml::to_string(&Many {
                criteria: many.to_vec()
            })
            .map_err(|e| bad(e.to_string()))?
        )),
    }
}

const HEADER: &str = "# Ragnosis criteria: `ragnosis criteria import FILE` stores them (a changed text makes a new\n\
# version); run them with `--metrics criteria` or `--metrics criteria.NAME`.\n\n";

/// Writes `defs` to `path` in the format its extension names.
pub fn write(path: &Path, defs: &[Definition]) -> Result<()> {
    let text = render(defs, Format::of(path))?;
    crate::output_file::write(path, text.as_bytes())
}
