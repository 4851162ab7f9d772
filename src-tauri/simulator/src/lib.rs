//! The Ragnosis judge simulator: an OpenAI-compatible (and Anthropic- and
//! Azure-compatible) HTTP server on 127.0.0.1 that answers Ragnosis judge prompts
//! deterministically with the offline judge, counts calls and tokens, watches for a
//! leaked key, and injects faults on request (latency, HTTP statuses with Retry-After,
//! hangs, malformed / truncated / empty replies, prose around JSON). It also serves
//! `/v1/embeddings` with hashed bag-of-words vectors (`embeddings`), and the batch APIs
//! of OpenAI, Azure OpenAI and Anthropic (`batch`), answered by the same judge.
//!
//! It exists so the judge layer's retries, timeouts, cancellation, caching, repair and
//! key handling are tested over real HTTP without a model or a network. It runs on its
//! own tokio runtime thread, so synchronous and async tests alike can use it:
//!
//! ```no_run
//! let sim = ragnosis_judge_sim::Simulator::start(Default::default()).unwrap();
//! println!("base URL: {}", sim.base_url());
//! assert_eq!(sim.stats().calls, 0);
//! // Dropping the handle shuts the server down.
//! ```

mod answer;
mod batch;
mod batch_state;
mod batch_wire;
mod chat;
mod criterion;
mod default_ports;
pub mod embeddings;
pub mod faults;
mod multipart;
mod oracle;
mod server;
mod shared;
pub mod stats;

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;

use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};

pub use default_ports::DefaultPorts;
pub use faults::{BatchRules, ContainsRule, Fault, FaultRules};
pub use stats::Stats;

/// How to start a simulator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimConfig {
    /// 0 picks a free port.
    pub port: u16,
    /// A key to watch for: any request carrying it outside a credential header counts
    /// as a leak in `Stats::key_leaks`.
    pub watch_key: Option<String>,
    /// When set, requests without this key in a credential header get HTTP 401.
    pub require_key: Option<String>,
    /// Answer 400 to `response_format: json_schema`, like servers without structured
    /// output do.
    pub reject_json_schema: bool,
    /// Models listed by the model routes.
    pub models: Vec<String>,
    /// Faults active from the start.
    pub faults: FaultRules,
    /// Answer the judge check's labelled cases as people did (`oracle`): a stand-in for
    /// a judge better than the offline one.
    pub oracle: bool,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            port: 0,
            watch_key: None,
            require_key: None,
            reject_json_schema: false,
            models: vec!["sim-judge-small".into(), "sim-judge-large".into()],
            faults: FaultRules::default(),
            oracle: false,
        }
    }
}

pub struct Simulator;

impl Simulator {
    /// Binds 127.0.0.1 and serves on a background thread until the handle is dropped.
    pub fn start(config: SimConfig) -> std::io::Result<SimHandle> {
        let listener = TcpListener::bind(("127.0.0.1", config.port))?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(shared::Shared::new(config));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("judge-sim")
            .enable_all()
            .build()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("judge-sim-main".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => return eprintln!("judge simulator: cannot listen: {e}"),
                    };
                    tokio::select! {
                        _ = accept_loop(listener, serving) => {}
                        _ = stopped => {}
                    }
                });
                // Hung requests are still pending; drop them instead of waiting.
                runtime.shutdown_background();
            })?;
        Ok(SimHandle {
            addr,
            shared,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

async fn accept_loop(listener: tokio::net::TcpListener, shared: Arc<shared::Shared>) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of file descriptors or similar: back off instead of spinning.
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            continue;
        };
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let service = service_fn(move |req| server::handle(Arc::clone(&shared), req));
            // A client that goes away mid-request is normal (cancellation, timeouts).
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A running simulator. Dropping it stops the server.
pub struct SimHandle {
    pub addr: SocketAddr,
    shared: Arc<shared::Shared>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl SimHandle {
    /// `http://127.0.0.1:PORT/v1`, the base URL of an OpenAI-compatible profile.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `http://127.0.0.1:PORT`, for Azure and Anthropic profiles.
    pub fn root_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn stats(&self) -> Stats {
        self.shared
            .stats
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    pub fn set_faults(&self, rules: FaultRules) {
        *self.shared.faults.lock().unwrap_or_else(|p| p.into_inner()) = rules;
    }

    /// Clears the statistics and the faults.
    pub fn reset(&self) {
        *self.shared.stats.lock().unwrap_or_else(|p| p.into_inner()) = Stats::default();
        self.set_faults(FaultRules::default());
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
