//! The module graph of `src/` has no cycle. Every `crate::`, `super::` and `self::` path in the
//! code (comments and strings left out), and every `use` of a child module, is an edge from the
//! file's module to the module it names (through `pub use` re-exports to where the item lives).
//! Modules are compared as the children of their nearest common parent: `a::x` naming `b::y`
//! makes `a → b` among the crate's top modules. At every level those edges must form no cycle. A
//! module naming its own ancestor (the shared definitions a parent keeps for its children) or
//! its own descendant is not an edge. No GPU needed.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// A module by its path from the crate root (`[]` is the root).
type ModulePath = Vec<String>;

/// One source file: its module and its code with comments and literals blanked out.
struct SourceFile {
    module: ModulePath,
    name: String,
    code: String,
}

fn source_files() -> Vec<SourceFile> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    collect_rust_files(&root, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let relative = path.strip_prefix(&root).expect("under src").to_path_buf();
            let text = fs::read_to_string(&path).expect("readable source");
            SourceFile {
                module: module_of(&relative),
                name: format!("src/{}", relative.display()),
                code: blank_comments_and_literals(&text),
            }
        })
        .collect()
}

fn collect_rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("readable directory") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            collect_rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `lib.rs` → `[]`, `a.rs` → `[a]`, `a/mod.rs` → `[a]`, `a/b.rs` → `[a, b]`.
fn module_of(relative: &Path) -> ModulePath {
    let mut parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let file = parts.pop().expect("a file name");
    let stem = file.trim_end_matches(".rs");
    if stem != "lib" && stem != "mod" {
        parts.push(stem.to_string());
    }
    parts
}

/// The code with comments, string and character literals replaced by spaces (lines kept).
fn blank_comments_and_literals(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            loop {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if let Some(hashes) = raw_string_start(rest) {
            let closing: Vec<char> = std::iter::once('"').chain(std::iter::repeat_n('#', hashes)).collect();
            let start = i + hashes + 2 + usize::from(rest[0] == 'b');
            out.extend(chars[i..start].iter().map(|&c| blank(c)));
            i = start;
            while !chars[i..].starts_with(&closing) {
                out.push(blank(chars[i]));
                i += 1;
            }
            out.extend(closing.iter().map(|_| ' '));
            i += closing.len();
        } else if chars[i] == '"' {
            out.push(' ');
            i += 1;
            while chars[i] != '"' {
                let step = if chars[i] == '\\' { 2 } else { 1 };
                out.extend(chars[i..i + step].iter().map(|&c| blank(c)));
                i += step;
            }
            out.push(' ');
            i += 1;
        } else if chars[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime, which stays.
            let length = if rest.get(1) == Some(&'\\') {
                rest.iter().skip(2).position(|&c| c == '\'').map(|p| p + 3)
            } else {
                (rest.get(2) == Some(&'\'')).then_some(3)
            };
            let length = length.unwrap_or(1);
            let kept = length == 1;
            out.extend(rest[..length].iter().map(|&c| if kept { c } else { ' ' }));
            i += length;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

/// `r"`, `r#"`, `br"`…: the number of `#`.
fn raw_string_start(rest: &[char]) -> Option<usize> {
    let after_b = if rest.first() == Some(&'b') { &rest[1..] } else { rest };
    if after_b.first() != Some(&'r') {
        return None;
    }
    let hashes = after_b[1..].iter().take_while(|&&c| c == '#').count();
    (after_b.get(1 + hashes) == Some(&'"')).then_some(hashes)
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSeparator,
    Open,
    Close,
    Comma,
    Other(char),
}

/// Tokens with the line each starts on.
fn tokens(code: &str) -> Vec<(Token, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let mut tokens = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push((Token::Ident(chars[start..i].iter().collect()), line));
        } else if chars[i..].starts_with(&[':', ':']) {
            tokens.push((Token::PathSeparator, line));
            i += 2;
        } else {
            let token = match c {
                '{' => Token::Open,
                '}' => Token::Close,
                ',' => Token::Comma,
                other => Token::Other(other),
            };
            tokens.push((token, line));
            i += 1;
        }
    }
    tokens
}

/// A path found in a file: its segments as written, and its line.
struct WrittenPath {
    segments: Vec<String>,
    line: usize,
    in_use: bool,
}

/// Every path of two or more segments, `use` groups (`a::{b, c::d}`) expanded.
fn written_paths(code: &str) -> Vec<WrittenPath> {
    let tokens = tokens(code);
    let mut paths = Vec::new();
    let mut i = 0;
    let mut in_use = false;
    while i < tokens.len() {
        match &tokens[i].0 {
            Token::Ident(word) if word == "use" => {
                in_use = true;
                i += 1;
            }
            Token::Other(';') => {
                in_use = false;
                i += 1;
            }
            Token::Ident(_) if tokens.get(i + 1).is_some_and(|t| t.0 == Token::PathSeparator) => {
                let preceded_by_separator = i > 0 && tokens[i - 1].0 == Token::PathSeparator;
                if preceded_by_separator {
                    i += 1;
                    continue;
                }
                let line = tokens[i].1;
                let mut found = Vec::new();
                i = parse_path(&tokens, i, Vec::new(), &mut found);
                paths.extend(found.into_iter().map(|segments| WrittenPath { segments, line, in_use }));
            }
            _ => i += 1,
        }
    }
    paths
}

/// Parses the path starting at token `i` after `prefix`, pushing each complete path.
fn parse_path(tokens: &[(Token, usize)], mut i: usize, mut prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    loop {
        match tokens.get(i).map(|t| &t.0) {
            Some(Token::Ident(word)) => {
                prefix.push(word.clone());
                i += 1;
                if tokens.get(i).is_some_and(|t| t.0 == Token::PathSeparator) {
                    i += 1;
                    continue;
                }
                out.push(prefix);
                return i;
            }
            Some(Token::Open) => {
                i += 1;
                loop {
                    match tokens.get(i).map(|t| &t.0) {
                        Some(Token::Close) => return i + 1,
                        Some(Token::Comma) => i += 1,
                        Some(Token::Ident(_)) => i = parse_path(tokens, i, prefix.clone(), out),
                        Some(_) => i += 1,
                        None => return i,
                    }
                }
            }
            _ => {
                out.push(prefix);
                return i;
            }
        }
    }
}

/// The crate's modules and their re-exports.
struct Crate {
    modules: BTreeSet<ModulePath>,
    /// `(module, name)` → the module the re-exported item comes from.
    reexports: BTreeMap<(ModulePath, String), ModulePath>,
}

impl Crate {
    fn new(files: &[SourceFile]) -> Self {
        let modules = files.iter().map(|f| f.module.clone()).collect();
        let mut krate = Self { modules, reexports: BTreeMap::new() };
        for file in files {
            for statement in file.code.split(';') {
                let trimmed = statement.trim_start();
                let is_reexport =
                    ["pub use ", "pub(crate) use ", "pub(super) use "].iter().any(|p| trimmed.contains(p));
                if !is_reexport {
                    continue;
                }
                let use_part = &trimmed[trimmed.find("use ").expect("checked above")..];
                for path in written_paths(use_part) {
                    let name = path.segments.last().expect("a path has segments").clone();
                    if let Some(target) = krate.resolve(&file.module, &path.segments) {
                        krate.reexports.insert((file.module.clone(), name), target);
                    }
                }
            }
        }
        krate
    }

    /// The module a path written in `from` names, or `None` for paths outside the crate.
    fn resolve(&self, from: &ModulePath, segments: &[String]) -> Option<ModulePath> {
        let mut absolute: ModulePath = match segments[0].as_str() {
            "crate" => Vec::new(),
            "self" => from.clone(),
            "super" => from[..from.len().checked_sub(1)?].to_vec(),
            first => {
                let mut child = from.clone();
                child.push(first.to_string());
                if !self.modules.contains(&child) {
                    return None;
                }
                from.clone()
            }
        };
        let mut rest = &segments[usize::from(matches!(segments[0].as_str(), "crate" | "self" | "super"))..];
        while rest.first().is_some_and(|s| s == "super") {
            absolute.pop();
            rest = &rest[1..];
        }
        for segment in rest {
            let mut next = absolute.clone();
            next.push(segment.clone());
            if self.modules.contains(&next) {
                absolute = next;
            } else if let Some(origin) = self.reexports.get(&(absolute.clone(), segment.clone())) {
                return Some(origin.clone());
            } else {
                break;
            }
        }
        Some(absolute)
    }
}

/// An edge between two children of one parent, with where it was written.
#[derive(Debug, Clone)]
struct Edge {
    parent: ModulePath,
    from: String,
    to: String,
    witness: String,
}

fn sibling_edges() -> Vec<Edge> {
    let files = source_files();
    let krate = Crate::new(&files);
    let mut edges = Vec::new();
    for file in &files {
        for path in written_paths(&file.code) {
            let relative_use = !matches!(path.segments[0].as_str(), "crate" | "self" | "super");
            if relative_use && !path.in_use {
                continue;
            }
            let Some(target) = krate.resolve(&file.module, &path.segments) else { continue };
            let common = file.module.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == file.module.len() || common == target.len() {
                continue; // an ancestor, a descendant or itself
            }
            edges.push(Edge {
                parent: file.module[..common].to_vec(),
                from: file.module[common].clone(),
                to: target[common].clone(),
                witness: format!("{}:{} `{}`", file.name, path.line, path.segments.join("::")),
            });
        }
    }
    edges
}

/// A cycle among `edges` (one parent's children), as the edges that close it.
fn find_cycle(edges: &[&Edge]) -> Option<Vec<Edge>> {
    let mut graph: BTreeMap<&str, Vec<&Edge>> = BTreeMap::new();
    for edge in edges {
        graph.entry(edge.from.as_str()).or_default().push(edge);
    }
    fn visit<'a>(
        node: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a Edge>>,
        state: &mut BTreeMap<&'a str, bool>,
        stack: &mut Vec<&'a Edge>,
    ) -> Option<Vec<Edge>> {
        state.insert(node, false);
        for &edge in graph.get(node).into_iter().flatten() {
            match state.get(edge.to.as_str()) {
                Some(false) => {
                    let start = stack.iter().position(|e| e.from == edge.to).unwrap_or(stack.len());
                    return Some(stack[start..].iter().chain([&edge]).map(|&e| e.clone()).collect());
                }
                Some(true) => {}
                None => {
                    stack.push(edge);
                    if let Some(cycle) = visit(edge.to.as_str(), graph, state, stack) {
                        return Some(cycle);
                    }
                    stack.pop();
                }
            }
        }
        state.insert(node, true);
        None
    }
    let mut state = BTreeMap::new();
    for &node in graph.keys() {
        if !state.contains_key(node) {
            if let Some(cycle) = visit(node, &graph, &mut state, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

#[test]
fn modules_form_no_cycle() {
    let edges = sibling_edges();
    let parents: BTreeSet<&ModulePath> = edges.iter().map(|e| &e.parent).collect();
    let mut cycles = Vec::new();
    for parent in parents {
        let among: Vec<&Edge> = edges.iter().filter(|e| &e.parent == parent).collect();
        if let Some(cycle) = find_cycle(&among) {
            let scope = if parent.is_empty() { "crate".to_string() } else { parent.join("::") };
            let steps: Vec<String> =
                cycle.iter().map(|e| format!("  {} → {} (at {})", e.from, e.to, e.witness)).collect();
            cycles.push(format!("cycle among the children of {scope}:\n{}", steps.join("\n")));
        }
    }
    assert!(cycles.is_empty(), "{}", cycles.join("\n"));
}

#[test]
fn the_cycle_check_sees_paths_through_groups_supers_and_reexports() {
    let code = "use crate::a::{b::C, d};\nfn f() { super::super::e::F; }\npub use g::H;";
    let paths: Vec<Vec<String>> = written_paths(code).into_iter().map(|p| p.segments).collect();
    let expected: Vec<Vec<&str>> =
        vec![vec!["crate", "a", "b", "C"], vec!["crate", "a", "d"], vec!["super", "super", "e", "F"], vec!["g", "H"]];
    assert_eq!(paths, expected);
    let blanked = blank_comments_and_literals("let s = \"crate::x\"; // crate::y\nlet c = '\"'; 'a: loop {}");
    assert!(!blanked.contains("crate"), "{blanked}");
    assert!(blanked.contains("'a: loop"), "{blanked}");
}
