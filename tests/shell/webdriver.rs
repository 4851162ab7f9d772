//! A minimal W3C WebDriver client (the handful of endpoints the e2e tests use) and the
//! tauri-driver process that serves it. tauri-driver starts WebKitWebDriver, which
//! starts the app binary built by this very `cargo test`.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

pub struct Driver {
    child: Child,
    pub port: u16,
}

impl Driver {
    /// Starts tauri-driver on free ports and waits until both it and the native
    /// WebKitWebDriver accept connections (tauri-driver accepts before its child is up).
    pub fn start(tauri_driver: &Path, envs: &[(&str, &Path)]) -> Driver {
        let port = free_port();
        let native_port = free_port();
        let mut cmd = Command::new(tauri_driver);
        cmd.args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native_port.to_string(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::inherit());
        for (k, v) in envs {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("tauri-driver starts");
        let driver = Driver { child, port };
        wait_for_port(port, Duration::from_secs(30));
        driver
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for_port(port: u16, limit: Duration) {
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            start.elapsed() < limit,
            "nothing listens on port {port} after {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

pub struct Session {
    http: reqwest::blocking::Client,
    base: String,
}

impl Session {
    /// Opens the app window. Retries while WebKitWebDriver is still starting.
    pub fn open(driver: &Driver, application: &Path) -> Session {
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap();
        let url = format!("http://127.0.0.1:{}", driver.port);
        let caps = json!({"capabilities": {"alwaysMatch": {"tauri:options": {"application": application}}}});
        let start = Instant::now();
        loop {
            let response = http.post(format!("{url}/session")).json(&caps).send();
            if let Ok(r) = response {
                let body: Value = r.json().unwrap_or(Value::Null);
                if let Some(id) = body["value"]["sessionId"].as_str() {
                    return Session {
                        http,
                        base: format!("{url}/session/{id}"),
                    };
                }
                if start.elapsed() > Duration::from_secs(60) {
                    panic!("could not open a WebDriver session: {body}");
                }
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        self.try_call(method, path, body)
            .unwrap_or_else(|why| panic!("webdriver {path} failed: {why}"))
    }

    /// A WebDriver call whose error (a stale element, say) the caller handles.
    fn try_call(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> Result<Value, String> {
        let mut req = self.http.request(method, format!("{}{}", self.base, path));
        if let Some(body) = body {
            req = req.json(&body);
        }
        let body: Value = req
            .send()
            .expect("webdriver request")
            .json()
            .expect("webdriver JSON");
        match body["value"].get("error") {
            Some(error) => Err(format!("{error} {}", body["value"]["message"])),
            None => Ok(body["value"].clone()),
        }
    }

    /// Elements matching a CSS selector (possibly none).
    pub fn find_all(&self, css: &str) -> Vec<String> {
        let found = self.call(
            reqwest::Method::POST,
            "/elements",
            Some(json!({"using": "css selector", "value": css})),
        );
        found
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[ELEMENT_KEY].as_str().unwrap().to_string())
            .collect()
    }

    /// Waits until at least `n` elements match, returning them.
    pub fn wait_for(&self, css: &str, n: usize, limit: Duration) -> Vec<String> {
        let start = Instant::now();
        loop {
            let found = self.find_all(css);
            if found.len() >= n {
                return found;
            }
            if start.elapsed() > limit {
                let page = self.execute("return document.body.innerText", json!([]));
                panic!(
                    "expected {n} × `{css}` within {limit:?}, found {}; page text: {page}",
                    found.len()
                );
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn text(&self, element: &str) -> String {
        self.call(
            reqwest::Method::GET,
            &format!("/element/{element}/text"),
            None,
        )
        .as_str()
        .unwrap_or("")
        .to_string()
    }

    /// Clicks an element after scrolling it to the middle of the view: an element at the
    /// very edge of the window (a button just above the bottom) can be "in view" for
    /// WebDriver yet outside the part of the window the X server shows, and the click
    /// is lost. The click waits until the element has stopped moving: WebDriver clicks
    /// where it measured the element, and a screen still filling in above it moves it.
    pub fn click(&self, element: &str) {
        let this = Value::Array(vec![json!({ ELEMENT_KEY.to_string(): element })]);
        let place = || {
            self.execute(
                "arguments[0].scrollIntoView({block: 'center', inline: 'nearest'});
                 const r = arguments[0].getBoundingClientRect();
                 return [r.x, r.y, r.width, r.height];",
                this.clone(),
            )
        };
        let start = Instant::now();
        let mut last = place();
        while start.elapsed() < Duration::from_secs(3) {
            std::thread::sleep(Duration::from_millis(120));
            let now = place();
            if now == last {
                break;
            }
            last = now;
        }
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    /// Clicks the first element matching `css`, waiting for it to appear.
    pub fn click_on(&self, css: &str, limit: Duration) {
        let found = self.wait_for(css, 1, limit);
        self.click(&found[0]);
    }

    /// Clicks `css` until `shows` is on the page. A click lands where the element was
    /// when WebDriver measured it: a screen still filling in (lists loading above the
    /// button) can move it away in between, and that click then hits something else.
    pub fn click_until(&self, css: &str, shows: &str, limit: Duration) {
        let start = Instant::now();
        loop {
            self.click_on(css, limit);
            let waited = Instant::now();
            while waited.elapsed() < Duration::from_secs(2) {
                if !self.find_all(shows).is_empty() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            if start.elapsed() > limit {
                self.wait_for(shows, 1, Duration::ZERO);
            }
        }
    }

    /// Replaces the text of an input with `text`, as typing would.
    pub fn type_into(&self, element: &str, text: &str) {
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/clear"),
            Some(json!({})),
        );
        self.call(
            reqwest::Method::POST,
            &format!("/element/{element}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Presses one key on `element` as a person would: focuses it, then sends a key down
    /// and up through the actions API (`type_into` clears the element first, which a
    /// focusable panel that is not a text field refuses).
    pub fn press_key(&self, element: &str, key: &str) {
        self.execute(
            "arguments[0].focus(); return true;",
            Value::Array(vec![json!({ ELEMENT_KEY.to_string(): element })]),
        );
        self.call(
            reqwest::Method::POST,
            "/actions",
            Some(json!({ "actions": [{
                "type": "key",
                "id": "keyboard",
                "actions": [
                    { "type": "keyDown", "value": key },
                    { "type": "keyUp", "value": key }
                ]
            }]})),
        );
        self.call(reqwest::Method::DELETE, "/actions", None);
    }

    /// Waits until the first element matching `css` has text containing `needle`. An
    /// element replaced between finding and reading it (a screen re-rendering after an
    /// import) is looked up again, not an error.
    pub fn wait_for_text(&self, css: &str, needle: &str, limit: Duration) -> String {
        let start = Instant::now();
        loop {
            if let Some(el) = self.find_all(css).first() {
                let read =
                    self.try_call(reqwest::Method::GET, &format!("/element/{el}/text"), None);
                if let Some(text) = read.ok().and_then(|v| v.as_str().map(String::from)) {
                    if text.contains(needle) {
                        return text;
                    }
                }
            }
            if start.elapsed() > limit {
                let page = self.execute("return document.body.innerText", json!([]));
                panic!("`{css}` did not show {needle:?} within {limit:?}; page text: {page}");
            }
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn execute(&self, script: &str, args: Value) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// Resizes the window (its outer size) to `width` × `height`.
    pub fn set_window_size(&self, width: u32, height: u32) {
        self.call(
            reqwest::Method::POST,
            "/window/rect",
            Some(json!({"width": width, "height": height})),
        );
    }

    /// Saves a PNG of the window to `path`.
    pub fn screenshot(&self, path: &Path) {
        use base64::Engine;
        let data = self.call(reqwest::Method::GET, "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap())
            .unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.http.delete(&self.base).send();
    }
}

/// Where e2e screenshots go: `target/e2e-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("e2e-screenshots")
}
