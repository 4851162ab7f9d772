//! Paths a shell hands over without a working directory of its own to resolve them
//! against (the window): refused unless absolute, with one sentence. The CLI resolves
//! relative paths against its working directory and does not come through here.

use std::path::PathBuf;

use ragnosis_core::{Error, Result};

/// A file to read.
pub fn absolute(path: &str) -> Result<PathBuf> {
    let path = PathBuf::from(path.trim());
    if !path.is_absolute() {
        return Err(Error::Invalid(format!(
            "'{}' is not an absolute path",
            path.display()
        )));
    }
    Ok(path)
}

/// A file to write: absolute and naming a file.
pub fn output_file(path: &str) -> Result<PathBuf> {
    let path = PathBuf::from(path.trim());
    if !path.is_absolute() || path.file_name().is_none() {
        return Err(Error::Invalid(format!(
            "'{}' is not an absolute file path",
            path.display()
        )));
    }
    Ok(path)
}
