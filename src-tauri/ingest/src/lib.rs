//! Text out of the documents people give Ragnosis to build test sets from: PDF (per
//! page), Markdown and plain text (as written), HTML (rendered to readable text).
//!
//! Owns: recognising a file's kind, extracting its text page by page, and saying in one
//! sentence why a file cannot be read. Must not: chunk, store or judge anything (the
//! core's `corpus` module does). Its own crate because the PDF and HTML parsers are a
//! long build that everyday edits of the core should not repeat.

use std::path::{Path, PathBuf};

/// What a file holds, by extension (and the `%PDF` signature for PDFs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Pdf,
    Markdown,
    Text,
    Html,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Pdf => "pdf",
            Kind::Markdown => "markdown",
            Kind::Text => "text",
            Kind::Html => "html",
        }
    }

    /// The kind a file name says, if Ragnosis reads it.
    pub fn of(path: &Path) -> Option<Kind> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "pdf" => Kind::Pdf,
            "md" | "markdown" => Kind::Markdown,
            "txt" | "text" => Kind::Text,
            "html" | "htm" | "xhtml" => Kind::Html,
            _ => return None,
        })
    }
}

/// One page of text (PDFs have many; other files are one page).
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// From 1.
    pub number: u32,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub path: PathBuf,
    pub kind: Kind,
    pub pages: Vec<Page>,
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IngestError {
    #[error("{path}: cannot read the file ({message})")]
    Unreadable { path: String, message: String },
    #[error(
        "{path}: Ragnosis reads PDF, Markdown (.md), text (.txt) and HTML files, not '{extension}'"
    )]
    Unsupported { path: String, extension: String },
    #[error("{path}: the file is empty")]
    Empty { path: String },
    #[error("{path}: the file holds no text (a scanned PDF needs OCR first)")]
    NoText { path: String },
    #[error("{path}: not a readable PDF ({message})")]
    BrokenPdf { path: String, message: String },
    #[error("{path}: the text is not UTF-8")]
    NotUtf8 { path: String },
}

/// The files a list of paths names: files as given, folders searched recursively for
/// files of a kind Ragnosis reads (in name order, so the same folder gives the same
/// corpus). Paths that do not exist are returned too, for `read` to report.
pub fn expand(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found = Vec::new();
            walk(path, &mut found);
            found.sort();
            out.extend(found);
        } else {
            out.push(path.clone());
        }
    }
    out
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, found);
        } else if Kind::of(&path).is_some() {
            found.push(path);
        }
    }
}

/// Reads one file's text, page by page.
pub fn read(path: &Path) -> Result<Document, IngestError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| IngestError::Unreadable {
        path: shown.clone(),
        message: e.to_string(),
    })?;
    let kind = if bytes.starts_with(b"%PDF") {
        Kind::Pdf
    } else {
        Kind::of(path).ok_or_else(|| IngestError::Unsupported {
            path: shown.clone(),
            extension: path
                .extension()
                .map(|e| e.to_string_lossy().into_owned())
                .unwrap_or_default(),
        })?
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(IngestError::Empty { path: shown });
    }
    let pages = match kind {
        Kind::Pdf => pdf_pages(&bytes, &shown)?,
        Kind::Html => vec![Page {
            number: 1,
            text: html2text::from_read(bytes.as_slice(), usize::MAX / 4).map_err(|e| {
                IngestError::Unreadable {
                    path: shown.clone(),
                    message: e.to_string(),
                }
            })?,
        }],
        Kind::Markdown | Kind::Text => {
            let text = String::from_utf8(bytes).map_err(|_| IngestError::NotUtf8 {
                path: shown.clone(),
            })?;
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text).to_string();
            vec![Page { number: 1, text }]
        }
    };
    if pages.iter().all(|p| p.text.trim().is_empty()) {
        return Err(IngestError::NoText { path: shown });
    }
    Ok(Document {
        path: path.to_path_buf(),
        kind,
        pages,
    })
}

/// A PDF's pages. The extractor can panic on malformed files; that is a broken PDF,
/// not a crash of the import.
fn pdf_pages(bytes: &[u8], shown: &str) -> Result<Vec<Page>, IngestError> {
    let extracted = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem_by_pages(bytes));
    let pages = match extracted {
        Ok(Ok(pages)) => pages,
        Ok(Err(e)) => {
            return Err(IngestError::BrokenPdf {
                path: shown.to_string(),
                message: e.to_string(),
            })
        }
        Err(_) => {
            return Err(IngestError::BrokenPdf {
                path: shown.to_string(),
                message: "the PDF parser gave up on its structure".into(),
            })
        }
    };
    Ok(pages
        .into_iter()
        .enumerate()
        .map(|(i, text)| Page {
            number: i as u32 + 1,
            text,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    #[test]
    fn text_markdown_and_html_are_one_page_of_readable_text() {
        let dir = tempfile::tempdir().unwrap();
        let md = read(&write(
            dir.path(),
            "a.md",
            "\u{feff}# Title\n\nBody text.".as_bytes(),
        ))
        .unwrap();
        assert_eq!((md.kind, md.pages.len()), (Kind::Markdown, 1));
        assert_eq!(
            md.pages[0].text, "# Title\n\nBody text.",
            "the BOM goes, the text stays"
        );
        let html = read(&write(
            dir.path(),
            "b.html",
            b"<html><head><script>alert(1)</script></head><body><p>Fish &amp; chips</p></body></html>",
        ))
        .unwrap();
        assert!(
            html.pages[0].text.contains("Fish & chips"),
            "{:?}",
            html.pages
        );
        assert!(
            !html.pages[0].text.contains("alert"),
            "scripts are not text"
        );
    }

    #[test]
    fn unreadable_files_say_why_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let empty = read(&write(dir.path(), "empty.txt", b"  \n")).unwrap_err();
        assert!(matches!(empty, IngestError::Empty { .. }));
        assert!(empty.to_string().contains("empty.txt"));
        let broken = read(&write(dir.path(), "broken.pdf", b"%PDF-1.4\n1 0 obj <<")).unwrap_err();
        assert!(matches!(broken, IngestError::BrokenPdf { .. }), "{broken}");
        let other = read(&write(dir.path(), "sheet.xlsx", b"PK\x03\x04")).unwrap_err();
        assert!(other.to_string().contains("not 'xlsx'"), "{other}");
        let missing = read(&dir.path().join("nope.md")).unwrap_err();
        assert!(matches!(missing, IngestError::Unreadable { .. }));
        let latin1 = read(&write(dir.path(), "l.txt", b"caf\xe9")).unwrap_err();
        assert!(matches!(latin1, IngestError::NotUtf8 { .. }));
    }

    #[test]
    fn a_folder_expands_to_its_readable_files_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        write(dir.path(), "b.md", b"b");
        write(dir.path(), "a.txt", b"a");
        write(dir.path(), "c.xlsx", b"c");
        write(&dir.path().join("sub"), "d.pdf", b"%PDF");
        let found = expand(&[dir.path().to_path_buf()]);
        let names: Vec<String> = found
            .iter()
            .map(|p| p.strip_prefix(dir.path()).unwrap().display().to_string())
            .collect();
        assert_eq!(names, vec!["a.txt", "b.md", "sub/d.pdf"]);
    }
}
