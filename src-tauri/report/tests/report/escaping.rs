//! Text from the data prints literally: a question made of Markdown and typst syntax, HTML
//! and a typst instruction, and an answer full of emphasis, math, a link and a pipe.
//! The Markdown is parsed back (as a GitHub-style renderer would) and the PDF's text is
//! extracted; both must show the strings unchanged, and nothing in them may act.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use ragnosis_core::view::ReportOptions;
use ragnosis_report::{write, Format};
use serde_json::Value;

use crate::fixture::{edited, pdf_text, squeeze, Home, DATE, HOSTILE, HOSTILE_ANSWER, JUDGE_FREE};

/// The example with item 1's question and answer made hostile; every item goes into the
/// appendix so the hostile one is shown in full whatever its rank.
fn hostile_view(home: &mut Home) -> ragnosis_core::view::ReportView {
    let data = edited(0, |item| {
        item.insert("question".into(), Value::String(HOSTILE.into()));
        item.insert("answer".into(), Value::String(HOSTILE_ANSWER.into()));
    });
    let dataset = home.import("hostile", &data);
    let run = home.evaluate(dataset, JUDGE_FREE, "hostile <b>label</b> #1");
    home.view(
        run,
        &ReportOptions {
            generated_at: DATE.into(),
            worst: 30,
            detail: ragnosis_core::view::Detail::Full,
            ..ReportOptions::default()
        },
    )
}

/// Text of each block (paragraph, heading, list item, table cell) as a renderer shows it,
/// plus every HTML, link or math event (the report itself has none). Emphasis is caught
/// by the text comparison: its markers would vanish from the block's text.
fn rendered_blocks(md: &str) -> (Vec<String>, Vec<String>) {
    let mut blocks = vec![String::new()];
    let mut active = Vec::new();
    for event in Parser::new_ext(md, Options::ENABLE_TABLES) {
        match event {
            Event::Text(t) | Event::Code(t) => blocks.last_mut().unwrap().push_str(&t),
            Event::SoftBreak | Event::HardBreak => blocks.last_mut().unwrap().push(' '),
            Event::Start(Tag::Paragraph | Tag::Heading { .. } | Tag::Item | Tag::TableCell) => {
                blocks.push(String::new())
            }
            Event::End(
                TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item | TagEnd::TableCell,
            ) => blocks.push(String::new()),
            Event::Html(h) | Event::InlineHtml(h) => active.push(format!("html {h}")),
            Event::Start(Tag::Link { dest_url, .. }) => active.push(format!("link {dest_url}")),
            Event::InlineMath(m) | Event::DisplayMath(m) => active.push(format!("math {m}")),
            _ => {}
        }
    }
    (blocks, active)
}

#[test]
fn hostile_text_renders_literally_in_markdown() {
    let mut home = Home::new();
    let view = hostile_view(&mut home);
    let written = write(&view, &[Format::Markdown], &home.path("hostile")).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    let (blocks, active) = rendered_blocks(&md);
    assert!(active.is_empty(), "data text created markup: {active:?}");
    assert!(
        blocks.iter().any(|b| b == &format!("Question: {HOSTILE}")),
        "the question shows literally in the appendix"
    );
    assert!(
        blocks
            .iter()
            .any(|b| b == &format!("Answer: {HOSTILE_ANSWER}")),
        "the answer shows literally"
    );
    assert!(
        blocks.iter().any(|b| b == "hostile <b>label</b> #1"),
        "the run label is the title, as text"
    );
    assert!(
        !md.lines()
            .any(|l| l.starts_with("# *") || l.starts_with("#set") || l.starts_with("# #")),
        "the question never starts a heading"
    );
}

#[test]
fn hostile_text_prints_literally_in_the_pdf_and_the_page_keeps_its_size() {
    let mut home = Home::new();
    let view = hostile_view(&mut home);
    let written = write(&view, &[Format::Pdf], &home.path("hostile")).unwrap();
    let Some(text) = pdf_text(&written[0]) else {
        return;
    };
    let text = squeeze(&text);
    assert!(
        text.contains(&format!("Question: {HOSTILE}")),
        "the question prints literally"
    );
    assert!(
        text.contains(&format!("Answer: {HOSTILE_ANSWER}")),
        "the answer prints literally"
    );
    assert!(
        text.contains("hostile <b>label</b> #1"),
        "the run label prints literally"
    );
    // `#set page(width: 1cm)` evaluated would make every page 1 cm wide.
    if let Ok(info) = std::process::Command::new("pdfinfo")
        .arg(&written[0])
        .output()
    {
        let info = String::from_utf8_lossy(&info.stdout);
        assert!(
            info.contains("595.276 x 841.89") || info.contains("595.28 x 841.89"),
            "pages stay A4: {info}"
        );
    }
}

#[test]
fn a_huge_answer_is_cut_in_the_full_report_and_says_where_the_rest_is() {
    let mut home = Home::new();
    // A 5 MB answer: printed whole, it made a 781-page PDF.
    let huge = "The battery lasts long. ".repeat(210_000);
    let data = edited(0, |item| {
        item.insert("answer".into(), Value::String(huge.clone()));
    });
    let dataset = home.import("huge", &data);
    let run = home.evaluate(dataset, JUDGE_FREE, "huge");
    let view = home.view(
        run,
        &ReportOptions {
            generated_at: DATE.into(),
            worst: 30,
            detail: ragnosis_core::view::Detail::Full,
            ..ReportOptions::default()
        },
    );
    let base = home.path("out/huge");
    let written = write(&view, &[Format::Markdown, Format::Pdf], &base).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    let more = huge.chars().count() - ragnosis_report::model::TEXT_LIMIT;
    assert!(
        md.contains(&format!("{more} more characters; see the JSON export")),
        "the cut says how much is left out"
    );
    assert!(
        md.len() < 1_000_000,
        "the Markdown stays small: {} bytes",
        md.len()
    );
    let pdf = std::fs::metadata(&written[1]).unwrap().len();
    assert!(pdf < 2_000_000, "the PDF stays small: {pdf} bytes");
}
