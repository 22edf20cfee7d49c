//! The shape of the source tree, checked: no import cycle between the top-level modules of `src/`
//! nor between its files, no import through the crate root's re-exports from inside `src/` (a
//! module imports from the module that defines the name), no source file past 500 lines of code (unit tests not counted), no test file past 800 lines,
//! and a `//!` doc at the top of every module (the line limits and the doc hold for the CLI's
//! crate in cli/ and the Python package's in python/ too).
//!
//! Dependencies are read from the code itself (comments and strings skipped): every `crate::name`
//! path, every `crate::{…}` group, and the crate-root re-exports (`crate::Assembler` is
//! `assemble`), as `lib.rs` declares them.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const MAX_SOURCE_LINES: usize = 500;
const MAX_TEST_LINES: usize = 800;

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn source_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The CLI's crate (cli/): its sources and tests keep the same limits.
fn cli_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cli")
}

/// Every source file: the library's, the CLI's and the Python package's (python/src).
fn all_sources() -> Vec<PathBuf> {
    let mut files = rust_files(&source_dir());
    files.extend(rust_files(&cli_dir().join("src")));
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/src");
    files.extend(rust_files(&python));
    files
}

/// The top-level module a library file belongs to: `src/assemble/fold.rs` → `assemble`,
/// `src/http.rs` → `http`. `None` for the crate root.
fn top_module(path: &Path) -> Option<String> {
    let relative = path.strip_prefix(source_dir()).unwrap();
    let first = relative.components().next()?.as_os_str().to_str()?;
    match first {
        "lib.rs" => None,
        file if file.ends_with(".rs") => Some(file.trim_end_matches(".rs").to_owned()),
        folder => Some(folder.to_owned()),
    }
}

/// The code of a file with comments, string and character literals blanked out, so that a
/// path in a doc comment or a message is not taken for a dependency.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut code = String::with_capacity(text.len());
    let mut at = 0;
    while at < bytes.len() {
        let rest = &text[at..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            at += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |end| end + 2);
            at += end;
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].chars().take_while(|&c| c == '#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = rest[body..]
                .find(&close)
                .map_or(rest.len(), |end| body + end + close.len());
            code.push_str("\"\"");
            at += end;
        } else if bytes[at] == b'"' {
            let mut end = 1;
            while end < rest.len() {
                match rest.as_bytes()[end] {
                    b'\\' => end += 2,
                    b'"' => break,
                    _ => end += 1,
                }
            }
            code.push_str("\"\"");
            at += (end + 1).min(rest.len());
        } else if let Some(len) = char_literal(rest) {
            code.push_str("' '");
            at += len;
        } else {
            let ch = rest.chars().next().unwrap();
            code.push(ch);
            at += ch.len_utf8();
        }
    }
    code
}

/// The length of a character literal at the start of `rest` (`'a'`, `'\n'`, `'"'`), telling it
/// apart from a lifetime (`'a`).
fn char_literal(rest: &str) -> Option<usize> {
    let mut chars = rest.char_indices();
    chars.next().filter(|&(_, c)| c == '\'')?;
    let (_, first) = chars.next()?;
    if first == '\\' {
        let close = rest[2..].find('\'')?;
        return Some(2 + close + 1);
    }
    let (end, close) = chars.next()?;
    (close == '\'').then_some(end + 1)
}

fn identifier_at(code: &str, at: usize) -> &str {
    let rest = &code[at..];
    let end = rest
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Every name the code reaches through `crate::`: `crate::a::b` gives `a`, `crate::{A, b::C}`
/// gives `A` and `b`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        let preceded_by_word = code[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
        if preceded_by_word {
            continue;
        }
        let after = at + "crate::".len();
        if code[after..].starts_with('{') {
            let group = group_at(&code[after..]);
            for item in split_top_level(&group[1..group.len() - 1]) {
                let item = item.trim();
                let name = identifier_at(item, 0);
                if !name.is_empty() {
                    names.insert(name.to_owned());
                }
            }
        } else {
            let name = identifier_at(code, after);
            if !name.is_empty() {
                names.insert(name.to_owned());
            }
        }
    }
    names
}

/// The `{…}` group at the start of `text`, braces included.
fn group_at(text: &str) -> &str {
    let mut depth = 0;
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return &text[..=at];
                }
            }
            _ => {}
        }
    }
    text
}

fn split_top_level(text: &str) -> Vec<&str> {
    let (mut items, mut depth, mut start) = (Vec::new(), 0, 0);
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&text[start..]);
    items
}

/// The crate root's modules and re-exports: each name reachable as `crate::name`, mapped to the
/// top-level module that defines it.
fn root_names() -> BTreeMap<String, String> {
    let lib = code_only(&fs::read_to_string(source_dir().join("lib.rs")).unwrap());
    let mut names = BTreeMap::new();
    for statement in lib.split(';') {
        let words: Vec<&str> = statement.split_whitespace().collect();
        if let Some(position) = words.iter().position(|word| *word == "mod") {
            if let Some(module) = words.get(position + 1) {
                names.insert((*module).to_owned(), (*module).to_owned());
            }
        }
        let Some(start) = statement.find("use ") else {
            continue;
        };
        let path = statement[start + 4..].trim();
        let module = identifier_at(path, 0).to_owned();
        let rest = path[module.len()..].trim_start_matches("::");
        let items = if rest.starts_with('{') {
            split_top_level(&rest[1..rest.len() - 1])
        } else {
            vec![rest]
        };
        for item in items {
            let last = item.trim().rsplit("::").next().unwrap_or_default();
            let name = last.rsplit(" as ").next().unwrap_or_default().trim();
            if !name.is_empty() {
                names.insert(name.to_owned(), module.clone());
            }
        }
    }
    names
}

fn dependency_graph() -> BTreeMap<String, BTreeSet<String>> {
    let roots = root_names();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&source_dir()) {
        let Some(module) = top_module(&file) else {
            continue;
        };
        let code = code_only(&fs::read_to_string(&file).unwrap());
        let uses = graph.entry(module.clone()).or_default();
        for name in crate_paths(&code) {
            if let Some(target) = roots.get(&name) {
                if *target != module {
                    uses.insert(target.clone());
                }
            }
        }
    }
    graph
}

/// A cycle in the graph, as the path that closes it, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|seen| seen == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_top_level_modules_form_no_cycle() {
    let graph = dependency_graph();
    assert!(graph.contains_key("assemble") && graph.contains_key("dialect"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "import cycle between top-level modules: {}\nthe graph: {graph:#?}",
            cycle.join(" → ")
        );
    }
}

/// A module path (`["assemble", "fold"]`) for every library file: `src/a/mod.rs` and `src/a.rs`
/// are `a`, `src/a/b.rs` is `a::b`, `src/lib.rs` the root.
fn module_files() -> BTreeMap<Vec<String>, PathBuf> {
    let mut modules = BTreeMap::new();
    for file in rust_files(&source_dir()) {
        let relative = file.strip_prefix(source_dir()).unwrap();
        let mut path: Vec<String> = relative
            .components()
            .map(|part| part.as_os_str().to_str().unwrap().to_owned())
            .collect();
        let last = path.pop().unwrap();
        if last != "mod.rs" && last != "lib.rs" {
            path.push(last.trim_end_matches(".rs").to_owned());
        }
        modules.insert(path, file);
    }
    modules
}

/// The path written at the start of `text` (`super::a::B`), as its segments, and where it ends.
fn path_at(text: &str) -> (Vec<String>, usize) {
    let mut segments = Vec::new();
    let mut at = 0;
    loop {
        let name = identifier_at(text, at);
        if name.is_empty() {
            break;
        }
        segments.push(name.to_owned());
        at += name.len();
        if text[at..].starts_with("::") && !identifier_at(text, at + 2).is_empty() {
            at += 2;
        } else {
            break;
        }
    }
    (segments, at)
}

/// The paths a `use` tree names, each with the name it binds: `a::{b, c::D as E}` gives
/// `a::b` (`b`) and `a::c::D` (`E`). Globs bind nothing.
fn use_tree(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim();
    let (segments, end) = path_at(tree);
    let mut path = prefix.to_vec();
    path.extend(segments);
    let rest = tree[end..].trim_start_matches("::").trim();
    if rest.starts_with('{') {
        for item in split_top_level(&group_at(rest)[1..group_at(rest).len() - 1]) {
            if !item.trim().is_empty() {
                use_tree(&path, item, out);
            }
        }
    } else if let Some(alias) = rest.strip_prefix("as ") {
        out.push((path, alias.trim().to_owned()));
    } else if rest != "*" && !path.is_empty() {
        let name = path.last().unwrap().clone();
        out.push((path, name));
    }
}

/// `path` as written in `module` made absolute (`crate::`, `super::`, `self::`, a child module),
/// or `None` for an outside crate.
fn absolute(
    module: &[String],
    mut path: Vec<String>,
    modules: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let mut base = match path.first()?.as_str() {
        "crate" => {
            path.remove(0);
            Vec::new()
        }
        "self" => {
            path.remove(0);
            module.to_vec()
        }
        "super" => {
            let mut base = module.to_vec();
            while path.first().is_some_and(|first| first == "super") {
                path.remove(0);
                base.pop();
            }
            base
        }
        child => {
            let mut base = module.to_vec();
            base.push(child.to_owned());
            if !modules.contains_key(&base) {
                return None;
            }
            module.to_vec()
        }
    };
    base.extend(path);
    Some(base)
}

/// A file's code before its unit tests.
fn code_before_tests(file: &Path) -> String {
    let text = fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    code_only(&lines[..code_lines(&text)].join("\n"))
}

/// Every `use` statement of a file, made absolute: (the path, the name it binds).
fn file_imports(
    module: &[String],
    code: &str,
    modules: &BTreeMap<Vec<String>, PathBuf>,
) -> Vec<(Vec<String>, String)> {
    let mut imports = Vec::new();
    for (at, _) in code.match_indices("use ") {
        let before = code[..at].trim_end();
        let before = before.strip_suffix("pub").unwrap_or(before);
        let before = before.strip_suffix("pub(crate)").unwrap_or(before);
        let starts_statement = before
            .trim_end()
            .chars()
            .next_back()
            .is_none_or(|c| matches!(c, ';' | '{' | '}' | ']'));
        if !starts_statement {
            continue;
        }
        let Some(end) = code[at..].find(';') else {
            continue;
        };
        let mut tree = Vec::new();
        use_tree(&[], &code[at + 4..at + end], &mut tree);
        for (path, name) in tree {
            if let Some(path) = absolute(module, path, modules) {
                imports.push((path, name));
            }
        }
    }
    imports
}

/// The file that defines what `path` names, following re-exports (`use`s in the module that
/// the path reaches).
fn defining_file(
    path: &[String],
    modules: &BTreeMap<Vec<String>, PathBuf>,
    imports: &BTreeMap<PathBuf, Vec<(Vec<String>, String)>>,
    depth: usize,
) -> PathBuf {
    let module_len = (0..=path.len())
        .rev()
        .find(|&len| modules.contains_key(&path[..len]))
        .unwrap();
    let file = &modules[&path[..module_len]];
    if module_len == path.len() || depth > 16 {
        return file.clone();
    }
    let name = &path[module_len];
    let binding = imports[file].iter().find(|(_, bound)| bound == name);
    match binding {
        Some((target, _)) => {
            let mut next = target.clone();
            next.extend_from_slice(&path[module_len + 1..]);
            defining_file(&next, modules, imports, depth + 1)
        }
        None => file.clone(),
    }
}

/// Which file uses which, from every `use` and every `crate::` / `super::` / `self::` path
/// (unit tests not counted). A module's use of its own submodules is containment, not an edge.
fn file_graph() -> BTreeMap<String, BTreeSet<String>> {
    let modules = module_files();
    let codes: BTreeMap<PathBuf, String> = modules
        .values()
        .map(|file| (file.clone(), code_before_tests(file)))
        .collect();
    let imports: BTreeMap<PathBuf, Vec<(Vec<String>, String)>> = modules
        .iter()
        .map(|(module, file)| (file.clone(), file_imports(module, &codes[file], &modules)))
        .collect();
    let name = |file: &Path| {
        let relative = file.strip_prefix(source_dir()).unwrap();
        relative.display().to_string()
    };
    let mut graph = BTreeMap::new();
    for (module, file) in &modules {
        let code = &codes[file];
        let mut paths: Vec<Vec<String>> =
            imports[file].iter().map(|(path, _)| path.clone()).collect();
        for start in ["crate::", "super::", "self::"] {
            for (at, _) in code.match_indices(start) {
                let before = code[..at].chars().next_back();
                if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
                    continue;
                }
                let (path, _) = path_at(&code[at..]);
                paths.extend(absolute(module, path, &modules));
            }
        }
        let uses: &mut BTreeSet<String> = graph.entry(name(file)).or_default();
        for path in paths {
            let target = defining_file(&path, &modules, &imports, 0);
            let target_module = modules.iter().find(|(_, f)| **f == target).unwrap().0;
            let contained = target_module.starts_with(module);
            if !contained {
                uses.insert(name(&target));
            }
        }
    }
    graph
}

#[test]
fn the_files_form_no_cycle() {
    let graph = file_graph();
    assert!(
        graph["assemble/budget.rs"].contains("delta/held.rs"),
        "{graph:#?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between files: {}", cycle.join(" → "));
    }
}

#[test]
fn no_module_imports_through_the_crate_root() {
    let roots = root_names();
    let mut through_root = Vec::new();
    for file in rust_files(&source_dir()) {
        if top_module(&file).is_none() {
            continue;
        }
        let code = code_only(&fs::read_to_string(&file).unwrap());
        for name in crate_paths(&code) {
            if roots.get(&name).is_some_and(|module| *module != name) {
                through_root.push(format!("{}: crate::{name}", file.display()));
            }
        }
    }
    assert!(
        through_root.is_empty(),
        "import from the defining module, not the crate root's re-export: {through_root:#?}"
    );
}

#[test]
fn the_pipeline_flows_one_way() {
    let graph = dependency_graph();
    let uses = |module: &str| graph.get(module).cloned().unwrap_or_default();
    assert!(
        uses("framing").is_empty(),
        "framing uses {:?}",
        uses("framing")
    );
    for lower in ["delta", "dialect", "framing", "message"] {
        assert!(
            !uses(lower).contains("assemble"),
            "{lower} must not use the assembler: {:?}",
            uses(lower)
        );
    }
    assert!(!uses("message").contains("wire"), "{:?}", uses("message"));
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_reads_paths_from_code_only() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec![]),
    ]
    .into_iter()
    .map(|(node, next)| (node.into(), next.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let code = code_only(
        "use crate::{x::Y, Z};\n// crate::comment\nlet s = \"crate::string\"; let c = '\"'; crate::w::f();",
    );
    let names: Vec<String> = crate_paths(&code).into_iter().collect();
    assert_eq!(names, ["Z", "w", "x"]);
}

/// Lines of a file before its unit tests: the file's last item when it is a top-level
/// `#[cfg(test)] mod …` (an indented `#[cfg(test)]`, or code after the test module, counts
/// the whole file, so that nothing hides from the cap behind one).
fn code_lines(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.windows(2).position(|pair| {
        pair[0] == "#[cfg(test)]" && pair[1].split_whitespace().any(|word| word == "mod")
    });
    let Some(start) = start else {
        return lines.len();
    };
    let close = lines[start..].iter().position(|line| *line == "}");
    match close {
        Some(close)
            if lines[start + close + 1..]
                .iter()
                .all(|line| line.trim().is_empty()) =>
        {
            start
        }
        _ => lines.len(),
    }
}

#[test]
fn only_a_last_top_level_test_module_is_left_out_of_the_count() {
    let code = "fn a() {}\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    assert_eq!(code_lines(code), 1);
    let indented = "impl A {\n    #[cfg(test)]\n    fn t() {}\n    fn b() {}\n}\n";
    assert_eq!(code_lines(indented), 5);
    let code_after = "#[cfg(test)]\nmod tests {\n}\nfn hidden() {}\n";
    assert_eq!(code_lines(code_after), 4);
}

#[test]
fn a_module_with_files_of_its_own_is_a_folder_with_a_mod_rs() {
    let pairs: Vec<String> = rust_files(&source_dir())
        .into_iter()
        .filter(|file| file.with_extension("").is_dir())
        .map(|file| file.display().to_string())
        .collect();
    assert!(
        pairs.is_empty(),
        "name.rs beside name/ (move it to name/mod.rs): {pairs:?}"
    );
}

#[test]
fn no_source_file_holds_two_concepts() {
    let long: Vec<String> = all_sources()
        .into_iter()
        .filter_map(|file| {
            let lines = code_lines(&fs::read_to_string(&file).unwrap());
            (lines > MAX_SOURCE_LINES).then(|| format!("{} ({lines} lines)", file.display()))
        })
        .collect();
    assert!(long.is_empty(), "past {MAX_SOURCE_LINES} lines: {long:#?}");
}

#[test]
fn no_test_file_is_past_800_lines() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = rust_files(&tests);
    files.extend(rust_files(&cli_dir().join("tests")));
    let long: Vec<String> = files
        .into_iter()
        .filter_map(|file| {
            let lines = fs::read_to_string(&file).unwrap().lines().count();
            (lines > MAX_TEST_LINES).then(|| format!("{} ({lines} lines)", file.display()))
        })
        .collect();
    assert!(long.is_empty(), "past {MAX_TEST_LINES} lines: {long:#?}");
}

#[test]
fn every_module_says_what_it_holds() {
    let undocumented: Vec<String> = all_sources()
        .into_iter()
        .filter(|file| {
            let text = fs::read_to_string(file).unwrap();
            !text.trim_start().starts_with("//!")
        })
        .map(|file| file.display().to_string())
        .collect();
    assert!(undocumented.is_empty(), "no `//!` doc: {undocumented:#?}");
}
