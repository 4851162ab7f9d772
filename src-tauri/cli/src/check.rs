//! `judge-check`: run a judge on the labelled sample shipped with Ragnosis, store the
//! figures with the profile, print them.

use std::sync::Arc;

use ragnosis_api::judges;
use ragnosis_api::{Ctx, Error, ProgressSink};

use crate::{cancel_on_ctrl_c, print, print_json};

pub fn judge_check(
    ctx: &Ctx,
    profile: &str,
    json: bool,
    batch: bool,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Error> {
    let judge = judges::open_for_check(ctx, profile)?;
    if let Some(notice) = judge.notice() {
        eprintln!("note: {notice}");
    }
    let check = judges::run_check(ctx, judge, batch, progress, &cancel_on_ctrl_c())?;
    if json {
        print_json(&check)
    } else {
        print::judge_check(&check);
        Ok(())
    }
}
