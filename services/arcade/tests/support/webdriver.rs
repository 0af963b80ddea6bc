//! A small WebDriver client for the browser tests: Debian's headless `chromium` driven by its
//! `chromedriver` over the W3C WebDriver protocol (plain JSON over HTTP), so the tests click
//! through real pages with nothing but the two Debian packages (`.ci/run` installs them).
//!
//! `Browser::start` returns `None` when no browser is installed (the test is then skipped with
//! a message), and panics when `ARCADE_REQUIRE_BROWSER=1` (CI). `ARCADE_BROWSER` and
//! `ARCADE_CHROMEDRIVER` name other binaries. Waits poll a condition in the page with a
//! generous deadline (a safety net), never a fixed sleep.

#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long a wait may take before the test fails (a loaded CI machine is slow).
pub const PATIENCE: Duration = Duration::from_secs(60);

fn find(env: &str, candidates: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(env) {
        return Some(PathBuf::from(path));
    }
    candidates.iter().map(PathBuf::from).find(|p| p.exists())
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A chromedriver and one browser session of its own (fresh profile), ended on drop.
pub struct Browser {
    driver: Child,
    base: String,
    session: String,
    http: reqwest::blocking::Client,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self
            .http
            .delete(format!("{}/session/{}", self.base, self.session))
            .send();
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

impl Browser {
    /// A headless browser whose window is `width` × `height` CSS pixels; `None` (skipped) when
    /// none is installed and the browser is not required.
    pub fn start(width: u32, height: u32) -> Option<Browser> {
        let required = std::env::var("ARCADE_REQUIRE_BROWSER").is_ok_and(|v| v == "1");
        let chromium = find(
            "ARCADE_BROWSER",
            &["/usr/bin/chromium", "/usr/bin/chromium-browser"],
        );
        let driver = find(
            "ARCADE_CHROMEDRIVER",
            &["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"],
        );
        let (Some(chromium), Some(driver)) = (chromium, driver) else {
            assert!(
                !required,
                "ARCADE_REQUIRE_BROWSER=1 but chromium or chromedriver is missing (apt-get install chromium chromium-driver)"
            );
            eprintln!("SKIPPED: no chromium with chromedriver; the pages were not clicked through");
            return None;
        };
        let port = free_port();
        let child = Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", driver.display()));
        let base = format!("http://127.0.0.1:{port}");
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(120))
            .build()
            .unwrap();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let ready = http
                .get(format!("{base}/status"))
                .send()
                .ok()
                .and_then(|r| r.json::<Value>().ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "chromedriver not ready within {PATIENCE:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = tempfile::tempdir().unwrap();
        let capabilities = json!({
            "capabilities": { "alwaysMatch": {
                "browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chromium,
                    "args": [
                        "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                        format!("--user-data-dir={}", profile.path().display()),
                        format!("--window-size={width},{height}"),
                    ],
                    "mobileEmulation": { "deviceMetrics": { "width": width, "height": height, "pixelRatio": 1.0 } }
                }
            }}
        });
        let answer: Value = http
            .post(format!("{base}/session"))
            .json(&capabilities)
            .send()
            .and_then(|r| r.json())
            .unwrap_or_else(|e| panic!("chromedriver: new session: {e}"));
        let session = answer["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("chromedriver refused the session: {answer}"))
            .to_string();
        Some(Browser {
            driver: child,
            base,
            session,
            http,
            _profile: profile,
        })
    }

    fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let mut request = self.http.request(method.clone(), &url);
        if let Some(body) = body {
            request = request.json(&body);
        } else if method == reqwest::Method::POST {
            request = request.json(&json!({}));
        }
        let answer: Value = request
            .send()
            .and_then(|r| r.json())
            .unwrap_or_else(|e| panic!("webdriver {method} {path}: {e}"));
        if let Some(error) = answer["value"]["error"].as_str() {
            panic!(
                "webdriver {method} {path}: {error}: {}",
                answer["value"]["message"]
            );
        }
        answer["value"].clone()
    }

    /// Opens `url`.
    pub fn open(&self, url: &str) {
        self.call(reqwest::Method::POST, "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body; `arguments` are `args`) and returns its value.
    pub fn eval(&self, script: &str, args: Value) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Runs `script` (a function body whose last argument is the callback to call with the
    /// result; `arguments` before it are `args`) and returns what it called back with.
    pub fn eval_async(&self, script: &str, args: Value) -> Value {
        self.call(
            reqwest::Method::POST,
            "/execute/async",
            Some(json!({ "script": script, "args": args })),
        )
    }

    /// Presses and releases `key` on the keyboard (a character, or one of [`keys`]), sent to
    /// whatever has the focus, as a user without a mouse would.
    pub fn press(&self, key: &str) {
        self.call(
            reqwest::Method::POST,
            "/actions",
            Some(
                json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": [
                    { "type": "keyDown", "value": key }, { "type": "keyUp", "value": key }
                ]}]}),
            ),
        );
    }

    /// Types `text` key by key into whatever has the focus.
    pub fn type_keys(&self, text: &str) {
        let actions: Vec<Value> = text
            .chars()
            .flat_map(|c| {
                [
                    json!({ "type": "keyDown", "value": c.to_string() }),
                    json!({ "type": "keyUp", "value": c.to_string() }),
                ]
            })
            .collect();
        self.call(
            reqwest::Method::POST,
            "/actions",
            Some(json!({ "actions": [{ "type": "key", "id": "keyboard", "actions": actions }]})),
        );
    }

    /// The `id` of the focused element (`""` for `<body>` or one without an id).
    pub fn focused(&self) -> String {
        self.eval(
            "const e = document.activeElement; return e && e !== document.body ? (e.id || e.tagName) : ''",
            json!([]),
        )
        .as_str()
        .unwrap_or_default()
        .to_string()
    }

    /// The element matching `css` (panics when there is none).
    pub fn element(&self, css: &str) -> String {
        let found = self.call(
            reqwest::Method::POST,
            "/element",
            Some(json!({ "using": "css selector", "value": css })),
        );
        found
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .unwrap_or_else(|| panic!("no element {css}: {found}"))
            .to_string()
    }

    /// Clicks the element matching `css`, as a user would.
    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.call(reqwest::Method::POST, &format!("/element/{id}/click"), None);
    }

    /// Types `text` into the element matching `css`.
    pub fn type_into(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.call(
            reqwest::Method::POST,
            &format!("/element/{id}/value"),
            Some(json!({ "text": text })),
        );
    }

    /// Empties the field matching `css` (before typing a value of one's own into it).
    pub fn clear(&self, css: &str) {
        let id = self.element(css);
        self.call(reqwest::Method::POST, &format!("/element/{id}/clear"), None);
    }

    /// Chooses the option `value` of the `<select>` matching `css`.
    pub fn select(&self, css: &str, value: &str) {
        self.click(&format!("{css} option[value=\"{value}\"]"));
    }

    /// Waits until `condition` (a JS expression) is truthy in the page; panics after
    /// [`PATIENCE`] with `what` and the page's text.
    pub fn wait_for(&self, condition: &str, what: &str) {
        let deadline = Instant::now() + PATIENCE;
        let script = format!("try {{ return !!({condition}); }} catch (e) {{ return false; }}");
        while self.eval(&script, json!([])) != Value::Bool(true) {
            if Instant::now() >= deadline {
                let text = self.eval("return document.body.innerText", json!([]));
                panic!("{what}: not seen within {PATIENCE:?}; the page shows: {text}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The text of the element matching `css` (read in the page: a live page redraws its
    /// elements, so a reference to one could be stale by the time its text is asked).
    pub fn text(&self, css: &str) -> String {
        let text = self.eval(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
            json!([css]),
        );
        text.as_str()
            .unwrap_or_else(|| panic!("no element {css}"))
            .to_string()
    }

    /// Opens a new tab and switches to it; returns the previous one's handle.
    pub fn new_tab(&self) -> String {
        let previous = self.call(reqwest::Method::GET, "/window", None);
        let created = self.call(
            reqwest::Method::POST,
            "/window/new",
            Some(json!({ "type": "tab" })),
        );
        self.switch_to(created["handle"].as_str().unwrap_or_default());
        previous.as_str().unwrap_or_default().to_string()
    }

    /// The current tab's handle.
    pub fn current(&self) -> String {
        self.call(reqwest::Method::GET, "/window", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Switches to the tab `handle`.
    pub fn switch_to(&self, handle: &str) {
        self.call(
            reqwest::Method::POST,
            "/window",
            Some(json!({ "handle": handle })),
        );
    }

    /// Makes the pages see `prefers-color-scheme: light` (their light theme).
    pub fn prefer_light(&self) {
        self.call(
            reqwest::Method::POST,
            "/goog/cdp/execute",
            Some(json!({"cmd": "Emulation.setEmulatedMedia", "params": {
                "features": [{ "name": "prefers-color-scheme", "value": "light" }]
            }})),
        );
    }

    /// A PNG of the whole page (its full height, at the window's width).
    pub fn screenshot(&self) -> Vec<u8> {
        let metrics = self.eval(
            "return [document.documentElement.scrollWidth, Math.max(document.documentElement.scrollHeight, window.innerHeight)]",
            json!([]),
        );
        let height = metrics[1].as_u64().unwrap_or(800).min(4000);
        let width = self
            .eval("return window.innerWidth", json!([]))
            .as_u64()
            .unwrap_or(800);
        // Full page: the device metrics grown to the page's height for the capture.
        let _ = self.http.post(format!("{}/session/{}/goog/cdp/execute", self.base, self.session))
            .json(&json!({"cmd": "Emulation.setDeviceMetricsOverride", "params": {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600}}))
            .send();
        let shot = self.call(reqwest::Method::GET, "/screenshot", None);
        base64_decode(shot.as_str().unwrap_or_default())
    }
}

/// WebDriver's codes of the keys that are not characters.
pub mod keys {
    /// Tab.
    pub const TAB: &str = "\u{E004}";
    /// Enter.
    pub const ENTER: &str = "\u{E007}";
    /// The space bar.
    pub const SPACE: &str = " ";
    /// The arrow keys.
    pub const LEFT: &str = "\u{E012}";
    /// Up.
    pub const UP: &str = "\u{E013}";
    /// Right.
    pub const RIGHT: &str = "\u{E014}";
    /// Down.
    pub const DOWN: &str = "\u{E015}";
}

/// Standard base64 (the screenshot's encoding).
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> Option<u32> {
        match c {
            b'A'..=b'Z' => Some(u32::from(c - b'A')),
            b'a'..=b'z' => Some(u32::from(c - b'a') + 26),
            b'0'..=b'9' => Some(u32::from(c - b'0') + 52),
            b'+' => Some(62),
            b'/' => Some(63),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut buffer, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter_map(value) {
        buffer = (buffer << 6) | c;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buffer >> bits) as u8);
            buffer &= (1 << bits) - 1;
        }
    }
    out
}
