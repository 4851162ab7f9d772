//! Every screen at the default size and at 1024×768: nothing cut off, nothing scrolling
//! sideways.

use std::time::Duration;

use serde_json::json;

use super::common::{before_and_after_a_broken_answer, shot, start, Start, SHORT};
use crate::shell::webdriver::Session;

/// What sticks out sideways: the page scrolling horizontally, or any element whose right
/// edge passes the window's, unless it sits in a box that scrolls on its own (a wide
/// table in its scroller). Each as "tag[testid].class right N", at most ten.
const SIDEWAYS: &str = "
  const width = document.documentElement.clientWidth;
  const out = [];
  const page = document.scrollingElement.scrollWidth;
  if (page > width + 1) out.push(`the page scrolls sideways: ${page} px wide in ${width}`);
  const scrolls = (e) => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX);
  const over = [];
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width === 0 || r.right <= width + 1) continue;
    let p = e.parentElement, inside = false;
    while (p && p !== document.body) { if (scrolls(p)) { inside = true; break; } p = p.parentElement; }
    if (!inside) over.push(e);
  }
  // The innermost ones name the cause; their containers only follow it.
  for (const e of over.filter((e) => !over.some((o) => o !== e && e.contains(o))).slice(0, 10)) {
    const id = e.dataset.testid ? `[${e.dataset.testid}]` : '';
    const text = (e.textContent || '').trim().slice(0, 40);
    out.push(`${e.tagName.toLowerCase()}${id}.${e.className} right ${Math.round(e.getBoundingClientRect().right)} of ${width}: ${text}`);
  }
  // Which container let the last one grow: each ancestor's width, min-width and display.
  if (over.length) {
    const chain = [];
    for (let e = over[over.length - 1]; e; e = e.parentElement) {
      const cs = getComputedStyle(e);
      chain.push(`${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().width)} px, min-width ${cs.minWidth}, ${cs.display}`);
    }
    out.push('its containers: ' + chain.join(' < '));
  }
  return out;";

/// A screenshot at the default size, to look at: `fit-SCREEN.png`.
fn look(session: &Session, screen: &str, size: (u32, u32)) {
    if size == (1280, 800) {
        shot(session, &format!("fit-{screen}.png"));
    }
}

fn sideways(session: &Session, screen: &str, size: (u32, u32)) -> Vec<String> {
    // Give the layout a frame to settle after the screen or the size changed.
    std::thread::sleep(Duration::from_millis(300));
    let found = session.execute(SIDEWAYS, json!([]));
    found
        .as_array()
        .unwrap()
        .iter()
        .map(|v| format!("{screen} at {}×{}: {}", size.0, size.1, v.as_str().unwrap()))
        .collect()
}

#[test]
fn no_screen_is_cut_off_at_the_default_size_or_at_1024_by_768() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    // Every screen with content in it: two runs (a comparison), a case, a report.
    let runs = before_and_after_a_broken_answer(&sandbox);
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    let mut cut = Vec::new();
    for size in [(1280, 800), (1024, 768)] {
        session.set_window_size(size.0, size.1);
        for screen in [
            "home", "data", "generate", "evaluate", "reports", "settings",
        ] {
            session.click_on(&format!("[data-testid=nav-{screen}]"), SHORT);
            cut.extend(sideways(&session, screen, size));
            look(&session, screen, size);
        }
        session.click_on("[data-testid=nav-results]", SHORT);
        // With no run chosen, Results lists them; the newest opens.
        session.wait_for(
            "[data-testid=report-headline], [data-testid=run-row] button.link",
            1,
            SHORT,
        );
        if session.find_all("[data-testid=report-headline]").is_empty() {
            session.click_on("[data-testid=run-row] button.link", SHORT);
        }
        session.wait_for("[data-testid=report-headline]", 1, SHORT);
        cut.extend(sideways(&session, "results", size));
        look(&session, "results", size);
        session.click_on("[data-testid=case-row] button.open", SHORT);
        session.wait_for("[data-testid=case-results] tbody tr", 1, SHORT);
        cut.extend(sideways(&session, "a case", size));
        look(&session, "case", size);
        session.click_on("[data-testid=nav-runs]", SHORT);
        for id in &runs {
            let tick = format!("[data-testid=run-row][data-run-id=\"{id}\"] input[type=checkbox]");
            session.wait_for(&tick, 1, SHORT);
            let ticked = session.execute(
                "return document.querySelector(arguments[0]).checked",
                json!([tick]),
            );
            // The second pass finds the pair still ticked from the first.
            if ticked != json!(true) {
                session.click_on(&tick, SHORT);
            }
        }
        session.wait_for("[data-testid=compare-verdict]", 1, SHORT);
        cut.extend(sideways(&session, "runs and compare", size));
        look(&session, "compare", size);
    }
    assert!(
        cut.is_empty(),
        "cut off or scrolling sideways:\n{}",
        cut.join("\n")
    );
}
