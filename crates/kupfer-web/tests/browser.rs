//! The real browser test: Debian's chromium, headless, with WebGPU on its bundled SwiftShader,
//! loads the built page from a local server (127.0.0.1), runs every demo (`?test`), and the
//! numbers it reports are checked against the same kupfer code run natively here (lavapipe).
//! A screenshot of the page is kept in `target/web-artifacts/page.png`, with `summary.json`
//! (wasm size, time to first result) beside it.
//!
//! Chromium is driven through chromedriver's WebDriver HTTP interface (std-only client).
//! Missing chromium or chromedriver is a failure, not a skip: `.ci/run` installs both
//! (`apt-get install chromium chromium-driver`).

use kupfer_web::{bench, imagelab, mandelbrot, playground};
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// The flags that give headless chromium WebGPU on SwiftShader here, and no network.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--enable-unsafe-webgpu",
    "--use-webgpu-adapter=swiftshader",
    "--enable-features=Vulkan",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
    "--window-size=1280,3000",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root().join("target"), PathBuf::from)
}

/// Builds the page with `cargo xtask web` (a no-op rebuild when it is up to date).
fn build_page() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(root())
        .args(["run", "--quiet", "--package", "xtask", "--", "web"])
        .status()
        .expect("running cargo xtask web");
    assert!(status.success(), "cargo xtask web failed");
    target_dir().join("web")
}

// ---- a minimal WebDriver client ------------------------------------------------------

struct Driver {
    port: u16,
    child: Child,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

fn http(port: u16, method: &str, path: &str, body: Option<&Value>) -> std::io::Result<Value> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(300)))?;
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )?;
    // chromedriver keeps connections open: read the header, then exactly the body.
    let mut raw = Vec::new();
    let mut buf = [0u8; 65536];
    let split = loop {
        if let Some(p) = raw.windows(4).position(|w| w == b"\r\n\r\n") {
            break p;
        }
        let n = s.read(&mut buf)?;
        if n == 0 {
            return Err(std::io::Error::other("no HTTP header end"));
        }
        raw.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let mut payload = raw[split + 4..].to_vec();
    let length = head.lines().find_map(|l| {
        l.strip_prefix("content-length:")
            .and_then(|v| v.trim().parse::<usize>().ok())
    });
    match length {
        Some(len) => {
            while payload.len() < len {
                let n = s.read(&mut buf)?;
                if n == 0 {
                    break;
                }
                payload.extend_from_slice(&buf[..n]);
            }
        }
        None => {
            s.read_to_end(&mut payload)?;
            if head.contains("transfer-encoding: chunked") {
                payload = dechunk(&payload);
            }
        }
    }
    serde_json::from_slice(&payload).map_err(std::io::Error::other)
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = b.windows(2).position(|w| w == b"\r\n") {
        let len = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap_or(0);
        if len == 0 {
            break;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + len]);
        b = &b[eol + 2 + len + 2..];
    }
    out
}

impl Driver {
    fn start() -> Driver {
        for (path, what) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
            assert!(
                Path::new(path).is_file(),
                "{path} is missing: the browser test needs Debian's {what} \
                 (`apt-get install chromium chromium-driver`; .ci/run installs it)"
            );
        }
        let port = free_port();
        let child = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("starting chromedriver");
        let d = Driver { port, child };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(30) {
            if let Ok(v) = http(port, "GET", "/status", None) {
                if v["value"]["ready"] == json!(true) {
                    return d;
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        panic!("chromedriver did not become ready in 30 s");
    }

    fn session(&self, flags: &[&str]) -> Session<'_> {
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": flags},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let v = http(self.port, "POST", "/session", Some(&caps)).expect("new session");
        let id = v["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("chromedriver refused a session: {v}"))
            .to_string();
        Session { driver: self, id }
    }
}

struct Session<'a> {
    driver: &'a Driver,
    id: String,
}

impl Session<'_> {
    fn call(&self, method: &str, what: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}/{what}", self.id);
        let v = http(self.driver.port, method, &path, body.as_ref())
            .unwrap_or_else(|e| panic!("{method} {what}: {e}"));
        if v["value"]["error"].is_string() {
            panic!("{method} {what}: {}", v["value"]);
        }
        v["value"].clone()
    }

    fn goto(&self, url: &str) {
        self.call("POST", "url", Some(json!({ "url": url })));
    }

    fn js(&self, script: &str) -> Value {
        self.call(
            "POST",
            "execute/sync",
            Some(json!({ "script": script, "args": [] })),
        )
    }

    /// Polls `window.kupferTest` until the page says it is done.
    fn wait_results(&self, timeout: Duration) -> Value {
        let t = Instant::now();
        loop {
            let v = self.js("return window.kupferTest ? JSON.stringify(window.kupferTest) : null");
            if let Some(s) = v.as_str() {
                return serde_json::from_str(s).expect("the page's results are JSON");
            }
            if t.elapsed() > timeout {
                let status = self.js("return document.getElementById('status').textContent");
                panic!("the page did not finish in {timeout:?}; its status line: {status}");
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// The browser console so far, one message a line.
    fn console(&self) -> String {
        let v = self.call("POST", "se/log", Some(json!({ "type": "browser" })));
        v.as_array()
            .map(|a| {
                a.iter()
                    .map(|m| format!("{} {}\n", m["level"], m["message"]))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn screenshot(&self, path: &Path) {
        self.js("window.scrollTo(0, 0)");
        let b64 = self.call("GET", "screenshot", None);
        let png = base64_decode(b64.as_str().expect("a base64 screenshot"));
        std::fs::write(path, png).expect("writing the screenshot");
    }
}

impl Drop for Session<'_> {
    fn drop(&mut self) {
        let _ = http(
            self.driver.port,
            "DELETE",
            &format!("/session/{}", self.id),
            None,
        );
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    };
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for v in s.bytes().filter_map(val) {
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

// ---- comparisons with native kupfer ---------------------------------------------------

/// The numbers in a printed value, and the text with them blanked out.
fn numbers(text: &str) -> (Vec<f64>, String) {
    let mut nums = Vec::new();
    let mut shape = String::new();
    let mut cur = String::new();
    let flush = |cur: &mut String, nums: &mut Vec<f64>, shape: &mut String| {
        if !cur.is_empty() {
            match cur.parse::<f64>() {
                Ok(v) => {
                    nums.push(v);
                    shape.push('#');
                }
                Err(_) => shape.push_str(cur),
            }
            cur.clear();
        }
    };
    for ch in text.chars() {
        if ch.is_ascii_digit() || matches!(ch, '.' | '-' | 'e' | '+') {
            cur.push(ch);
        } else {
            flush(&mut cur, &mut nums, &mut shape);
            if !ch.is_whitespace() {
                shape.push(ch);
            }
        }
    }
    flush(&mut cur, &mut nums, &mut shape);
    (nums, shape)
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-6) || (a.is_nan() && b.is_nan())
}

fn check_mandelbrot(page: &Value) -> String {
    let v = mandelbrot::View::home(64, 48, 40);
    let native: Vec<f32> = mandelbrot::smooth_counts(&v)
        .and_then(|a| a.to_vec())
        .expect("native Mandelbrot");
    let got: Vec<f64> = page["smooth"]
        .as_array()
        .expect("smooth counts")
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect();
    assert_eq!(got.len(), native.len(), "Mandelbrot: pixel count");
    let off = got
        .iter()
        .zip(&native)
        .filter(|(g, n)| !close(**g, f64::from(**n), 1e-3))
        .count();
    let inside = native.iter().filter(|&&n| n == 0.0).count();
    assert!(
        inside > 100 && inside < native.len() - 100,
        "the test view shows the set's boundary"
    );
    // Boundary points may escape one iteration apart under different float rounding.
    assert!(
        off * 100 <= native.len(),
        "Mandelbrot: {off} of {} smooth counts differ from native kupfer",
        native.len()
    );
    format!("mandelbrot: {} pixels, {off} differ", native.len())
}

fn check_playground(page: &Value) -> String {
    let inputs: Vec<(String, kupfer::Array)> = playground::inputs()
        .expect("playground inputs")
        .into_iter()
        .map(|(n, a, _)| (n, a))
        .collect();
    let cases = page.as_array().expect("playground results");
    assert!(cases.len() >= 5);
    for c in cases {
        let expr = c["expr"].as_str().expect("expr");
        let text = c["text"].as_str().expect("text");
        let ok = c["ok"].as_bool().expect("ok");
        let native = pollster::block_on(playground::run(expr, &inputs));
        match native {
            Ok(n) => {
                assert!(
                    ok,
                    "playground `{expr}`: the page failed with '{text}', native gave {n}"
                );
                let (a, sa) = numbers(text);
                let (b, sb) = numbers(&n);
                assert_eq!(sa, sb, "playground `{expr}`: page\n{text}\nnative\n{n}");
                assert!(
                    a.iter().zip(&b).all(|(x, y)| close(*x, *y, 1e-5)),
                    "playground `{expr}`: page\n{text}\nnative\n{n}"
                );
            }
            Err(e) => {
                assert!(
                    !ok,
                    "playground `{expr}`: native failed ({e}), the page printed {text}"
                );
                assert_eq!(text, e, "playground `{expr}`: the error message");
                assert!(!text.contains('\n'), "errors are one line: {text}");
            }
        }
    }
    check_random_draws(cases);
    format!("playground: {} expressions", cases.len())
}

/// The page's random draws (Philox4x32-10 on Chromium's WebGPU) against kupfer's CPU
/// reference of the same generator: the same seed gives the same numbers everywhere.
fn check_random_draws(cases: &[Value]) {
    use kupfer::random::philox::{reference, seed_key, RandomOp};
    use kupfer::DType;
    let draws: [(&str, RandomOp, DType, u64, usize, u32, f64); 4] = [
        (
            "np.random.default_rng(42).random(6)",
            RandomOp::Uniform,
            DType::F32,
            42,
            6,
            0,
            1e-6,
        ),
        (
            "np.random.default_rng(42).integers(0, 1000, 6)",
            RandomOp::Bounded,
            DType::U32,
            42,
            6,
            1000,
            0.0,
        ),
        (
            "np.random.default_rng(7).standard_normal(4)",
            RandomOp::Normal,
            DType::F32,
            7,
            4,
            0,
            1e-5,
        ),
        (
            "np.random.default_rng(9).permutation(100)[:6]",
            RandomOp::Permute,
            DType::U32,
            9,
            6,
            100,
            0.0,
        ),
    ];
    for (expr, op, dtype, seed, n, param, rel) in draws {
        let page = cases
            .iter()
            .find(|c| c["expr"].as_str() == Some(expr))
            .unwrap_or_else(|| panic!("the page ran no `{expr}`"));
        let (got, _) = numbers(page["text"].as_str().expect("text"));
        let want: Vec<f64> = (0..n as u32)
            .map(|e| reference(op, dtype, seed_key(seed), 0, e, param))
            .collect();
        // The values come first (a float32 array's `dtype=float32` adds a trailing 32).
        assert!(got.len() >= n, "`{expr}`: {got:?}");
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= rel * w.abs().max(1.0),
                "`{expr}` in the browser: {got:?}, the CPU reference {want:?}"
            );
        }
    }
    check_weighted_choice(cases);
    check_draw_bits(cases);
}

/// The bits of the page's float32 normals, exponentials and gammas (`.view(np.uint32)`, so
/// the printed integers are the exact bits) against kupfer's CPU emulations, which native
/// drivers match bit for bit (tests/random_ziggurat.rs): the same seed draws the same floats
/// on Chromium's WebGPU as on every native driver.
fn check_draw_bits(cases: &[Value]) {
    use kupfer::random::philox::{gamma, seed_key, ziggurat};
    let key = seed_key(7);
    let draws: [(&str, &dyn Fn(u32) -> f32); 3] = [
        (
            "np.random.default_rng(7).standard_normal(6).view(np.uint32)",
            &|e| ziggurat::normal_f32(key, 0, e),
        ),
        (
            "np.random.default_rng(7).standard_exponential(6).view(np.uint32)",
            &|e| ziggurat::exponential_f32(key, 0, e),
        ),
        (
            "np.random.default_rng(7).gamma(2.5, 1.0, 6).view(np.uint32)",
            &|e| gamma::gamma_f32(key, 0, e, 2.5),
        ),
    ];
    for (expr, emulate) in draws {
        let page = cases
            .iter()
            .find(|c| c["expr"].as_str() == Some(expr))
            .unwrap_or_else(|| panic!("the page ran no `{expr}`"));
        let (got, _) = numbers(page["text"].as_str().expect("text"));
        let want: Vec<f64> = (0..6).map(|e| f64::from(emulate(e).to_bits())).collect();
        assert_eq!(
            got.get(..6),
            Some(&want[..]),
            "`{expr}` in the browser against the CPU emulation's bits"
        );
    }
}

/// The page's `choice` with probabilities (exact fixed-point inversion, no float64 on
/// WebGPU) against the CPU reference: the same indices as native for one seed. The list `p`
/// takes the host's float64 thresholds; the array `p` the device's float32 cumulative sum,
/// exact here (binary fractions), so its thresholds are the same.
fn check_weighted_choice(cases: &[Value]) {
    use kupfer::random::philox::{choice_index, choice_thresholds, seed_key};
    let draws: [(&str, &[f64], u32); 2] = [
        (
            "np.random.default_rng(3).choice(5, 6, p=[0.1, 0, 0.3, 0.6, 0])",
            &[0.1, 0.0, 0.3, 0.6, 0.0],
            6,
        ),
        (
            "np.random.default_rng(3).choice(4, 5, p=np.array([0.25, 0.0, 0.5, 0.25]))",
            &[0.25, 0.0, 0.5, 0.25],
            5,
        ),
    ];
    for (expr, p, n) in draws {
        let page = cases
            .iter()
            .find(|c| c["expr"].as_str() == Some(expr))
            .unwrap_or_else(|| panic!("the page ran no `{expr}`"));
        let (got, _) = numbers(page["text"].as_str().expect("text"));
        let thresholds = choice_thresholds(p);
        let want: Vec<f64> = (0..n)
            .map(|e| f64::from(choice_index(seed_key(3), 0, e, &thresholds)))
            .collect();
        assert_eq!(
            got[..n as usize],
            want,
            "`{expr}` in the browser, the CPU reference {want:?}"
        );
        // Not a degenerate p: the draws are not all one index.
        assert!(want.iter().any(|&w| w != want[0]), "`{expr}`: {want:?}");
    }
}

fn check_image(page: &Value) -> String {
    let (w, h) = (64, 48);
    let sample = imagelab::sample(w, h);
    let px = imagelab::upload(&sample, w, h).expect("upload");
    let adjust = [
        imagelab::Adjust {
            brightness: 0.1,
            gamma: 1.5,
            ..Default::default()
        },
        imagelab::Adjust {
            threshold: 0.5,
            ..Default::default()
        },
        imagelab::Adjust {
            edges: true,
            ..Default::default()
        },
    ];
    let got = page.as_array().expect("image results");
    assert_eq!(got.len(), adjust.len());
    let mut worst = 0;
    for (adj, g) in adjust.iter().zip(got) {
        let out = imagelab::apply(&px, adj).expect("native image lab");
        let native = pollster::block_on(imagelab::download(&out)).expect("read-back");
        assert_eq!(g["width"], json!(out.shape()[1]), "{adj:?}");
        assert_eq!(g["height"], json!(out.shape()[0]), "{adj:?}");
        let far = bytes_off_by_more_than_one(g, &native, &format!("{adj:?}"));
        // A threshold may flip a pixel whose luminance rounds to it.
        assert!(
            far * 500 <= native.len(),
            "{adj:?}: {far} bytes differ by more than 1"
        );
        worst = worst.max(far);
    }
    format!("image lab: 3 adjustments, at most {worst} bytes off by more than 1")
}

/// How many of the page's RGBA bytes (`g["rgba"]`) differ from the native ones by more than
/// 1; the lengths must match.
fn bytes_off_by_more_than_one(g: &Value, native: &[u8], what: &str) -> usize {
    let bytes: Vec<i64> = g["rgba"]
        .as_array()
        .expect("rgba")
        .iter()
        .map(|v| v.as_i64().unwrap_or(-1))
        .collect();
    assert_eq!(bytes.len(), native.len(), "{what}");
    bytes
        .iter()
        .zip(native)
        .filter(|(a, b)| (**a - i64::from(**b)).abs() > 1)
        .count()
}

/// The page's convolution and FFT filters (on the 64x48 and 61x47 samples) against the same
/// filters run natively.
fn check_filters(page: &Value) -> String {
    use kupfer_web::filters::Filter;
    let got = page.as_array().expect("filter results");
    assert_eq!(got.len(), 2 * 7, "filter results");
    let mut worst = 0;
    let mut times = Vec::new();
    for (k, g) in got.iter().enumerate() {
        let (w, h) = if k < 7 { (64, 48) } else { (61, 47) };
        let name = g["name"].as_str().expect("filter name");
        let filter = Filter::parse(name, g["cutoff"].as_f64().expect("cutoff")).expect("filter");
        let px = imagelab::upload(&imagelab::sample(w, h), w, h).expect("upload");
        let adj = imagelab::Adjust {
            filter,
            ..Default::default()
        };
        let out = imagelab::apply(&px, &adj).expect("native filter");
        let native = pollster::block_on(imagelab::download(&out)).expect("read-back");
        assert_eq!(g["width"], json!(w), "{name}");
        assert_eq!(g["height"], json!(h), "{name}");
        let far = bytes_off_by_more_than_one(g, &native, name);
        assert_eq!(far, 0, "{name} {w}x{h}: {far} bytes differ by more than 1");
        worst = worst.max(far);
        if k < 7 {
            let ms = g["ms"].as_f64().unwrap_or(f64::NAN);
            times.push(format!(
                "{name} {ms:.2} ms ({})",
                g["clock"].as_str().unwrap_or("?")
            ));
        }
    }
    format!(
        "filters: 7 on 64x48 and 61x47, every byte within 1 of native; 64x48: {}",
        times.join(", ")
    )
}

fn check_bench(page: &Value) -> String {
    let (x, y) = bench::inputs().expect("bench inputs");
    for (name, _) in bench::CASES {
        let r = &page[*name];
        let gpu = r["gpu"].as_f64().unwrap_or(f64::NAN);
        let native = bench::run(name, &x, &y)
            .and_then(|a| a.ravel())
            .and_then(|a| a.slice(&[kupfer::SliceArg::Index(0)]))
            .and_then(|a| a.item())
            .expect("native bench")
            .as_f64();
        assert!(
            close(gpu, native, 1e-4),
            "bench {name}: page {gpu}, native {native}"
        );
        // The JavaScript loop computes the same in float64.
        let cpu = r["cpu"].as_f64().unwrap_or(f64::NAN);
        assert!(
            close(gpu, cpu, 1e-3),
            "bench {name}: page {gpu}, JavaScript {cpu}"
        );
    }
    format!("bench: {} cases", bench::CASES.len())
}

#[test]
fn the_page_runs_every_demo_in_headless_chromium() {
    let t = Instant::now();
    let dir = build_page();
    let built = t.elapsed();
    let artifacts = target_dir().join("web-artifacts");
    std::fs::create_dir_all(&artifacts).expect("artifacts folder");
    let port = kupfer_web::serve::spawn(dir.clone(), 0).expect("serving the page");
    let driver = Driver::start();

    let s = driver.session(FLAGS);
    let t_page = Instant::now();
    s.goto(&format!("http://127.0.0.1:{port}/?test"));
    let r = s.wait_results(Duration::from_secs(300));
    let page_s = t_page.elapsed().as_secs_f64();
    eprintln!("browser test: page built in {built:?}, demos ran in {page_s:.1} s");
    s.screenshot(&artifacts.join("page.png"));
    std::fs::write(artifacts.join("console.txt"), s.console()).expect("writing console.txt");
    std::fs::write(
        artifacts.join("results.json"),
        serde_json::to_string_pretty(&r).expect("json"),
    )
    .expect("writing results.json");
    assert!(r["error"].is_null(), "the page reported: {}", r["error"]);
    let res = &r["results"];
    let report = [
        check_mandelbrot(&res["mandelbrot"]),
        check_playground(&res["playground"]),
        check_image(&res["image"]),
        check_filters(&res["filters"]),
        check_bench(&res["bench"]),
    ];
    drop(s);

    // Without WebGPU the page says so instead of staying blank.
    let plain: Vec<&str> = FLAGS
        .iter()
        .copied()
        .filter(|f| !f.contains("webgpu") && !f.contains("Vulkan"))
        .chain(["--disable-gpu"])
        .collect();
    let s = driver.session(&plain);
    s.goto(&format!("http://127.0.0.1:{port}/"));
    let t0 = Instant::now();
    let status = loop {
        let v = s.js("const s = document.getElementById('status'); \
             return s.classList.contains('error') ? s.textContent : null");
        if let Some(text) = v.as_str() {
            break text.to_string();
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no message without WebGPU"
        );
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(status.contains("cannot run here"), "{status}");
    s.screenshot(&artifacts.join("no-webgpu.png"));
    drop(s);

    let wasm = std::fs::read(dir.join("kupfer_web_bg.wasm")).expect("the built wasm");
    let summary = json!({
        "wasm_bytes": wasm.len(),
        "device_ready_ms": r["ready_ms"],
        "first_result_ms": r["first_result_ms"],
        "adapter": r["info"]["adapter"],
        "timestamps": r["info"]["timestamps"],
        "mandelbrot_test_view": { "ms": res["mandelbrot"]["ms"], "clock": res["mandelbrot"]["clock"] },
        "bench": res["bench"],
        "mandelbrot_test_view_warm": res["warm_ms"],
        "page_seconds": page_s,
        "build_seconds": built.as_secs_f64(),
        "checks": report,
    });
    std::fs::write(
        artifacts.join("summary.json"),
        serde_json::to_string_pretty(&summary).expect("json"),
    )
    .expect("writing summary.json");
    eprintln!(
        "browser test: {summary:#}\nscreenshot: {}",
        artifacts.join("page.png").display()
    );
}
