//! The import graph between the crate's top-level modules, read from the sources (`use
//! crate::x` and `crate::x::` paths per file; a file's module is its first path component
//! under `src/`), and its import circles (strongly connected components of more than one
//! module). The unit test keeps the runtime layer — the array handle, the device, its
//! kernel cache, the lazy engine — free of op families: it imports none, so families plug
//! into it and never the other way round; and it allows circles only inside that layer, so
//! the op families form layers (creation below ufuncs, ufuncs below reduce, ...).

#![cfg(test)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The modules of the runtime layer — the array handle, its storage and transfers, the
/// device, its caches, the lazy engine, deferred checks, the config: they may import each
/// other, never an op family.
const RUNTIME: &[&str] = &[
    "array",
    "host",
    "copy_pool",
    "scalar",
    "device",
    "kernels",
    "fusion",
    "packed",
    "checks",
    "config",
];

/// Top-level module -> the top-level modules its files name through `crate::`.
fn import_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("under src");
            let first = rel.components().next().expect("a component");
            let module = first
                .as_os_str()
                .to_string_lossy()
                .trim_end_matches(".rs")
                .to_string();
            if module == "lib" || module == "module_graph" {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let deps = graph.entry(module.clone()).or_default();
            for line in text.lines() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                for (at, _) in code.match_indices("crate::") {
                    let preceded = code[..at]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '[');
                    if preceded {
                        continue; // `kupfer_crate::`, intra-doc links `[crate::x]`
                    }
                    let name: String = code[at + 7..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() && name != module && name.chars().all(|c| !c.is_uppercase())
                    {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    // Names that are not modules (re-exports at the crate root) are not edges.
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for deps in graph.values_mut() {
        deps.retain(|d| modules.contains(d));
    }
    graph
}

/// Modules reachable from `from` (not counting `from` itself unless on a circle).
fn reachable(graph: &BTreeMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<&str> = graph[from].iter().map(String::as_str).collect();
    while let Some(m) = stack.pop() {
        if seen.insert(m.to_string()) {
            stack.extend(graph.get(m).into_iter().flatten().map(String::as_str));
        }
    }
    seen
}

/// The import circles: sets of modules that reach each other, largest first.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    let reach: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|m| (m, reachable(graph, m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in graph.keys() {
        if done.contains(m) || !reach[m].contains(m) {
            continue;
        }
        let circle: BTreeSet<String> = reach[m]
            .iter()
            .filter(|o| reach[*o].contains(m))
            .cloned()
            .collect();
        done.extend(circle.iter().cloned());
        out.push(circle);
    }
    out.sort_by_key(|c| std::cmp::Reverse(c.len()));
    out
}

#[test]
fn the_runtime_layer_imports_no_op_family_and_no_circle_spans_families() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = import_graph(&src);
    let mut spanning = Vec::new();
    for c in circles(&graph) {
        eprintln!("import circle of {} modules: {c:?}", c.len());
        if c.iter().any(|m| !RUNTIME.contains(&m.as_str())) {
            spanning.push(c);
        }
    }
    assert!(
        spanning.is_empty(),
        "import circles span op families (each family may import the runtime layer and \
         families below it, never one that imports it back): {spanning:?}"
    );
    let mut wrong = Vec::new();
    for m in RUNTIME {
        let Some(deps) = graph.get(*m) else { continue };
        for d in deps {
            if !RUNTIME.contains(&d.as_str()) {
                wrong.push(format!("{m} imports {d}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the runtime layer imports op families: {wrong:?}"
    );
}

#[test]
fn circles_are_found() {
    let g = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            graph
                .entry(a.to_string())
                .or_default()
                .insert(b.to_string());
            graph.entry(b.to_string()).or_default();
        }
        graph
    };
    let c = circles(&g(&[
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("c", "d"),
        ("d", "e"),
    ]));
    assert_eq!(c.len(), 1);
    assert_eq!(
        c[0].iter().map(String::as_str).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert!(circles(&g(&[("a", "b"), ("b", "c")])).is_empty());
}
