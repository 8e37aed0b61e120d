//! Every Rust example a reader may copy, built and run as the reader would.
//!
//! **The rule**, for every ```` ```rust ```` block of `README.md` and `docs/src/*.md`:
//!
//! 1. It is a whole program, what a reader pastes into `src/main.rs`: it has `fn main`, and no
//!    line is hidden from readers (GitHub shows rustdoc's `# ` lines).
//! 2. Its first line says what it needs in `Cargo.toml`:
//!    `// Cargo.toml: project-lanes = { features = ["journal"] }, serde_json = "1"` — a list of
//!    `name` or `name = <TOML value>`. A crate of this workspace is a path dependency (the test
//!    adds the path; the README says how a reader writes it); any other crate needs its version.
//! 3. A block whose second line starts with `// Needs ` (`// Needs a PostgreSQL server.`) is
//!    built and not run; every other block must run and exit 0, in a folder of its own holding
//!    `records/` (the bundled records, as in a clone).
//!
//! Each block becomes a package of one generated workspace (`target/examples/`) with exactly the
//! dependencies its first line names, built with `cargo build -p` one at a time (so each gets
//! only the features it asks for) into the workspace's own target folder, with its `[profile.dev]`:
//! what the workspace's build compiled with the same features is used again, not rebuilt.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

const HEADER: &str = "// Cargo.toml: ";
const NOT_RUN: &str = "// Needs ";

fn workspace() -> PathBuf {
    lane_records::records_dir().parent().unwrap().to_path_buf()
}

/// One ```rust block: where it is and its text.
struct Block {
    file: String,
    line: usize,
    code: String,
}

impl Block {
    fn at(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The ```rust blocks of `text` (fences of three or more backticks; longer fences hold shorter
/// ones as text).
fn rust_blocks(file: &str, text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        if ticks < 3 {
            continue;
        }
        let fence = &trimmed[..ticks];
        let info = trimmed[ticks..].trim().to_string();
        let body: Vec<&str> = lines
            .by_ref()
            .map(|(_, l)| l)
            .take_while(|l| l.trim_start() != fence)
            .collect();
        if info == "rust" || info.starts_with("rust,") {
            blocks.push(Block {
                file: file.to_string(),
                line: n + 1,
                code: body.join("\n") + "\n",
            });
        }
    }
    blocks
}

/// Every ```rust block of the README and the guide.
fn examples() -> Vec<Block> {
    let root = workspace();
    let mut files = vec![root.join("README.md")];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root.join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    files.extend(chapters);
    files
        .iter()
        .flat_map(|path| {
            let name = path.strip_prefix(&root).unwrap().display().to_string();
            rust_blocks(&name, &std::fs::read_to_string(path).unwrap())
        })
        .collect()
}

/// The workspace's crates by package name, with their folders.
fn workspace_crates() -> BTreeMap<String, PathBuf> {
    let root = workspace();
    let manifest: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    manifest["workspace"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|member| {
            let dir = root.join(member.as_str().unwrap());
            let package: toml::Table = std::fs::read_to_string(dir.join("Cargo.toml"))
                .unwrap()
                .parse()
                .unwrap();
            (
                package["package"]["name"].as_str().unwrap().to_string(),
                dir,
            )
        })
        .collect()
}

/// The dependencies a block's first line names: (name, TOML value with any path added).
fn dependencies(
    block: &Block,
    crates: &BTreeMap<String, PathBuf>,
) -> Result<Vec<(String, toml::Value)>, String> {
    let first = block.code.lines().next().unwrap_or_default();
    let Some(list) = first.strip_prefix(HEADER) else {
        return Err(format!(
            "its first line must say what it needs in Cargo.toml, as `{HEADER}project-lanes, \
             serde_json = \"1\"`; it is {first:?}"
        ));
    };
    // Split at the commas outside braces, brackets and strings.
    let (mut depth, mut quoted, mut start, mut entries) = (0, false, 0, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '{' | '[' if !quoted => depth += 1,
            '}' | ']' if !quoted => depth -= 1,
            ',' if !quoted && depth == 0 => {
                entries.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    entries.push(&list[start..]);
    let mut out = Vec::new();
    for entry in entries.iter().map(|e| e.trim()) {
        let (name, value) = match entry.split_once('=') {
            Some((name, value)) => {
                let parsed: toml::Table = format!("v = {value}")
                    .parse()
                    .map_err(|e| format!("{entry:?} is not `name = <TOML value>`: {e}"))?;
                (name.trim().to_string(), parsed["v"].clone())
            }
            None => (entry.to_string(), toml::Value::Table(toml::Table::new())),
        };
        let value = match (crates.get(&name), value) {
            (Some(dir), toml::Value::Table(mut table)) => {
                table.insert("path".into(), dir.display().to_string().into());
                toml::Value::Table(table)
            }
            (Some(_), other) => {
                return Err(format!(
                    "{name} = {other}: a crate of this workspace is named alone or with a table \
                     ({name} = {{ features = [...] }})"
                ));
            }
            (None, toml::Value::Table(t)) if t.is_empty() => {
                return Err(format!(
                    "{name} is not a crate of this workspace: give its version ({name} = \"1\")"
                ));
            }
            (None, value) => value,
        };
        out.push((name, value));
    }
    Ok(out)
}

/// The rule's first and second parts, for one block: every break of them.
fn rule_breaks(block: &Block, crates: &BTreeMap<String, PathBuf>) -> Vec<String> {
    let mut breaks = Vec::new();
    if !block.code.contains("fn main(") {
        breaks.push("it has no `fn main`: a reader pastes it as a whole program".to_string());
    }
    for line in block.code.lines() {
        if line == "#" || line.starts_with("# ") {
            breaks.push(format!(
                "{line:?} is hidden by rustdoc but shown on GitHub: write it for readers or leave it out"
            ));
        }
    }
    if let Err(e) = dependencies(block, crates) {
        breaks.push(e);
    }
    breaks
}

#[test]
fn the_rule_catches_a_snippet_a_reader_cannot_build() {
    let crates = workspace_crates();
    let block = |code: &str| Block {
        file: "README.md".into(),
        line: 1,
        code: code.into(),
    };
    // The journal example as it was: no main, a hidden line, serde_json never named.
    let old = block(
        "use project_lanes::ProjectLanes;\nlet lanes = ProjectLanes::new();\n\
         std::fs::write(\"x.json\", serde_json::to_vec(&1).unwrap()).unwrap();\n\
         # std::fs::remove_file(\"x.json\").unwrap();\n",
    );
    let breaks = rule_breaks(&old, &crates);
    assert_eq!(breaks.len(), 3, "{breaks:?}");
    let good = block(
        "// Cargo.toml: project-lanes = { features = [\"journal\"] }, serde_json = \"1\"\nfn main() {}\n",
    );
    assert_eq!(rule_breaks(&good, &crates), Vec::<String>::new());
    let runner = block("// Cargo.toml: project-lanes, project-lanes-runner\nfn main() {}\n");
    assert_eq!(rule_breaks(&runner, &crates), Vec::<String>::new());
    let unknown = block("// Cargo.toml: regex\nfn main() {}\n");
    assert!(rule_breaks(&unknown, &crates)[0].contains("give its version"));
}

#[test]
fn every_rust_example_in_the_readme_and_the_guide_builds_and_runs_as_a_reader_would() {
    let crates = workspace_crates();
    let blocks = examples();
    assert!(blocks.len() >= 5, "{} blocks", blocks.len());
    let mut breaks = Vec::new();
    for block in &blocks {
        for why in rule_breaks(block, &crates) {
            breaks.push(format!("{}: {why}", block.at()));
        }
    }
    assert!(
        breaks.is_empty(),
        "the Rust examples break the rule in records/tests/examples.rs:\n{}",
        breaks.join("\n")
    );

    // One package per block, in a generated workspace that keeps the main one's versions.
    let root = workspace();
    let generated = root.join("target/examples");
    let _ = std::fs::remove_dir_all(generated.join("blocks"));
    let mut members = Vec::new();
    for (n, block) in blocks.iter().enumerate() {
        let stem = block.file.trim_end_matches(".md").replace(['/', '.'], "-");
        let name = format!("{}-{n}", stem.to_lowercase());
        let dir = generated.join("blocks").join(&name);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let mut deps = toml::Table::new();
        for (dep, value) in dependencies(block, &crates).unwrap() {
            deps.insert(dep, value);
        }
        let mut package = toml::Table::new();
        package.insert("name".into(), name.clone().into());
        package.insert("version".into(), "0.0.0".into());
        package.insert("edition".into(), "2024".into());
        package.insert("publish".into(), false.into());
        let mut manifest = toml::Table::new();
        manifest.insert("package".into(), package.into());
        manifest.insert("dependencies".into(), deps.into());
        let manifest = format!("# {}\n{}", block.at(), toml::to_string(&manifest).unwrap());
        std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
        std::fs::write(dir.join("src/main.rs"), &block.code).unwrap();
        members.push((name, block));
    }
    let list: Vec<String> = members
        .iter()
        .map(|(name, _)| format!("\"blocks/{name}\""))
        .collect();
    let mut manifest = format!(
        "[workspace]\nresolver = \"3\"\nmembers = [{}]\n",
        list.join(", ")
    );
    // The main workspace's dev profile: the same profile is what lets the builds share artifacts.
    let main: toml::Table = std::fs::read_to_string(root.join("Cargo.toml"))
        .unwrap()
        .parse()
        .unwrap();
    if let Some(dev) = main.get("profile").and_then(|p| p.get("dev")) {
        let mut profile = toml::Table::new();
        profile.insert("dev".into(), dev.clone());
        let mut table = toml::Table::new();
        table.insert("profile".into(), profile.into());
        manifest.push('\n');
        manifest.push_str(&toml::to_string(&table).unwrap());
    }
    std::fs::write(generated.join("Cargo.toml"), manifest).unwrap();
    // The main workspace's versions (cargo adds the examples and drops what they do not use).
    std::fs::copy(root.join("Cargo.lock"), generated.join("Cargo.lock")).unwrap();

    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    // The workspace's target folder (`CARGO_TARGET_TMPDIR` is its `tmp/`); `cargo test` holds no
    // lock on it while its tests run.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let folder = TempDir::new().unwrap();
    std::os::unix::fs::symlink(root.join("records"), folder.path().join("records")).unwrap();
    for (name, block) in &members {
        let build = Command::new(&cargo)
            .args(["build", "--offline", "--quiet", "-p", name])
            .arg("--manifest-path")
            .arg(generated.join("Cargo.toml"))
            .arg("--target-dir")
            .arg(&target)
            .output()
            .unwrap();
        assert!(
            build.status.success(),
            "{}: the example does not build as a reader would build it \
             (target/examples/blocks/{name}):\n{}",
            block.at(),
            String::from_utf8_lossy(&build.stderr)
        );
        if block
            .code
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with(NOT_RUN))
        {
            continue;
        }
        let run = Command::new(target.join("debug").join(name))
            .current_dir(folder.path())
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}: the example fails when run:\n{}{}",
            block.at(),
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        );
    }
}

/// The folder a path dependency names in the examples' manifests: inside this workspace.
#[test]
fn the_workspace_crates_the_examples_use_are_found() {
    let crates = workspace_crates();
    for name in [
        "project-lanes",
        "project-lanes-runner",
        "project-lanes-pg",
        "project-lanes-view",
    ] {
        assert!(
            crates
                .get(name)
                .is_some_and(|dir: &PathBuf| Path::new(dir).join("Cargo.toml").is_file()),
            "{name}"
        );
    }
}
