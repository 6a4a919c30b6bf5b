//! Headless Chromium driven over WebDriver (chromedriver, plain HTTP/1.1 with JSON bodies): the
//! few commands the web test needs.

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The browser and its driver: Debian's, unless `DRAPE_CHROMIUM` and `DRAPE_CHROMEDRIVER` name
/// others.
fn chromium() -> String {
    std::env::var("DRAPE_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".to_owned())
}

fn chromedriver() -> String {
    std::env::var("DRAPE_CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".to_owned())
}

/// Fails with what to install when the browser or its driver is missing.
pub fn check_installed() {
    for program in [chromium(), chromedriver()] {
        assert!(
            std::path::Path::new(&program).exists(),
            "the web test needs {program}: apt-get install chromium chromium-driver \
             (or set DRAPE_CHROMIUM and DRAPE_CHROMEDRIVER)"
        );
    }
}

/// A browser session; the browser and its driver end when it is dropped.
pub struct Browser {
    driver: Child,
    port: u16,
    session: String,
    _profile: TempDir,
}

impl Browser {
    /// Starts headless Chromium with WebGPU (`webgpu`; SwiftShader where there is no GPU) or
    /// without it, in a fresh profile, with none of its background network traffic.
    pub fn start(webgpu: bool) -> Self {
        check_installed();
        let port = free_port();
        let driver = Command::new(chromedriver())
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let profile = TempDir::new("drape-web-profile");
        let mut args = vec![
            "--headless=new".to_owned(),
            "--no-sandbox".to_owned(),
            format!("--user-data-dir={}", profile.0.display()),
            "--disable-background-networking".to_owned(),
            "--disable-component-update".to_owned(),
            "--disable-sync".to_owned(),
            "--no-first-run".to_owned(),
            "--window-size=1000,700".to_owned(),
        ];
        // Without a GPU, headless Chromium has no shared-image backing for a WebGPU canvas's
        // textures unless its compositor runs on SwiftShader's Vulkan too: with the defaults the
        // first present loses the device (every map then fails), and with
        // --disable-vulkan-surface the canvas stays blank.
        let swiftshader =
            ["--use-gl=angle", "--use-angle=swiftshader", "--enable-features=Vulkan", "--use-vulkan=swiftshader"];
        args.extend(swiftshader.map(str::to_owned));
        args.push(if webgpu { "--enable-unsafe-webgpu" } else { "--disable-features=WebGPU" }.to_owned());
        let mut browser = Self { driver, port, session: String::new(), _profile: profile };
        let deadline = Instant::now() + Duration::from_secs(30);
        while browser.request("GET", "/status", None).is_err() {
            assert!(Instant::now() < deadline, "chromedriver did not answer within 30 s");
            std::thread::sleep(Duration::from_millis(100));
        }
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": chromium(), "args": args},
        }}});
        let created = browser.command("POST", "/session", Some(capabilities));
        browser.session = created["sessionId"].as_str().expect("a session id").to_owned();
        browser
    }

    /// Opens `url` (returns once the page has loaded; its module may still be starting).
    pub fn open(&self, url: &str) {
        self.session_command("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` in every page opened from now on, before the page's own scripts (through
    /// the DevTools protocol, which chromedriver passes on).
    pub fn before_every_page(&self, script: &str) {
        let command = json!({"cmd": "Page.addScriptToEvaluateOnNewDocument", "params": {"source": script}});
        self.session_command("POST", "/goog/cdp/execute", Some(command));
    }

    /// Runs `script` (a function body; `arguments` holds `args`) and returns what it returns.
    pub fn eval(&self, script: &str, args: Value) -> Value {
        self.session_command("POST", "/execute/sync", Some(json!({ "script": script, "args": args })))
    }

    /// `window.drape[key]` (arrays as plain arrays), or null before the page published it.
    pub fn state(&self, key: &str) -> Value {
        let script = "const v = (window.drape || {})[arguments[0]]; \
                      return ArrayBuffer.isView(v) ? Array.from(v) : (v === undefined ? null : v);";
        self.eval(script, json!([key]))
    }

    /// Polls `condition` on the page's state until it holds, failing with `what` (and the page's
    /// status and error) after `timeout`.
    pub fn wait_for(&self, what: &str, timeout: Duration, condition: impl Fn(&Self) -> bool) {
        let deadline = Instant::now() + timeout;
        while !condition(self) {
            let status = self.state("status");
            assert!(status != json!("error"), "the page failed while waiting for {what}: {}", self.state("error"));
            assert!(
                Instant::now() < deadline,
                "waited {timeout:?} for {what}; status {status}, frames {}",
                self.state("frames")
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Resizes the browser window (CSS pixels).
    pub fn resize_window(&self, width: u32, height: u32) {
        self.session_command("POST", "/window/rect", Some(json!({"width": width, "height": height})));
    }

    /// The WebDriver id of the element `css` selects.
    pub fn element(&self, css: &str) -> String {
        let found = self.session_command("POST", "/element", Some(json!({"using": "css selector", "value": css})));
        let object = found.as_object().expect("an element reference");
        object.values().next().and_then(Value::as_str).expect("an element id").to_owned()
    }

    /// Clicks the element `css` selects.
    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.session_command("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    /// Picks the file at `path` in the file input `css` selects.
    pub fn upload(&self, css: &str, path: &std::path::Path) {
        let id = self.element(css);
        let text = path.to_str().expect("a UTF-8 path");
        self.session_command("POST", &format!("/element/{id}/value"), Some(json!({ "text": text })));
    }

    /// A PNG of the element `css` selects.
    pub fn screenshot(&self, css: &str) -> Vec<u8> {
        let id = self.element(css);
        let encoded = self.session_command("GET", &format!("/element/{id}/screenshot"), None);
        base64_decode(encoded.as_str().expect("base64 text"))
    }

    /// Performs one pointer's WebDriver `actions`; `pointer` is "mouse", "pen" or "touch". A
    /// button or finger left down stays down until [`Browser::release_pointers`].
    pub fn pointer_actions(&self, pointer: &str, actions: Value) {
        self.actions(json!([{
            "type": "pointer", "id": pointer, "parameters": {"pointerType": pointer}, "actions": actions,
        }]));
    }

    /// Lets go of every button and finger left down (for touch, chromedriver sends a later
    /// call's `pointerUp` nowhere: only this releases a finger).
    pub fn release_pointers(&self) {
        self.session_command("DELETE", "/actions", None);
    }

    /// Performs WebDriver input `sources` tick by tick (several fingers move together).
    pub fn actions(&self, sources: Value) {
        self.session_command("POST", "/actions", Some(json!({ "actions": sources })));
    }

    fn session_command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.command(method, &format!("/session/{}{path}", self.session), body)
    }

    /// A WebDriver command's value; a WebDriver error fails the test with its message.
    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let reply = self.request(method, path, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let value = reply.get("value").cloned().unwrap_or(Value::Null);
        if let Some(error) = value.get("error") {
            panic!("{method} {path}: {error}: {}", value["message"]);
        }
        value
    }

    fn request(&self, method: &str, path: &str, body: Option<Value>) -> std::io::Result<Value> {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port))?;
        stream.set_read_timeout(Some(Duration::from_secs(120)))?;
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            self.port,
            body.len()
        );
        stream.write_all(head.as_bytes())?;
        stream.write_all(body.as_bytes())?;
        // chromedriver keeps the connection open: read exactly the body its length announces.
        let mut reader = BufReader::new(stream);
        let mut length = 0;
        let mut line = String::new();
        while reader.read_line(&mut line)? > 2 {
            if let Some((name, value)) = line.split_once(':') {
                if name.trim().eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().map_err(std::io::Error::other)?;
                }
            }
            line.clear();
        }
        let mut reply = vec![0; length];
        reader.read_exact(&mut reply)?;
        serde_json::from_slice(&reply)
            .map_err(|e| std::io::Error::other(format!("{e}: {}", String::from_utf8_lossy(&reply))))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = self.request("DELETE", &format!("/session/{}", self.session), None);
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The numbers of a JSON array (as the page publishes positions and matrices).
pub fn floats(value: &Value) -> Vec<f32> {
    let numbers = value.as_array().unwrap_or_else(|| panic!("{value} is not an array"));
    numbers.iter().map(|v| v.as_f64().unwrap_or_else(|| panic!("{v} is not a number")) as f32).collect()
}

/// A directory removed when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(prefix: &str) -> Self {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let path = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&path).expect("a temporary directory");
        Self(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

/// Standard base64 (RFC 4648 §4), as WebDriver sends screenshots.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("{c} is not base64"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).map(value).collect();
    digits
        .chunks(4)
        .flat_map(|chunk| {
            let bits = chunk.iter().enumerate().fold(0u32, |acc, (i, &d)| acc | u32::from(d) << (18 - 6 * i));
            let bytes = bits.to_be_bytes();
            bytes[1..chunk.len()].to_vec()
        })
        .collect()
}
