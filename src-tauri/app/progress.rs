//! Long work's events to the window: a `JobSink` that forwards every event over the
//! Tauri `Channel` the window passed in. A closed window only makes sends fail, which is
//! ignored: the work goes on and its results are in the store either way.

use std::sync::Arc;

use ragnosis_api::jobs::{self, JobEvent, JobSink};
use ragnosis_api::ProgressSink;
use tauri::ipc::Channel;

pub struct ChannelSink(pub Channel<JobEvent>);

impl JobSink for ChannelSink {
    fn send(&self, event: JobEvent) {
        let _ = self.0.send(event);
    }
}

/// The watcher of a job started from the window.
pub fn watcher(channel: Channel<JobEvent>) -> Arc<dyn JobSink> {
    Arc::new(ChannelSink(channel))
}

/// The progress of foreground work, to the window's channel.
pub fn progress(channel: Channel<JobEvent>) -> Arc<dyn ProgressSink> {
    jobs::progress_to(watcher(channel))
}
