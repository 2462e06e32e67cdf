// The demo page: UI only. Every number is computed by kupfer (Rust, compiled to wasm) on
// WebGPU; this file draws results, reads controls, and runs the plain-JavaScript CPU loops of
// the benchmark table. With `?test` in the URL it also runs a fixed set of cases and leaves
// their results in `window.kupferTest` for the browser test (crates/kupfer-web/tests).
import init, * as kp from "./kupfer_web.js";

const $ = (id) => document.getElementById(id);
const T0 = performance.now();
const TEST = new URLSearchParams(location.search).has("test");
const fmtMs = (r) => `${r.ms.toFixed(r.ms < 10 ? 2 : 1)} ms ${r.clock === "gpu" ? "GPU" : "wall"}` +
  (r.clock === "gpu" ? ` (${r.wall_ms.toFixed(1)} ms wall with read-back)` : "");

function fail(msg) {
  document.body.classList.add("no-gpu");
  const s = $("status");
  s.textContent = msg;
  s.classList.add("error");
  window.kupferTest = { done: true, error: msg };
}

// ---- Mandelbrot explorer -------------------------------------------------------------
const HOME = { cx: -0.7, cy: 0.0, w: 3.0 };
let view = { ...HOME };
let firstResult = null;
let mbBusy = false, mbAgain = false;

async function drawMandelbrot() {
  if (mbBusy) { mbAgain = true; return; }
  mbBusy = true;
  try {
    const c = $("mb-canvas");
    const iters = Number($("mb-iter").value);
    const h = view.w * c.height / c.width;
    const r = await kp.mandelbrot(view.cx - view.w / 2, view.cx + view.w / 2,
      view.cy - h / 2, view.cy + h / 2, c.width, c.height, iters);
    c.getContext("2d").putImageData(new ImageData(r.rgba, c.width, c.height), 0, 0);
    if (firstResult === null) firstResult = performance.now() - T0;
    $("mb-time").textContent = `${c.width}×${c.height}, ${iters} iterations: ${fmtMs(r)} · ` +
      `zoom ×${(HOME.w / view.w).toFixed(0)} · first result ${firstResult.toFixed(0)} ms after page load`;
  } catch (e) {
    $("mb-time").textContent = `error: ${e}`;
  } finally {
    mbBusy = false;
    if (mbAgain) { mbAgain = false; drawMandelbrot(); }
  }
}

function setupMandelbrot() {
  $("mb-code").textContent = kp.source("mandelbrot");
  const c = $("mb-canvas");
  c.addEventListener("click", (ev) => {
    const rect = c.getBoundingClientRect();
    const fx = (ev.clientX - rect.left) / rect.width - 0.5;
    const fy = (ev.clientY - rect.top) / rect.height - 0.5;
    const h = view.w * c.height / c.width;
    view.cx += fx * view.w;
    view.cy += fy * h;
    view.w *= ev.shiftKey ? 2 : 0.5;
    drawMandelbrot();
  });
  $("mb-iter").addEventListener("input", () => { $("mb-iter-out").textContent = $("mb-iter").value; });
  $("mb-iter").addEventListener("change", drawMandelbrot);
  $("mb-reset").addEventListener("click", () => { view = { ...HOME }; drawMandelbrot(); });
}

// ---- Array playground ----------------------------------------------------------------
async function runPlayground() {
  const out = $("pg-out");
  const r = await kp.playground($("pg-expr").value);
  out.textContent = r.text;
  out.classList.toggle("error", !r.ok);
  $("pg-time").textContent = fmtMs(r) + " (evaluation and read-back)";
  return r;
}

function setupPlayground() {
  $("pg-code").textContent = kp.source("playground");
  for (const [name, about] of kp.playground_names()) {
    const li = document.createElement("li");
    li.innerHTML = `<code>${name}</code>: ${about}`;
    $("pg-names").appendChild(li);
  }
  for (const ex of kp.playground_examples()) {
    const b = document.createElement("button");
    b.textContent = ex;
    b.addEventListener("click", () => { $("pg-expr").value = ex; runPlayground(); });
    $("pg-examples").appendChild(b);
  }
  $("pg-run").addEventListener("click", runPlayground);
  $("pg-expr").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runPlayground(); }
  });
}

// ---- Image lab -----------------------------------------------------------------------
let image = null; // {rgba, width, height}

function showInput() {
  const c = $("il-in");
  c.width = image.width; c.height = image.height;
  c.getContext("2d").putImageData(new ImageData(new Uint8ClampedArray(image.rgba), image.width, image.height), 0, 0);
}

function adjustments() {
  return {
    brightness: Number($("il-bright").value),
    gamma: Number($("il-gamma").value),
    threshold: $("il-thr-on").checked ? Number($("il-thr").value) : -1,
    edges: $("il-edges").checked,
    filter: $("il-filter").value,
    cutoff: Number($("il-cutoff").value),
  };
}

async function runImageLab() {
  const a = adjustments();
  const r = await kp.image_lab(new Uint8Array(image.rgba.buffer, image.rgba.byteOffset, image.rgba.length),
    image.width, image.height, a.brightness, a.gamma, a.threshold, a.edges, a.filter, a.cutoff);
  $("il-code").textContent = kp.source(a.filter === "none" ? "imagelab" : "filters");
  const c = $("il-out");
  c.width = r.width; c.height = r.height;
  c.getContext("2d").putImageData(new ImageData(r.rgba, r.width, r.height), 0, 0);
  $("il-time").textContent = `${image.width}×${image.height}${a.filter === "none" ? "" : ", " + a.filter}: ${fmtMs(r)}`;
  return r;
}

function setupImageLab() {
  $("il-code").textContent = kp.source("imagelab");
  image = { rgba: kp.sample_image(320, 240), width: 320, height: 240 };
  showInput();
  for (const id of ["il-bright", "il-gamma", "il-thr", "il-thr-on", "il-edges", "il-filter", "il-cutoff"]) {
    $(id).addEventListener("input", () => runImageLab().catch((e) => { $("il-time").textContent = `error: ${e}`; }));
  }
  $("il-file").addEventListener("change", async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    const bmp = await createImageBitmap(f);
    const scale = Math.min(1, 480 / bmp.width, 480 / bmp.height);
    const w = Math.max(3, Math.round(bmp.width * scale)), h = Math.max(3, Math.round(bmp.height * scale));
    const c = document.createElement("canvas");
    c.width = w; c.height = h;
    const g = c.getContext("2d");
    g.drawImage(bmp, 0, 0, w, h);
    image = { rgba: g.getImageData(0, 0, w, h).data, width: w, height: h };
    showInput();
    runImageLab();
  });
}

// ---- Benchmarks ----------------------------------------------------------------------
function cpuCase(name, x, y, out) {
  const n = x.length;
  switch (name) {
    case "saxpy_expr": for (let i = 0; i < n; i++) out[i] = 2 * x[i] + y[i]; return out[0];
    case "chain5_unfused": for (let i = 0; i < n; i++) out[i] = (x[i] * 2 + y[i] * 3) / (x[i] + y[i] + 1); return out[0];
    case "sin_plus_cos": for (let i = 0; i < n; i++) out[i] = Math.sin(x[i]) + Math.cos(x[i]); return out[0];
    case "sum": { let s = 0; for (let i = 0; i < n; i++) s += x[i]; return s; }
    case "max": { let m = -Infinity; for (let i = 0; i < n; i++) if (x[i] > m) m = x[i]; return m; }
  }
  throw new Error(`no case ${name}`);
}

async function runBench(reps = 10) {
  const { cases, n } = kp.bench_cases();
  const x = new Float32Array(n), y = new Float32Array(n), out = new Float32Array(n);
  for (let i = 0; i < n; i++) { x[i] = i / n; y[i] = x[i] + 1; }
  const body = $("bn-table").querySelector("tbody");
  body.innerHTML = "";
  const results = {};
  for (const [name, about] of cases) {
    const r = await kp.bench(name, reps);
    cpuCase(name, x, y, out); // warm-up (JIT)
    const t = performance.now();
    let cpuValue = 0;
    for (let k = 0; k < 3; k++) cpuValue = cpuCase(name, x, y, out);
    const cpuMs = (performance.now() - t) / 3;
    results[name] = { gpu: r.value, cpu: cpuValue, ms: r.ms, clock: r.clock, cpu_ms: cpuMs };
    const tr = document.createElement("tr");
    tr.innerHTML = `<td><code>${name}</code></td><td><code>${about}</code></td>` +
      `<td class="num">${r.ms.toFixed(3)} ms ${r.clock === "gpu" ? "GPU" : "wall"}</td>` +
      `<td class="num">${cpuMs.toFixed(3)} ms</td><td class="num">${(cpuMs / r.ms).toFixed(1)}×</td>`;
    body.appendChild(tr);
    await new Promise((res) => setTimeout(res, 0)); // let the table paint
  }
  $("bn-time").textContent = `kupfer: mean of ${reps} runs after a warm-up; JavaScript: mean of 3.`;
  return results;
}

function setupBench() {
  $("bn-code").textContent = kp.source("bench");
  $("bn-n").textContent = kp.bench_cases().n.toLocaleString("en");
  $("bn-run").addEventListener("click", () => runBench().catch((e) => { $("bn-time").textContent = `error: ${e}`; }));
}

// ---- The browser test's fixed cases --------------------------------------------------
export const TEST_CASES = {
  mandelbrot: { x_min: -2.2, x_max: 0.8, y_min: -1.2, y_max: 1.2, width: 64, height: 48, max_iter: 40 },
  // the page's examples are added in runTests
  playground: ["b * 2 + 1", "np.sqrt(a * a.T.sum()) / (b + 1)", "a +", "foo(1)", "a + np.ones(5)"],
  image: { width: 64, height: 48, adjust: [[0.1, 1.5, -1, false], [0, 1, 0.5, false], [0, 1, -1, true]] },
  // [name, cutoff] with neutral adjustments; a 61x47 image too (odd sizes: Bluestein FFTs)
  filters: [["box3", 0], ["box5", 0], ["gaussian", 0], ["sharpen", 0], ["sobel", 0], ["lowpass", 0.08], ["highpass", 0.08]],
};

async function runTests() {
  const m = TEST_CASES.mandelbrot;
  const mb = await kp.mandelbrot(m.x_min, m.x_max, m.y_min, m.y_max, m.width, m.height, m.max_iter);
  const playground = [];
  for (const e of [...kp.playground_examples(), ...TEST_CASES.playground]) {
    const r = await kp.playground(e);
    playground.push({ expr: e, ok: r.ok, text: r.text });
  }
  const im = TEST_CASES.image;
  const sample = kp.sample_image(im.width, im.height);
  const image = [];
  for (const [b, g, t, e] of im.adjust) {
    const r = await kp.image_lab(new Uint8Array(sample.buffer), im.width, im.height, b, g, t, e, "none", 0);
    image.push({ width: r.width, height: r.height, rgba: Array.from(r.rgba) });
  }
  const filters = [];
  for (const [w, h] of [[im.width, im.height], [61, 47]]) {
    const px = kp.sample_image(w, h);
    for (const [name, cut] of TEST_CASES.filters) {
      const r = await kp.image_lab(new Uint8Array(px.buffer), w, h, 0, 1, -1, false, name, cut);
      filters.push({ name, cutoff: cut, width: r.width, height: r.height, rgba: Array.from(r.rgba), ms: r.ms, clock: r.clock });
    }
  }
  const bench = await runBench(2);
  // leave the lab on a filter, so the test's screenshot shows one and its code
  $("il-filter").value = "sobel";
  await runImageLab();
  // the test view again, warm (its kernels are compiled by now)
  const t = performance.now();
  const warm = await kp.mandelbrot(m.x_min, m.x_max, m.y_min, m.y_max, m.width, m.height, m.max_iter);
  const warm_ms = { wall: performance.now() - t, ms: warm.ms, clock: warm.clock };
  return { warm_ms, mandelbrot: { smooth: Array.from(mb.smooth), clock: mb.clock, ms: mb.ms }, playground, image, filters, bench };
}

// ---- Start ---------------------------------------------------------------------------
async function main() {
  if (!("gpu" in navigator)) {
    fail("This browser has no WebGPU, so kupfer cannot run here. Use a recent Chrome, Edge or " +
      "Safari 26+ (or Firefox with WebGPU enabled); on Linux Chromium needs " +
      "--enable-unsafe-webgpu (and --enable-features=Vulkan).");
    return;
  }
  await init();
  let info;
  try {
    info = await kp.start();
  } catch (e) {
    fail(`kupfer cannot run here: ${e}. Try a recent Chrome or Edge on a machine with a GPU; ` +
      "on Linux Chromium needs --enable-unsafe-webgpu (and --enable-features=Vulkan).");
    return;
  }
  const readyMs = performance.now() - T0;
  $("status").textContent = `Running on ${info.adapter || "a WebGPU adapter"} (${info.backend}); ` +
    (info.timestamps ? "GPU times from timestamp queries." : "the browser grants no timestamp queries: times are wall-clock.");
  $("adapter").textContent = `${info.adapter || "WebGPU adapter"} via ${info.backend} · `;
  setupMandelbrot();
  setupPlayground();
  setupImageLab();
  setupBench();
  await drawMandelbrot();
  await runPlayground();
  await runImageLab();
  if (TEST) {
    try {
      const results = await runTests();
      window.kupferTest = { done: true, ready_ms: readyMs, first_result_ms: firstResult, info, results };
    } catch (e) {
      window.kupferTest = { done: true, error: `test cases failed: ${e}` };
    }
  }
}

main().catch((e) => fail(`kupfer failed to start: ${e}`));
