//! `judge-check`: run a judge on the labelled sample shipped with Ragnosis, store the
//! figures with the profile, print them.

use std::path::Path;
use std::sync::Arc;

use ragnosis_core::judge::open;
use ragnosis_core::judge_check;
use ragnosis_core::progress::ProgressSink;
use ragnosis_core::secrets::KeyringStore;
use ragnosis_core::semantic;
use ragnosis_core::store::{self, Store};
use ragnosis_core::Error;

use crate::{cancel_on_ctrl_c, print};

pub fn judge_check(
    home: &Path,
    profile: &str,
    json: bool,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Error> {
    let store = Store::open(home)?;
    let judge = open::open_judge(&store, profile, &KeyringStore)?;
    if judge.identity().is_offline()
        && !matches!(
            semantic::availability(),
            semantic::Availability::Loaded { .. }
        )
    {
        eprintln!("note: {}", semantic::availability().notice());
    }
    let check = judge_check::run(profile, judge, progress, &cancel_on_ctrl_c())?;
    store::judge_checks::insert(store.conn(), &check)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&check)?);
    } else {
        print::judge_check(&check);
    }
    Ok(())
}
