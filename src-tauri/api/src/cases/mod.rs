//! The cases of a run: pages of its items sorted and filtered in SQLite (the window never
//! holds a whole run), and one case with every result, its evidence, its failure
//! patterns and people's labels on it. Must not write anything (labels are trust.rs).

mod request;
mod view;

use ragnosis_core::analysis::diagnosis;
use ragnosis_core::judge::open::OFFLINE;
use ragnosis_core::view::ItemView;
use ragnosis_core::{cases, store, Error, Result};

use crate::Ctx;

pub use ragnosis_core::store::cases::{CaseRow, Cell};
pub use ragnosis_core::view::case::{AspectView, CaseEvidence, ClaimView, ContextView};
pub use request::CaseQueryInput;
pub use view::{CaseDetail, CaseList, ListedCase, ResultView};

/// A page of the run's cases.
pub fn list(ctx: &Ctx, run_id: i64, query: CaseQueryInput) -> Result<CaseList> {
    let query = query.into_query()?;
    let mut store = ctx.store()?;
    Ok(cases::page(&mut store, run_id, &query)?.into())
}

/// One item of a run with every result, its evidence and its failure patterns.
pub fn get(ctx: &Ctx, run_id: i64, item_id: i64) -> Result<CaseDetail> {
    let store = ctx.store()?;
    let run = store::runs::get(store.conn(), run_id)?;
    if !store::run_items::contains(store.conn(), run_id, item_id)? {
        return Err(Error::NotFound {
            what: "item",
            id: format!("{item_id} of run {run_id}"),
        });
    }
    let view = ItemView::load(&store, run_id, item_id)?;
    let patterns = diagnosis::item_patterns(&store, run_id, item_id)?;
    let labels = store::human_labels::for_item(store.conn(), &view.content_hash)?;
    Ok(CaseDetail::new(
        run_id,
        view,
        patterns,
        run.judge == OFFLINE,
        labels,
    ))
}
