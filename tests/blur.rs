//! The image example (examples/blur.rs) end to end: generated PNG and JPEG images go in,
//! blurred PNGs come out, and their pixels are checked against NumPy/SciPy
//! (`scipy.signal.convolve2d(img, k, mode="same", boundary="symm")` on the same grayscale
//! values, rounded as the example rounds). Needs python3 with NumPy and SciPy and a GPU
//! adapter (lavapipe will do); fails, never skips, without them.

#[path = "../examples/blur.rs"]
#[allow(dead_code)]
mod blur;

use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kupfer-blur-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a temporary directory");
    d
}

/// A deterministic RGB test image: gradients, a bright square and noise.
fn test_rgb(w: u32, h: u32) -> image::RgbImage {
    let mut s = 0x2545_f491_4f6c_dd1du64;
    image::RgbImage::from_fn(w, h, |x, y| {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let noise = (s >> 58) as u32;
        let inside = (w / 4..w / 2).contains(&x) && (h / 3..2 * h / 3).contains(&y);
        let base = if inside { 230 } else { 0 };
        image::Rgb([
            ((x * 255 / w.max(1) + noise) % 256) as u8,
            ((y * 255 / h.max(1) + base) % 256) as u8,
            ((x + y) * 3 % 256) as u8 ^ noise as u8,
        ])
    })
}

/// SciPy's blur of the grayscale `gray` (u8 values) with a `size` box kernel, rounded.
fn scipy_blur(gray: &[u8], w: usize, h: usize, size: usize) -> Vec<u8> {
    let script = r#"
import json, sys
import numpy as np
from scipy.signal import convolve2d
d = json.load(sys.stdin)
img = np.array(d["gray"], dtype=np.float32).reshape(d["h"], d["w"])
k = np.ones((d["size"], d["size"]), dtype=np.float32) / np.float32(d["size"] ** 2)
out = convolve2d(img, k, mode="same", boundary="symm")
print(json.dumps(np.clip(np.rint(out), 0, 255).astype(np.uint8).ravel().tolist()))
"#;
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 (with numpy and scipy) is needed for this test");
    let payload = json!({"gray": gray, "w": w, "h": h, "size": size});
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(
        o.status.success(),
        "python3 failed (pip install numpy scipy): {}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("scipy output")
}

/// The grayscale values the example sees for an RGB image (PIL's "L" conversion).
fn gray_of(rgb: &image::RgbImage) -> Vec<u8> {
    rgb.pixels().map(|p| blur::luma(p[0], p[1], p[2])).collect()
}

/// Runs the example on `input` and checks its PNG against SciPy on `gray`. Rounding of
/// values within a float32 sum-order difference of a half may differ by one.
fn check(input: &Path, gray: &[u8], w: usize, h: usize, size: usize) {
    let out = input.with_extension(format!("blur{size}.png"));
    blur::blur_file(input, &out, size).expect("the example runs");
    let got = image::open(&out).expect("a PNG").to_luma8();
    assert_eq!((got.width() as usize, got.height() as usize), (w, h));
    let want = scipy_blur(gray, w, h, size);
    let mut off_by_one = 0;
    for (i, (g, s)) in got.as_raw().iter().zip(&want).enumerate() {
        let d = (i32::from(*g) - i32::from(*s)).abs();
        assert!(d <= 1, "pixel {i}: {g}, scipy {s} ({})", input.display());
        off_by_one += d as usize;
    }
    assert!(
        off_by_one * 100 <= want.len(),
        "{off_by_one} of {} pixels off by one",
        want.len()
    );
}

#[test]
fn blur_png_and_jpeg_match_scipy() {
    kupfer::Device::current().expect("a GPU adapter (lavapipe will do)");
    let dir = temp_dir("images");
    // RGB PNG, odd and even box sizes
    let (w, h) = (67u32, 45u32);
    let rgb = test_rgb(w, h);
    let png = dir.join("rgb.png");
    rgb.save(&png).expect("write a PNG");
    let gray = gray_of(&rgb);
    for size in [3, 4, 1] {
        check(&png, &gray, w as usize, h as usize, size);
    }
    // grayscale PNG: its values are used as they are
    let luma = image::GrayImage::from_raw(w, h, gray.clone()).unwrap();
    let gpng = dir.join("gray.png");
    luma.save(&gpng).expect("write a PNG");
    check(&gpng, &gray, w as usize, h as usize, 5);
    // JPEG (lossy: the reference starts from the decoded pixels)
    let jpg = dir.join("photo.jpg");
    test_rgb(130, 70).save(&jpg).expect("write a JPEG");
    let decoded = image::open(&jpg).expect("decode").to_rgb8();
    check(&jpg, &gray_of(&decoded), 130, 70, 3);
    // a kernel larger than the image
    let tiny = test_rgb(2, 3);
    let tpng = dir.join("tiny.png");
    tiny.save(&tpng).expect("write a PNG");
    check(&tpng, &gray_of(&tiny), 2, 3, 5);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn blur_bad_inputs_are_errors() {
    let dir = temp_dir("errors");
    let out = dir.join("out.png");
    assert!(blur::blur_file(&dir.join("missing.png"), &out, 3).is_err());
    let junk = dir.join("junk.png");
    std::fs::write(&junk, b"not an image").unwrap();
    assert!(blur::blur_file(&junk, &out, 3).is_err());
    let png = dir.join("ok.png");
    test_rgb(8, 8).save(&png).unwrap();
    assert!(blur::blur_file(&png, &out, 0).is_err());
    assert!(blur::blur_file(&png, &dir.join("no/such/dir/out.png"), 3).is_err());
    let _ = std::fs::remove_dir_all(&dir);
}
