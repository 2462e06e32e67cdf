//! `kupfer bench --profile`: after a case's timed runs, one more run with the per-dispatch
//! GPU profile on (kupfer-wgpu's `profile`), reported per case as the wall time of that run,
//! the dispatches' GPU time, the gaps between them, and a table by kernel.

use super::Timing;
use crate::common::fmt_ms;
use crate::error::CliResult;
use kupfer as kp;
use serde_json::Value;
use std::time::Instant;

/// The profiled run of a case.
#[derive(Debug, Clone)]
pub struct ProfiledRun {
    /// Wall milliseconds of the run, up to a synchronize.
    pub wall_ms: f64,
    /// Its dispatches.
    pub profile: kp::Profile,
}

/// Runs `run` once more with the profile on (when `t` asks for one) and keeps the result in
/// `t` for the case's report. Work recorded before is submitted first, so that only this
/// run's dispatches are timed; what `run` returns lives until after the synchronize.
pub fn profile_once<T>(t: &Timing, mut run: impl FnMut() -> kp::Result<T>) -> CliResult<()> {
    if !t.profile {
        return Ok(());
    }
    let ctx = t.device.context();
    t.device.synchronize()?;
    ctx.take_profile()?;
    ctx.set_profiling(true);
    let t0 = Instant::now();
    let ran = run().and_then(|r| {
        t.device.synchronize()?;
        drop(r);
        Ok(())
    });
    let wall_ms = t0.elapsed().as_secs_f64() * 1e3;
    ctx.set_profiling(false);
    let profile = ctx.take_profile()?;
    ran?;
    *t.profiled.borrow_mut() = Some(ProfiledRun { wall_ms, profile });
    Ok(())
}

/// The summary line and the table by kernel, as lines of text.
pub fn table(run: &ProfiledRun) -> Vec<String> {
    let p = &run.profile;
    let gpu = p.gpu_ms();
    let mut out = vec![format!(
        "  profile: wall {} ms; {} dispatches, GPU {} ms; span {} ms, busy {} ms, gaps {} ms",
        fmt_ms(run.wall_ms),
        p.dispatches.len(),
        fmt_ms(gpu),
        fmt_ms(p.span_ms()),
        fmt_ms(p.busy_ms()),
        fmt_ms(p.gap_ms()),
    )];
    out.push(format!(
        "    {:<40} {:>6} {:>10} {:>10} {:>7} {:>15}",
        "kernel", "count", "total ms", "mean us", "share", "workgroups"
    ));
    for k in p.by_label() {
        let groups = if k.groups.0 == k.groups.1 {
            k.groups.0.to_string()
        } else {
            format!("{}-{}", k.groups.0, k.groups.1)
        };
        out.push(format!(
            "    {:<40} {:>6} {:>10} {:>10.1} {:>6.1}% {:>15}",
            k.label,
            k.count,
            fmt_ms(k.total_ms),
            k.total_ms * 1e3 / k.count as f64,
            share(k.total_ms, gpu),
            groups
        ));
    }
    if p.untimed_submissions > 0 {
        out.push(format!(
            "    ({} submissions were not timed: too many waited to be read)",
            p.untimed_submissions
        ));
    }
    out
}

/// The same numbers as one JSON object (the value of a case's `"profile"` key; keys in
/// alphabetical order).
pub fn json(run: &ProfiledRun) -> Value {
    let p = &run.profile;
    let gpu = p.gpu_ms();
    let round = |x: f64| (x * 1e4).round() / 1e4;
    let kernels: Vec<Value> = p
        .by_label()
        .into_iter()
        .map(|k| {
            serde_json::json!({
                "kernel": &*k.label,
                "count": k.count,
                "total_ms": round(k.total_ms),
                "mean_us": round(k.total_ms * 1e3 / k.count as f64),
                "share": round(share(k.total_ms, gpu) / 100.0),
                "groups_min": k.groups.0,
                "groups_max": k.groups.1,
            })
        })
        .collect();
    serde_json::json!({
        "wall_ms": round(run.wall_ms),
        "dispatches": p.dispatches.len(),
        "gpu_ms": round(gpu),
        "span_ms": round(p.span_ms()),
        "busy_ms": round(p.busy_ms()),
        "gap_ms": round(p.gap_ms()),
        "untimed_submissions": p.untimed_submissions,
        "kernels": kernels,
    })
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
fn share(part: f64, whole: f64) -> f64 {
    if whole > 0.0 {
        100.0 * part / whole
    } else {
        0.0
    }
}
