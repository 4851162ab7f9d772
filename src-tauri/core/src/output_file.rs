//! Files Ragnosis writes for people and scripts (exports, reports, test sets) appear
//! whole or not at all. Each is written under a temporary name beside its final one,
//! flushed to disk, then renamed into place: a process killed mid-write, or a disk that
//! fills up, never leaves a truncated file under the name a user or a script reads, and
//! an earlier file of that name stays as it was until the new one is complete.
//!
//! Owns: that write. Must not: decide what goes in the file.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Writes `path` whole with what `fill` writes into the buffer it is given.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> Result<()>,
) -> Result<()> {
    let partial = partial_name(path);
    let io = |source| Error::Write {
        path: path.to_path_buf(),
        source,
    };
    let result = (|| {
        let file = File::create(&partial).map_err(io)?;
        let mut out = BufWriter::new(file);
        fill(&mut out).map_err(|e| match e {
            // A writer's I/O failure reached through serde (a full disk mid-JSON) is a
            // failed write of this file, not a JSON problem; a writer that could not name
            // the file (the CSV writer) leaves its path empty.
            Error::Json(e) if e.is_io() => io(e.into()),
            Error::Write { path, source } if path.as_os_str().is_empty() => io(source),
            other => other,
        })?;
        out.flush().map_err(io)?;
        let file = out.into_inner().map_err(|e| io(e.into_error()))?;
        file.sync_all().map_err(io)?;
        std::fs::rename(&partial, path).map_err(io)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// Writes `bytes` to `path` whole.
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, |out| {
        out.write_all(bytes).map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })
    })
}

/// ".report.pdf.partial-1234" beside "report.pdf": hidden, and named for the process.
fn partial_name(path: &Path) -> PathBuf {
    let mut name = std::ffi::OsString::from(".");
    name.push(path.file_name().unwrap_or_default());
    name.push(format!(".partial-{}", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_that_fails_part_way_leaves_the_earlier_file_and_no_fragment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("export.json");
        write(&path, b"{\"complete\": true}").unwrap();
        let failed = write_with(&path, |out| {
            out.write_all(b"{\"half").unwrap();
            Err(Error::Invalid("the disk filled up".into()))
        });
        assert!(failed.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"{\"complete\": true}");
        let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(left.len(), 1, "no partial file is left behind");
    }

    /// Found by the full-disk test: serde's writer failing mid-JSON surfaced as
    /// `error [json]: No space left on device`, without the file's name.
    #[test]
    fn a_writer_failing_inside_serde_is_a_failed_write_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("export.json");
        let full = || std::io::Error::new(std::io::ErrorKind::StorageFull, "no space left");
        for failure in [
            Error::Json(serde_json::Error::io(full())),
            Error::Write {
                path: PathBuf::new(),
                source: full(),
            },
        ] {
            let e = write_with(&path, |_| Err(failure)).unwrap_err();
            assert_eq!(e.code(), crate::ErrorCode::Write);
            let message = e.to_string();
            assert!(
                message.contains(&path.display().to_string()) && message.contains("disk is full"),
                "{message}"
            );
        }
    }

    #[test]
    fn a_complete_write_replaces_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("report.md");
        write(&path, b"old").unwrap();
        write(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
    }
}
