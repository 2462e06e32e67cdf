//! The JavaScript face of the demos (wasm32 only): every export is async or cheap, and every
//! read-back is awaited, so nothing blocks the browser's main thread.

use crate::filters::Filter;
use crate::{bench, imagelab, mandelbrot, playground, source};
use js_sys::{Array as JsArray, Float32Array, Object, Reflect, Uint8ClampedArray};
use kupfer::{Array, Device, Event};
use std::cell::RefCell;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
    #[wasm_bindgen(js_namespace = console, js_name = error)]
    fn console_error(s: &str);
}

thread_local! {
    static PLAYGROUND: RefCell<Option<Vec<(String, Array)>>> = const { RefCell::new(None) };
    static BENCH: RefCell<Option<(Array, Array)>> = const { RefCell::new(None) };
}

fn js_err(e: impl std::fmt::Display) -> JsValue {
    JsValue::from_str(&e.to_string())
}

fn obj(pairs: &[(&str, JsValue)]) -> JsValue {
    let o = Object::new();
    for (k, v) in pairs {
        let _ = Reflect::set(&o, &JsValue::from_str(k), v);
    }
    o.into()
}

/// A stopwatch: GPU timestamps where the device has them, the host clock always.
struct Clock {
    start: Option<Event>,
    t0: f64,
}

impl Clock {
    fn start() -> Clock {
        let start = Device::current()
            .ok()
            .filter(|d| d.context().has_gpu_timestamps())
            .and_then(|d| d.record_event().ok());
        Clock { start, t0: now() }
    }

    /// GPU milliseconds of the work recorded since `start` (None without timestamps).
    async fn gpu_ms(&self) -> Option<f64> {
        let start = self.start.as_ref()?;
        let end = Device::current().ok()?.record_event().ok()?;
        start.elapsed_ms_async(&end).await.ok()
    }

    fn wall_ms(&self) -> f64 {
        now() - self.t0
    }
}

fn timing(gpu: Option<f64>, wall: f64) -> Vec<(&'static str, JsValue)> {
    vec![
        ("ms", JsValue::from_f64(gpu.unwrap_or(wall))),
        (
            "clock",
            JsValue::from_str(if gpu.is_some() { "gpu" } else { "wall" }),
        ),
        ("wall_ms", JsValue::from_f64(wall)),
    ]
}

/// Opens the default WebGPU device; resolves to `{adapter, backend, timestamps}`.
#[wasm_bindgen]
pub async fn start() -> Result<JsValue, JsValue> {
    std::panic::set_hook(Box::new(|info| {
        console_error(&format!("kupfer panicked: {info}"))
    }));
    let dev = kupfer::init().await.map_err(|e| match e {
        // The native help (drivers, KUPFER_BACKEND) means nothing in a browser.
        kupfer::Error::NoAdapter(_) => JsValue::from_str(
            "the browser has WebGPU but gave no GPU adapter (its GPU may be blocklisted, or \
             WebGPU may be switched off in its settings)",
        ),
        e => js_err(e),
    })?;
    let info = dev.info();
    Ok(obj(&[
        ("adapter", JsValue::from_str(&info.name)),
        ("backend", JsValue::from_str(&info.backend)),
        (
            "timestamps",
            JsValue::from_bool(dev.context().has_gpu_timestamps()),
        ),
    ]))
}

/// The kupfer code of a demo, for the page to show beside its result.
#[wasm_bindgen]
pub fn source(name: &str) -> String {
    source::snippet(name).unwrap_or_default()
}

/// Renders a Mandelbrot view; resolves to `{rgba, smooth, ms, clock, wall_ms}`.
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub async fn mandelbrot(
    x_min: f64,
    x_max: f64,
    y_min: f64,
    y_max: f64,
    width: usize,
    height: usize,
    max_iter: usize,
) -> Result<JsValue, JsValue> {
    let view = mandelbrot::View {
        x_min,
        x_max,
        y_min,
        y_max,
        width,
        height,
        max_iter,
    };
    let clock = Clock::start();
    let smooth = mandelbrot::smooth_counts(&view).map_err(js_err)?;
    let rgba = mandelbrot::colour(&smooth, max_iter).map_err(js_err)?;
    let gpu = clock.gpu_ms().await;
    let frame = mandelbrot::read_frame(&smooth, &rgba)
        .await
        .map_err(js_err)?;
    let mut out = timing(gpu, clock.wall_ms());
    out.push(("rgba", Uint8ClampedArray::from(&frame.rgba[..]).into()));
    out.push(("smooth", Float32Array::from(&frame.smooth[..]).into()));
    Ok(obj(&out))
}

fn playground_inputs() -> Result<Vec<(String, Array)>, JsValue> {
    PLAYGROUND.with(|p| {
        if let Some(v) = p.borrow().as_ref() {
            return Ok(v.clone());
        }
        let v: Vec<(String, Array)> = playground::inputs()
            .map_err(js_err)?
            .into_iter()
            .map(|(n, a, _)| (n, a))
            .collect();
        *p.borrow_mut() = Some(v.clone());
        Ok(v)
    })
}

/// The playground's arrays: `[[name, description], ...]`.
#[wasm_bindgen]
pub fn playground_names() -> Result<JsValue, JsValue> {
    let list = JsArray::new();
    for (name, _, about) in playground::inputs().map_err(js_err)? {
        list.push(&JsArray::of2(
            &JsValue::from_str(&name),
            &JsValue::from_str(about),
        ));
    }
    Ok(list.into())
}

/// The playground's example expressions.
#[wasm_bindgen]
pub fn playground_examples() -> JsValue {
    let list = JsArray::new();
    for e in playground::EXAMPLES {
        list.push(&JsValue::from_str(e));
    }
    list.into()
}

/// Evaluates a playground expression; resolves to `{ok, text, ms, clock, wall_ms}` (`text` is
/// the printed result, or a one-line error).
#[wasm_bindgen]
pub async fn playground(expr: String) -> Result<JsValue, JsValue> {
    let inputs = playground_inputs()?;
    let clock = Clock::start();
    let result = playground::run(&expr, &inputs).await;
    let wall = clock.wall_ms();
    let mut out = timing(None, wall);
    let (ok, text) = match result {
        Ok(t) => (true, t),
        Err(e) => (false, e),
    };
    out.push(("ok", JsValue::from_bool(ok)));
    out.push(("text", JsValue::from_str(&text)));
    Ok(obj(&out))
}

/// The bundled sample image, RGBA bytes of `width × height`.
#[wasm_bindgen]
pub fn sample_image(width: usize, height: usize) -> Uint8ClampedArray {
    Uint8ClampedArray::from(&imagelab::sample(width, height)[..])
}

/// Adjusts an RGBA image and applies `filter` (a name of `Filter::parse`, `cutoff` for the
/// FFT filters); resolves to `{rgba, width, height, ms, clock, wall_ms}` (the edge filter's
/// result is two pixels smaller each way).
#[wasm_bindgen]
#[allow(clippy::too_many_arguments)]
pub async fn image_lab(
    rgba: Vec<u8>,
    width: usize,
    height: usize,
    brightness: f64,
    gamma: f64,
    threshold: f64,
    edges: bool,
    filter: String,
    cutoff: f64,
) -> Result<JsValue, JsValue> {
    let adj = imagelab::Adjust {
        brightness,
        gamma,
        threshold,
        edges,
        filter: Filter::parse(&filter, cutoff).map_err(js_err)?,
    };
    let clock = Clock::start();
    let px = imagelab::upload(&rgba, width, height).map_err(js_err)?;
    let out_px = imagelab::apply(&px, &adj).map_err(js_err)?;
    let gpu = clock.gpu_ms().await;
    let bytes = imagelab::download(&out_px).await.map_err(js_err)?;
    let shape = out_px.shape().to_vec();
    let mut out = timing(gpu, clock.wall_ms());
    out.push(("rgba", Uint8ClampedArray::from(&bytes[..]).into()));
    out.push(("width", JsValue::from_f64(shape[1] as f64)));
    out.push(("height", JsValue::from_f64(shape[0] as f64)));
    Ok(obj(&out))
}

/// The benchmark cases: `[[name, numpy form], ...]` and the vector length `n`.
#[wasm_bindgen]
pub fn bench_cases() -> JsValue {
    let list = JsArray::new();
    for (name, about) in bench::CASES {
        list.push(&JsArray::of2(
            &JsValue::from_str(name),
            &JsValue::from_str(about),
        ));
    }
    obj(&[
        ("cases", list.into()),
        ("n", JsValue::from_f64(bench::N as f64)),
    ])
}

/// Runs a benchmark case `reps` times after one warm-up; resolves to `{ms, clock, wall_ms,
/// value}` with `ms` per repetition and `value` the result's first element.
#[wasm_bindgen]
pub async fn bench(name: String, reps: usize) -> Result<JsValue, JsValue> {
    let (x, y) = BENCH.with(|b| -> Result<(Array, Array), JsValue> {
        if let Some(v) = b.borrow().as_ref() {
            return Ok(v.clone());
        }
        let v = bench::inputs().map_err(js_err)?;
        *b.borrow_mut() = Some(v.clone());
        Ok(v)
    })?;
    let dev = Device::current().map_err(js_err)?;
    let warm = bench::run(&name, &x, &y).map_err(js_err)?;
    dev.synchronize_async().await.map_err(js_err)?;
    let reps = reps.max(1);
    let clock = Clock::start();
    let mut last = warm;
    for _ in 0..reps {
        last = bench::run(&name, &x, &y).map_err(js_err)?;
    }
    let gpu = clock.gpu_ms().await;
    dev.synchronize_async().await.map_err(js_err)?;
    let wall = clock.wall_ms();
    let first = last
        .ravel()
        .and_then(|f| f.slice(&[kupfer::SliceArg::Index(0)]))
        .map_err(js_err)?;
    let value = first.item_async().await.map_err(js_err)?.as_f64();
    let n = reps as f64;
    let mut out = timing(gpu.map(|g| g / n), wall / n);
    out.push(("value", JsValue::from_f64(value)));
    Ok(obj(&out))
}
