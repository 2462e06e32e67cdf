//! What the test suite needs on the machine, checked one by one and installed where it can be:
//! a Vulkan driver (Mesa's lavapipe will do), Mesa's OpenGL (EGL + llvmpipe) for the GL
//! backend's tests, Python 3 with NumPy 2.4 and SciPy (the oracles) in a project-local virtual
//! environment, chromium and chromedriver (the browser test), the wasm32 target, rustfmt and
//! clippy, and the wasm-bindgen CLI that matches Cargo.lock.
//!
//! System packages come from apt-get when running as root; without root the missing pieces are
//! listed with the exact commands to run, and nothing is installed. Every install says what it
//! installs in one line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::{run, Res};

/// The NumPy the tests are written against (NumPy 2.5 refuses np.cross of 2-element vectors,
/// which 2.4 only deprecates and kupfer computes).
pub const NUMPY_REQ: &str = "numpy>=2.4,<2.5";
const NUMPY_PREFIX: &str = "2.4.";

/// Which optional parts of the suite the caller wants set up.
#[derive(Clone, Copy)]
pub struct Wants {
    pub browser: bool,
    pub gl: bool,
    pub lint: bool,
}

/// One missing prerequisite: what it is, and the Debian packages that provide it (empty when
/// it is not installed with apt-get).
struct Missing {
    what: &'static str,
    packages: &'static [&'static str],
}

/// Checks everything `wants` needs and installs what is missing. Returns the virtual
/// environment's `bin` directory, to be put first on PATH for the tests.
pub fn ensure(target: &Path, wants: Wants) -> Res<PathBuf> {
    let mut apt: Vec<Missing> = Vec::new();
    if !has_vulkan_driver() {
        apt.push(Missing {
            what: "a Vulkan driver (Mesa's lavapipe)",
            packages: &["mesa-vulkan-drivers", "libvulkan1"],
        });
    }
    if wants.gl && !has_mesa_gl() {
        apt.push(Missing {
            what: "Mesa's OpenGL through EGL (llvmpipe), for the GL backend's tests",
            packages: &["libegl1", "libegl-mesa0", "libgl1-mesa-dri"],
        });
    }
    if wants.browser
        && !(Path::new("/usr/bin/chromium").is_file()
            && Path::new("/usr/bin/chromedriver").is_file())
    {
        apt.push(Missing {
            what: "chromium and chromedriver, for the browser test",
            packages: &["chromium", "chromium-driver"],
        });
    }
    if !python_works("python3", "import sys") {
        apt.push(Missing {
            what: "Python 3 (the NumPy oracle)",
            packages: &["python3", "python3-venv"],
        });
    }
    install_packages(&apt)?;

    let venv = target.join("pyenv");
    let venv_python = venv.join("bin").join("python3");
    if !numpy_ready(&venv_python) {
        if !venv_python.is_file() {
            say(&format!(
                "creating a Python environment for the test oracles in {}",
                venv.display()
            ));
            if run(Command::new("python3").args(["-m", "venv"]).arg(&venv)).is_err() {
                // Debian's python3 keeps venv (ensurepip) in a package of its own.
                install_packages(&[Missing {
                    what: "Python's venv module",
                    packages: &["python3-venv"],
                }])?;
                run(Command::new("python3")
                    .args(["-m", "venv", "--clear"])
                    .arg(&venv))?;
            }
        }
        say(&format!(
            "installing {NUMPY_REQ} and scipy into {} (pip)",
            venv.display()
        ));
        run(Command::new(&venv_python)
            .args(["-m", "pip", "install", "-q", "--disable-pip-version-check"])
            .args([NUMPY_REQ, "scipy"]))?;
        if !numpy_ready(&venv_python) {
            return Err(format!(
                "{} still cannot import NumPy 2.4 and SciPy after pip install",
                venv_python.display()
            ));
        }
    }

    if wants.browser && !wasm_target_installed() {
        say("adding the wasm32-unknown-unknown target (rustup), for the browser page");
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))
            .map_err(|e| format!("{e}; run `rustup target add wasm32-unknown-unknown`"))?;
    }
    if wants.lint {
        for (component, probe) in [("rustfmt", "fmt"), ("clippy", "clippy")] {
            if !quiet_ok(Command::new(cargo()).args([probe, "--version"])) {
                say(&format!("adding the {component} component (rustup)"));
                run(Command::new("rustup").args(["component", "add", component]))?;
            }
        }
    }
    Ok(venv.join("bin"))
}

/// Installs `missing` with apt-get when root; otherwise fails with the commands to run.
fn install_packages(missing: &[Missing]) -> Res<()> {
    if missing.is_empty() {
        return Ok(());
    }
    let packages: Vec<&str> = missing
        .iter()
        .flat_map(|m| m.packages.iter().copied())
        .collect();
    let command = format!(
        "apt-get update && apt-get install -y {}",
        packages.join(" ")
    );
    if !is_root() {
        let list: Vec<String> = missing.iter().map(|m| format!("  - {}", m.what)).collect();
        return Err(format!(
            "missing:\n{}\nrun as root (or with sudo):\n  {command}\nthen run this command again",
            list.join("\n")
        ));
    }
    for m in missing {
        say(&format!(
            "installing {} (apt-get: {})",
            m.what,
            m.packages.join(" ")
        ));
    }
    let quiet = |c: &mut Command| {
        c.env("DEBIAN_FRONTEND", "noninteractive")
            .stdout(Stdio::null());
    };
    let mut update = Command::new("apt-get");
    update.args(["update", "-qq"]);
    quiet(&mut update);
    run(&mut update)?;
    let mut install = Command::new("apt-get");
    install.args(["install", "-y", "-qq"]).args(&packages);
    quiet(&mut install);
    run(&mut install)
}

fn say(line: &str) {
    eprintln!("xtask: {line}");
}

pub fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

fn quiet_ok(cmd: &mut Command) -> bool {
    cmd.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .ok()
        .is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The Vulkan loader and at least one installable client driver (or one named by the
/// environment, as the loader reads it).
fn has_vulkan_driver() -> bool {
    let named = ["VK_DRIVER_FILES", "VK_ICD_FILENAMES"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    let icd_dirs = [
        "/usr/share/vulkan/icd.d",
        "/etc/vulkan/icd.d",
        "/usr/local/share/vulkan/icd.d",
    ];
    let has_icd = icd_dirs.iter().any(|d| {
        std::fs::read_dir(d).is_ok_and(|mut entries| {
            entries.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json")))
        })
    });
    has_library("libvulkan.so.1") && (named || has_icd)
}

/// EGL and Mesa's software OpenGL driver (what wgpu's GL backend opens on Linux).
fn has_mesa_gl() -> bool {
    has_library("libEGL.so.1") && has_library("libEGL_mesa.so.0") && has_swrast_dri()
}

fn has_swrast_dri() -> bool {
    [
        "/usr/lib/x86_64-linux-gnu/dri",
        "/usr/lib/aarch64-linux-gnu/dri",
        "/usr/lib/dri",
    ]
    .iter()
    .any(|d| Path::new(d).join("swrast_dri.so").exists())
}

fn has_library(name: &str) -> bool {
    Command::new("ldconfig")
        .arg("-p")
        .output()
        .ok()
        .is_some_and(|o| String::from_utf8_lossy(&o.stdout).contains(name))
        || Command::new("/sbin/ldconfig")
            .arg("-p")
            .output()
            .ok()
            .is_some_and(|o| String::from_utf8_lossy(&o.stdout).contains(name))
}

fn python_works(python: impl AsRef<std::ffi::OsStr>, code: &str) -> bool {
    quiet_ok(Command::new(python).args(["-c", code]))
}

fn numpy_ready(python: &Path) -> bool {
    python.is_file()
        && python_works(
            python,
            &format!(
                "import numpy, scipy, sys; sys.exit(not numpy.__version__.startswith('{NUMPY_PREFIX}'))"
            ),
        )
}

fn wasm_target_installed() -> bool {
    Command::new("rustup")
        .args(["target", "list", "--installed"])
        .output()
        .ok()
        .is_some_and(|o| String::from_utf8_lossy(&o.stdout).contains("wasm32-unknown-unknown"))
}
