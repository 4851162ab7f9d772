//! The typst `World` a report is compiled in: entirely in memory. It serves the report
//! template as the main source, the report data as `/data.json`, each chart as
//! `/charts/<file>.svg`, and the bundled fonts. Nothing is read from disk or the
//! network, and `today()` is `None`, so a template that asked for the clock would fail
//! rather than make the output depend on it.

use std::collections::HashMap;
use std::sync::LazyLock;

use typst::diag::{FileError, FileResult};
use typst::foundations::{Bytes, Datetime, Duration};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};

/// The fonts every report can use, parsed once per process.
struct Fonts {
    book: LazyHash<FontBook>,
    fonts: Vec<Font>,
}

/// typst-assets' fonts: Libertinus Serif (body and charts; Latin, Greek, Cyrillic),
/// DejaVu Sans Mono, New Computer Modern and its math face. No CJK font is bundled:
/// CJK characters in the data show as missing-glyph boxes (documented in the README).
static FONTS: LazyLock<Fonts> = LazyLock::new(|| {
    let fonts: Vec<Font> = typst_assets::fonts()
        .flat_map(|data| Font::iter(Bytes::new(data)))
        .collect();
    Fonts {
        book: LazyHash::new(FontBook::from_fonts(&fonts)),
        fonts,
    }
});

static LIBRARY: LazyLock<LazyHash<Library>> =
    LazyLock::new(|| LazyHash::new(Library::builder().build()));

pub struct ReportWorld {
    main: Source,
    files: HashMap<FileId, Bytes>,
}

fn file_id(path: &str) -> FileId {
    let vpath = VirtualPath::new(path).expect("the world's own paths are valid virtual paths");
    FileId::new(RootedPath::new(VirtualRoot::Project, vpath))
}

impl ReportWorld {
    /// A world whose main file is `template`; `files` are (absolute virtual path, bytes).
    pub fn new(template: &str, files: Vec<(String, Vec<u8>)>) -> ReportWorld {
        let main = Source::new(file_id("/report.typ"), template.to_string());
        let files = files
            .into_iter()
            .map(|(path, bytes)| (file_id(&path), Bytes::new(bytes)))
            .collect();
        ReportWorld { main, files }
    }
}

impl World for ReportWorld {
    fn library(&self) -> &LazyHash<Library> {
        &LIBRARY
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &FONTS.book
    }

    fn main(&self) -> FileId {
        self.main.id()
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.main.id() {
            Ok(self.main.clone())
        } else {
            Err(FileError::NotSource)
        }
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        self.files
            .get(&id)
            .cloned()
            .ok_or_else(|| FileError::NotFound(id.vpath().get_without_slash().into()))
    }

    fn font(&self, index: usize) -> Option<Font> {
        FONTS.fonts.get(index).cloned()
    }

    fn today(&self, _offset: Option<Duration>) -> Option<Datetime> {
        None
    }
}
