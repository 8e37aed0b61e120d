//! The prose around the code: facts said once, where they are true.

use std::path::PathBuf;

fn workspace() -> PathBuf {
    lane_records::records_dir().parent().unwrap().to_path_buf()
}

/// README.md, ARCHITECTURE.md and the guide's chapters, with their names.
fn documents() -> Vec<(String, String)> {
    let root = workspace();
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root.join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    chapters.sort();
    files.extend(chapters);
    files
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (
                path.strip_prefix(&root).unwrap().display().to_string(),
                text,
            )
        })
        .collect()
}

#[test]
fn the_browser_tests_optimisation_level_is_stated_only_in_cargo_toml() {
    let manifest = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let profile = manifest
        .split("\n[")
        .find(|table| table.starts_with("profile.browser-test]"))
        .expect("Cargo.toml has [profile.browser-test]");
    assert!(profile.contains("\nopt-level = "), "{profile}");
    for (name, text) in documents() {
        for paragraph in text.split("\n\n") {
            if paragraph.contains("browser-test") {
                assert!(
                    !paragraph.contains("opt-level"),
                    "{name} says which opt-level the browser tests use; Cargo.toml's \
                     [profile.browser-test] says it, and why, once:\n{paragraph}"
                );
            }
        }
    }
}

#[test]
fn the_guides_example_of_a_build_error_names_the_line_it_breaks() {
    let chapter = std::fs::read_to_string(workspace().join("docs/src/scenarios.md")).unwrap();
    let line = chapter
        .lines()
        .position(|l| l == "run = \"nightly-2\"")
        .expect("the Japanese block's second claim")
        + 1;
    let shown = format!("mdbook-lanes: src/scenarios.md:{line}:7: in this ```lanes block");
    assert!(
        chapter.contains(&shown) && chapter.contains(&format!("\n{line} | run = nightly-2\n")),
        "the error shown in docs/src/scenarios.md should name line {line}"
    );
}
