//! The machine's default ports of local model servers (Ollama 11434, LM Studio 1234, …),
//! held by one test at a time across processes. Detection tests play a server on one of
//! them and check that nothing answers on the others; the CLI's and the window's test
//! binaries run side by side (`scripts/test.sh`), so each takes this lock first.

use std::fs::File;
use std::io;

/// Holds the default ports until dropped.
pub struct DefaultPorts {
    _lock: File,
}

impl DefaultPorts {
    /// Waits until no other test process holds the default ports, then holds them.
    pub fn hold() -> io::Result<DefaultPorts> {
        let file = File::create(std::env::temp_dir().join("ragnosis-default-ports.lock"))?;
        file.lock()?;
        Ok(DefaultPorts { _lock: file })
    }
}
