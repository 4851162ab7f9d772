//! Runs and Reports: two runs compared with their trend and charts, and a run or a
//! comparison exported as Markdown, PDF, CSV or JSON.

use serde_json::json;

use super::common::{assert_error, finished_run, shell, shell_with_a_finished_run};

#[test]
fn two_runs_compare_with_flags_and_a_trend_and_charts_follow_them() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let a = finished_run(&s, id, 21);
    let b = finished_run(&s, id, 22);
    let c = s.ok("compare_runs", json!({ "a": a, "b": b, "threshold": 0.05 }));
    assert_eq!(c["matched"], 24, "the same items match by content");
    assert_eq!(c["matched_by_label"], "by item id", "the example has ids");
    assert_eq!(c["a"]["title"], format!("Run {a} (baseline)"));
    assert!(
        c["headline"]
            .as_str()
            .unwrap()
            .starts_with("0 of 24 matched items have another output"),
        "{c}"
    );
    assert_eq!(
        c["verdict"],
        "No item has another output (24 kept the same), so none could improve or get worse",
        "the item verdict of a re-run"
    );
    assert_eq!(c["items"]["worse"], json!([]));
    assert_eq!(c["judged_differently"], json!([]));
    let rows = c["metrics"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        assert!(
            ["green", "not_compared"].contains(&row["flag"].as_str().unwrap()),
            "identical runs show no regression: {row}"
        );
        if row["pairs"].as_u64().unwrap() > 0 {
            assert_eq!(row["delta"], 0.0);
            assert_eq!(row["in_words"], "no change", "{row}");
        }
    }
    let trend = s.ok("run_trend", json!({ "datasetId": id }));
    assert_eq!(
        trend
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["id"].clone())
            .collect::<Vec<_>>(),
        vec![json!(a), json!(b)]
    );
    let charts = s.ok("run_charts", json!({ "runId": b }));
    for chart in charts.as_array().unwrap() {
        assert!(chart["svg"].as_str().unwrap().contains("<svg"), "{chart}");
    }
    assert_error(
        &s.invoke("compare_runs", json!({ "a": a, "b": a, "threshold": 0.05 }))
            .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke(
            "compare_runs",
            json!({ "a": a, "b": 999, "threshold": 0.05 }),
        )
        .unwrap_err(),
        "not_found",
    );
    assert_error(
        &s.invoke("compare_runs", json!({ "a": a, "b": b, "threshold": -1.0 }))
            .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke("run_trend", json!({ "datasetId": 999 }))
            .unwrap_err(),
        "not_found",
    );
    assert_error(
        &s.invoke("run_charts", json!({ "runId": 999 })).unwrap_err(),
        "not_found",
    );
}

/// The window's Markdown and PDF of one run come from one model: every section of the
/// Markdown is in the PDF, and so is every figure of its metric table.
#[test]
fn the_markdown_and_the_pdf_of_a_run_carry_the_same_sections_and_figures() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let export = |name: &str, format: &str| {
        let path = s.home.join(name);
        s.ok(
            "export_run",
            json!({ "runId": run_id, "path": path.display().to_string(), "format": format }),
        );
        path
    };
    let md = std::fs::read_to_string(export("r.md", "markdown")).unwrap();
    let pdf = export("r.pdf", "pdf");
    let text = match std::process::Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(&pdf)
        .arg("-")
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        other => {
            assert!(
                std::env::var("RAGNOSIS_E2E").as_deref() != Ok("required"),
                "pdftotext: {other:?}"
            );
            return;
        }
    };
    let squeeze = |t: &str| {
        t.replace('\u{200B}', "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let pdf_text = squeeze(&text);
    let unescape = |t: &str| t.replace('\\', "");
    let sections: Vec<String> = md
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(unescape)
        .collect();
    assert!(sections.len() >= 5, "{sections:?}");
    for section in &sections {
        assert!(
            pdf_text.contains(&squeeze(section)),
            "section `{section}` is in the Markdown but not the PDF"
        );
    }
    let table: String = md
        .split("\n## ")
        .find(|part| part.starts_with("Metrics"))
        .unwrap()
        .to_string();
    let figures: Vec<&str> = table
        .split(|c: char| c == '|' || c.is_whitespace())
        .filter(|w| {
            w.len() >= 4
                && w.starts_with(|c: char| c.is_ascii_digit())
                && w.contains('.')
                && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .collect();
    assert!(
        figures.len() >= 10,
        "the metric table has figures: {figures:?}"
    );
    for figure in figures {
        assert!(
            pdf_text.contains(figure),
            "figure {figure} is in the Markdown's metric table but not the PDF"
        );
    }
}

#[test]
fn a_comparison_is_exported_as_a_report_that_opens_on_it_or_as_json_never_as_csv() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let a = finished_run(&s, id, 31);
    let b = finished_run(&s, id, 32);
    let export = |name: &str, format: &str| {
        s.invoke(
            "export_comparison",
            json!({ "a": a, "b": b, "path": s.home.join(name).display().to_string(), "format": format }),
        )
    };
    export("cmp.md", "markdown").unwrap();
    let md = std::fs::read_to_string(s.home.join("cmp.md")).unwrap();
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings.first(),
        Some(&"## Comparison"),
        "the report opens on the comparison: {headings:?}"
    );
    assert!(md.contains("No item has another output"), "{md}");
    let written = export("cmp", "json").unwrap();
    assert_eq!(
        written["paths"],
        json!([s.home.join("cmp.json").display().to_string()])
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.home.join("cmp.json")).unwrap()).unwrap();
    assert_eq!(
        (json["a"]["id"].clone(), json["b"]["id"].clone()),
        (json!(a), json!(b))
    );
    assert_eq!(json["items"]["same_output"], 24);
    assert_error(&export("cmp.csv", "csv").unwrap_err(), "invalid");
    assert!(
        !s.home.join("cmp.csv").exists(),
        "nothing written for a refused format"
    );
    assert_error(
        &s.invoke(
            "export_comparison",
            json!({ "a": a, "b": a, "path": s.home.join("same.md").display().to_string(), "format": "markdown" }),
        )
        .unwrap_err(),
        "invalid",
    );
}

#[test]
fn export_run_writes_markdown_where_asked() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let target = s.home.join("reports/baseline.md");
    let written = s.ok(
        "export_run",
        json!({ "runId": run_id, "path": target.display().to_string(), "format": "markdown" }),
    );
    assert_eq!(
        written["paths"][0],
        json!(target.display().to_string()),
        "the chosen name, no doubled extension; the charts follow"
    );
    assert!(
        written["paths"].as_array().unwrap()[1..]
            .iter()
            .all(|p| p.as_str().unwrap().ends_with(".svg")),
        "{written}"
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.contains("## Executive summary"), "{text}");

    let csv = s.home.join("baseline");
    let written = s.ok(
        "export_run",
        json!({ "runId": run_id, "path": csv.display().to_string(), "format": "csv" }),
    );
    assert_eq!(
        written["paths"],
        json!([format!("{}.csv", csv.display())]),
        "the extension is added when missing"
    );

    let err = s
        .invoke(
            "export_run",
            json!({ "runId": run_id, "path": "report.md", "format": "markdown" }),
        )
        .unwrap_err();
    assert_error(&err, "invalid");
    let err = s
        .invoke(
            "export_run",
            json!({ "runId": 999, "path": target.display().to_string(), "format": "json" }),
        )
        .unwrap_err();
    assert_error(&err, "not_found");
}

#[test]
fn export_run_writes_a_pdf_report() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let target = s.home.join("report.pdf");
    let written = s.ok(
        "export_run",
        json!({ "runId": run_id, "path": target.display().to_string(), "format": "pdf" }),
    );
    assert_eq!(written["paths"], json!([target.display().to_string()]));
    let bytes = std::fs::read(&target).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "a PDF file");
}
