//! Seed files: the real files in the repository (`assets/`, `tests/` with `tests/real`,
//! `tests/exports`, `tests/traces`, `tests/documents`) and the dev sets in
//! `shared/data`. A long seed is cut to its first `MAX_SEED` bytes at a line end, so a
//! case stays fast; its later lines look like its first.

use std::path::{Path, PathBuf};

use super::mutate::Seed;

pub const MAX_SEED: usize = 24 * 1024;

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Files under `dirs` (recursively) whose extension is one of `exts`, in name order.
pub fn files(dirs: &[PathBuf], exts: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in dirs {
        walk(dir, exts, &mut out);
    }
    out.sort();
    out
}

fn walk(dir: &Path, exts: &[&str], out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, exts, out);
        } else if path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)))
        {
            out.push(path);
        }
    }
}

/// The seeds read from `paths`, each cut to `MAX_SEED` bytes at a line end.
pub fn load(paths: &[PathBuf]) -> Vec<Seed> {
    paths
        .iter()
        .filter_map(|p| {
            let bytes = std::fs::read(p).ok()?;
            let name = p.strip_prefix(repo()).unwrap_or(p).display().to_string();
            Some(Seed::new(name, cut(bytes)))
        })
        .filter(|s| !s.bytes.is_empty())
        .collect()
}

fn cut(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() > MAX_SEED {
        let end = bytes[..MAX_SEED]
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(MAX_SEED, |i| i + 1);
        bytes.truncate(end);
    }
    bytes
}

/// The seeds of the dataset importer: every JSON, JSONL, CSV and TSV file of the
/// repository's examples, exports, traces and real files, and of `shared/data`.
pub fn datasets() -> Vec<Seed> {
    let root = repo();
    let dirs = [
        root.join("assets/examples"),
        root.join("assets/few-shot"),
        root.join("assets/judge-check"),
        root.join("tests"),
        ragnosis_core::paths::shared_data_dir(),
    ];
    let seeds = load(&files(&dirs, &["json", "jsonl", "csv", "tsv"]));
    assert!(
        seeds.len() >= 40,
        "the importer's seeds are the repository's data files; found only {}",
        seeds.len()
    );
    seeds
}
