//! The guide's "Publish your own records" walk-through (`docs/src/publish.md`), run as written: its `sh` blocks, in
//! order, in an empty folder standing for a fresh clone.
//!
//! `cargo` is a stand-in on `PATH`: `cargo run -p lane-records -- ARGS` runs this build's
//! `lane-records` with ARGS, and `cargo xtask dist` lays out `target/dist/` as the real task does
//! (the viewer's wasm build is `cargo xtask test`'s job, which also serves and checks the built
//! site; the layout is asserted against `xtask/src/dist.rs`). Any other cargo command fails the
//! test, so the walk-through cannot grow a step this test skips.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use lane_records::{ReplayReport, read_record, records_dir, replay_file, sha256_hex};
use project_lanes::record::{Index, StepResult};
use tempfile::TempDir;

const CHAPTER: &str = "docs/src/publish.md";

fn workspace() -> PathBuf {
    records_dir().parent().unwrap().to_path_buf()
}

/// The walk-through: the guide's chapter.
fn section() -> String {
    std::fs::read_to_string(workspace().join(CHAPTER)).expect("the guide has the walk-through")
}

/// The fenced blocks of `text` with this info string, in order.
fn blocks(text: &str, info: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim_end() == format!("```{info}") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            found.push(body.join("\n") + "\n");
        }
    }
    found
}

const CARGO_STAND_IN: &str = r#"#!/bin/sh
if [ "$1" = run ] && [ "$2" = -p ] && [ "$3" = lane-records ] && [ "$4" = -- ]; then
  shift 4
  exec "$LANE_RECORDS" "$@"
elif [ "$*" = "xtask dist" ]; then
  mkdir -p target/dist/pkg
  cp "$VIEWER_CSS" target/dist/viewer.css
  echo 'export default function init() {}' > target/dist/pkg/lane_viewer.js
  : > target/dist/pkg/lane_viewer_bg.wasm
else
  echo "the walk-through runs a cargo command this test does not know: cargo $*" >&2
  exit 99
fi
"#;

fn stand_in_cargo(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let cargo = bin.join("cargo");
    std::fs::write(&cargo, CARGO_STAND_IN).unwrap();
    std::fs::set_permissions(&cargo, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn the_publish_walkthrough_in_the_readme_works_as_written() {
    let section = section();
    let script = blocks(&section, "sh").concat();
    assert!(
        script.contains("cargo run -p lane-records -- run"),
        "{script}"
    );
    assert!(
        script.contains("cargo run -p lane-records -- index"),
        "{script}"
    );
    assert!(script.contains("cargo xtask dist"), "{script}");

    // The layout `cargo xtask dist` writes, as dist.rs documents it.
    let dist_rs = std::fs::read_to_string(workspace().join("xtask/src/dist.rs")).unwrap();
    assert!(dist_rs.contains("pkg/lane_viewer.js pkg/lane_viewer_bg.wasm"));
    assert!(dist_rs.contains("viewer.css"));

    let clone = TempDir::new().unwrap();
    let tools = TempDir::new().unwrap();
    let path = std::env::join_paths(
        std::iter::once(stand_in_cargo(tools.path()))
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let output = Command::new("sh")
        .args(["-eu", "-c", &script])
        .current_dir(clone.path())
        .env("PATH", path)
        .env("LANE_RECORDS", env!("CARGO_BIN_EXE_lane-records"))
        .env("VIEWER_CSS", workspace().join("view/viewer.css"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("wrote my-docs/records/deploy-waits.json (5 steps,"),
        "{stdout}"
    );
    assert!(
        stdout.contains("wrote my-docs/records/index.json (1 record)"),
        "{stdout}"
    );

    // The record: computed by the core, replayable.
    let docs = clone.path().join("my-docs");
    let record_path = docs.join("records/deploy-waits.json");
    assert!(matches!(
        replay_file(&record_path),
        ReplayReport::Matched(5)
    ));
    let record = read_record(&record_path).unwrap();
    assert_eq!(record.steps[1].result.code(), "PROJECT_BUSY");
    match &record.steps[3].result {
        StepResult::Lease(lease) => assert_eq!(&*lease.handle, "L2"),
        other => panic!("the fourth step claims: {other:?}"),
    }
    // The index: the record, its title, its hash.
    let index: Index =
        serde_json::from_slice(&std::fs::read(docs.join("records/index.json")).unwrap()).unwrap();
    index.check().unwrap();
    assert_eq!(index.records.len(), 1);
    assert_eq!(index.records[0].file, "deploy-waits.json");
    assert_eq!(index.records[0].title, record.title);
    assert_eq!(
        index.records[0].sha256,
        sha256_hex(&std::fs::read(&record_path).unwrap())
    );
    let mut published: Vec<String> = std::fs::read_dir(docs.join("records"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    published.sort();
    assert_eq!(published, ["deploy-waits.json", "index.json"]);

    // `my-docs/` is the site to publish, and only that.
    let mut site: Vec<String> = std::fs::read_dir(&docs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    site.sort();
    assert_eq!(site, ["index.html", "pkg", "records", "viewer.css"]);

    // The page finds the viewer, its stylesheet and the index where they were copied.
    let page = std::fs::read_to_string(docs.join("index.html")).unwrap();
    for (reference, file) in [
        ("from \"./pkg/lane_viewer.js\"", "pkg/lane_viewer.js"),
        ("href=\"viewer.css\"", "viewer.css"),
        ("src: \"records/index.json\"", "records/index.json"),
    ] {
        assert!(page.contains(reference), "{reference} in\n{page}");
        assert!(docs.join(file).is_file(), "{file} next to the page");
    }
    assert!(docs.join("pkg/lane_viewer_bg.wasm").is_file());

    // The error shown for a mistake is the one the command prints.
    let shown = blocks(&section, "text").concat();
    let scenario = clone.path().join("my-scenarios/deploy-waits.toml");
    let text = std::fs::read_to_string(&scenario).unwrap();
    let (before, after) = text.rsplit_once("lease = \"L2\"").unwrap();
    std::fs::write(&scenario, format!("{before}lease = \"L3\"{after}")).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_lane-records"))
        .args(["run", "my-scenarios/deploy-waits.toml"])
        .args(["--out", "my-docs/records"])
        .current_dir(clone.path())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&shown),
        "the guide shows\n{shown}\nthe command prints\n{stderr}"
    );
}
