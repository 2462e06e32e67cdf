//! The demos' own source, shown on the page beside their results: the text between
//! `// demo:begin NAME` and `// demo:end NAME` in this crate's modules.

const MODULES: &[&str] = &[
    include_str!("mandelbrot.rs"),
    include_str!("imagelab.rs"),
    include_str!("filters.rs"),
    include_str!("playground.rs"),
    include_str!("bench.rs"),
];

/// The kupfer code of demo `name` (mandelbrot, imagelab, filters, playground, bench), or `None`.
pub fn snippet(name: &str) -> Option<String> {
    let begin = format!("// demo:begin {name}\n");
    let end = format!("// demo:end {name}");
    MODULES.iter().find_map(|m| {
        let start = m.find(&begin)? + begin.len();
        let stop = start + m[start..].find(&end)?;
        Some(dedent(&m[start..stop]))
    })
}

fn dedent(text: &str) -> String {
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end()
        .to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_demo_has_its_snippet() {
        for name in ["mandelbrot", "imagelab", "filters", "playground", "bench"] {
            let s = super::snippet(name).unwrap_or_default();
            assert!(s.contains("kp::"), "{name}: {s}");
            assert!(!s.contains("demo:"), "{name}");
        }
        assert!(super::snippet("nothing").is_none());
    }
}
