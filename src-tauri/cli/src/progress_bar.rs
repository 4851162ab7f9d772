//! Progress on stderr with indicatif. Hidden automatically when stderr is not a terminal.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use ragnosis_api::{Progress, ProgressSink};

#[derive(Default)]
pub struct Bars {
    current: Mutex<Option<ProgressBar>>,
}

impl ProgressSink for Bars {
    fn report(&self, event: Progress) {
        let mut current = self.current.lock().unwrap();
        match event {
            Progress::Started { stage, total } => {
                if let Some(old) = current.take() {
                    old.finish_and_clear();
                }
                let bar = match total {
                    Some(total) => ProgressBar::new(total).with_style(
                        ProgressStyle::with_template(
                            "{msg} [{bar:30}] {pos}/{len} items, {per_sec}, eta {eta}",
                        )
                        .unwrap()
                        .progress_chars("=> "),
                    ),
                    None => ProgressBar::new_spinner().with_style(
                        ProgressStyle::with_template("{spinner} {msg} {pos} items").unwrap(),
                    ),
                };
                bar.set_message(stage);
                *current = Some(bar);
            }
            Progress::Advanced { done, .. } => {
                if let Some(bar) = current.as_ref() {
                    bar.set_position(done);
                }
            }
            // A bar draws nothing when stderr is not a terminal (a pipe, a log file), and
            // its println is dropped with it: notices (batches submitted, read) would be lost.
            Progress::Notice { message } => match current.as_ref() {
                Some(bar) if !bar.is_hidden() => bar.println(message),
                _ => eprintln!("{message}"),
            },
            Progress::Totals {
                calls,
                cache_hits,
                failures,
                cost_usd,
            } => {
                if let Some(bar) = current.as_ref() {
                    if calls + cache_hits + failures > 0 {
                        bar.set_message(format!(
                            "evaluating ({calls} judge calls, {cache_hits} cached, {failures} failed, ${cost_usd:.4})"
                        ));
                    }
                }
            }
            Progress::Finished { .. } => {
                if let Some(bar) = current.take() {
                    bar.finish_and_clear();
                }
            }
        }
    }
}
