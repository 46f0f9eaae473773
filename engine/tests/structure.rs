//! The engine's layout holds its rules: every `impl World` lives in `world/`, no source
//! file is longer than 800 lines of code (unit tests aside), no two top-level modules
//! import each other (directly or round a longer cycle), and `World::step` stays a table
//! of contents under 40 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(SRC)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The names of modules declared test-only (`#[cfg(test)]` then `mod name;`), such as
/// `tests` and `test_util`: their files hold no engine code.
fn test_modules() -> BTreeSet<String> {
    let mut names = BTreeSet::from(["tests".to_string()]);
    for path in sources(Path::new(SRC)) {
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim).collect();
        for pair in lines.windows(2) {
            if pair[0] == "#[cfg(test)]" {
                let decl = pair[1].trim_start_matches("pub(crate) ");
                if let Some(name) = decl.strip_prefix("mod ").and_then(|d| d.strip_suffix(';')) {
                    names.insert(name.to_string());
                }
            }
        }
    }
    names
}

/// Whether the file is a test-only module's.
fn is_test_file(path: &Path) -> bool {
    let stem = path.file_stem().unwrap().to_string_lossy().to_string();
    test_modules().contains(&stem)
}

/// A file's code: the text before its unit-test module (`#[cfg(test)]` followed by
/// `mod tests`), without comment lines; nothing for a test-only module's file.
fn code(path: &Path) -> String {
    if is_test_file(path) {
        return String::new();
    }
    let text = fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|l| l.trim_start().starts_with("mod tests"))
        })
        .unwrap_or(lines.len());
    lines[..end]
        .iter()
        .filter(|l| !l.trim_start().starts_with("//"))
        .copied()
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level module a file belongs to (`None` for lib.rs).
fn top_module(rel: &str) -> Option<String> {
    let first = rel.split('/').next().unwrap();
    (first != "lib.rs").then(|| first.trim_end_matches(".rs").to_string())
}

#[test]
fn impl_world_only_in_world() {
    let mut outside = Vec::new();
    for path in sources(Path::new(SRC)) {
        let rel = relative(&path);
        if !rel.starts_with("world/") && code(&path).contains("impl World {") {
            outside.push(rel);
        }
    }
    assert!(
        outside.is_empty(),
        "`impl World` outside engine/src/world/: {outside:?}"
    );
}

#[test]
fn no_file_over_800_lines_of_code() {
    let mut long = Vec::new();
    for path in sources(Path::new(SRC)) {
        let rel = relative(&path);
        let text = fs::read_to_string(&path).unwrap();
        // Count every line up to the unit tests, comments included.
        let lines = if is_test_file(&path) {
            0
        } else {
            let all: Vec<&str> = text.lines().collect();
            (0..all.len())
                .find(|&i| {
                    all[i].trim() == "#[cfg(test)]"
                        && all
                            .get(i + 1)
                            .is_some_and(|l| l.trim_start().starts_with("mod tests"))
                })
                .unwrap_or(all.len())
        };
        if lines > 800 {
            long.push(format!("{rel}: {lines}"));
        }
    }
    assert!(
        long.is_empty(),
        "source files over 800 lines before their tests: {long:?}"
    );
}

/// The top-level modules each top-level module names through `crate::` paths in its
/// code (root re-exports such as `crate::World` count as their module).
fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let lib = fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap();
    // `pub use module::{A, B};` at the root: which module a root name comes from.
    let mut root_names = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(rest) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once("::") else {
            continue;
        };
        let names = names.trim().trim_start_matches('{').trim_end_matches('}');
        for name in names.split(',') {
            let name = name.trim().rsplit("::").next().unwrap().to_string();
            root_names.insert(name, module.to_string());
        }
    }
    let modules: BTreeSet<String> = sources(Path::new(SRC))
        .iter()
        .filter_map(|p| top_module(&relative(p)))
        .collect();
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in sources(Path::new(SRC)) {
        let Some(me) = top_module(&relative(&path)) else {
            continue;
        };
        let code = code(&path);
        let mut targets = Vec::new();
        for (i, _) in code.match_indices("crate::") {
            let rest = &code[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                targets.extend(group.split(',').map(|s| ident(s.trim())));
            } else {
                targets.push(ident(rest));
            }
        }
        for t in targets {
            let module = if modules.contains(&t) {
                t
            } else if let Some(m) = root_names.get(&t) {
                m.clone()
            } else {
                continue;
            };
            if module != me {
                graph.entry(me.clone()).or_default().insert(module);
            }
        }
    }
    graph
}

#[test]
fn no_import_cycle_between_modules() {
    let graph = module_graph();
    assert!(
        graph.get("world").is_some_and(|d| d.contains("solver")),
        "the scan must see world's imports: {graph:?}"
    );
    // Depth-first search for a back edge; report the cycle it closes.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    for node in graph.keys() {
        if let Some(cycle) = visit(node, &graph, &mut Vec::new(), &mut done) {
            panic!(
                "import cycle between top-level modules: {}",
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn step_is_a_table_of_contents() {
    let text = fs::read_to_string(Path::new(SRC).join("world/step.rs")).unwrap();
    let start = text
        .find("pub fn step(&mut self, dt: f32)")
        .expect("World::step in world/step.rs");
    let body = &text[start..];
    let end = body.find("\n    }\n").expect("the end of World::step");
    let lines = body[..end].lines().count() + 1;
    assert!(lines < 40, "World::step is {lines} lines long");
}
