//! Run progress to the window: a `ProgressSink` that forwards every core progress event
//! over the run's Tauri `Channel`. A closed window only makes sends fail, which is
//! ignored: the run goes on and its results are in the store either way.

use ragnosis_core::progress::{Progress, ProgressSink};
use tauri::ipc::Channel;

use crate::models::runs::RunEvent;

pub struct ChannelSink(pub Channel<RunEvent>);

impl ProgressSink for ChannelSink {
    fn report(&self, event: Progress) {
        let _ = self.0.send(RunEvent::from(event));
    }
}
