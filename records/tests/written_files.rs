//! The files `run`, `index` and `render` write are for publishing: a new file is readable as the
//! umask allows (a web server running as another user serves it), a file already there keeps
//! its permissions, and only a regular file is ever replaced.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use lane_records::records_dir;
use tempfile::TempDir;

/// `lane-records ARGS` under `umask` (a shell sets it: the tests' own umask is not ours to change).
fn lane_records_with_umask(umask: &str, args: &[&Path]) -> std::process::Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_lane-records"))
        .args(args)
        .output()
        .unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn scenario(dir: &Path) -> PathBuf {
    let path = dir.join("busy-project.toml");
    std::fs::copy(records_dir().join("scenarios/02-busy-project.toml"), &path).unwrap();
    path
}

#[test]
fn run_index_and_render_create_files_as_the_umask_allows() {
    let dir = TempDir::new().unwrap();
    let scenario = scenario(dir.path());
    let (records, html, svg) = (
        dir.path().join("records"),
        dir.path().join("html"),
        dir.path().join("svg"),
    );
    let record = records.join("busy-project.json");
    for (umask, expected) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        for folder in [&records, &html, &svg] {
            let _ = std::fs::remove_dir_all(folder);
        }
        let s = |s: &'static str| Path::new(s);
        for args in [
            vec![s("run"), &scenario, s("--out"), &records],
            vec![s("index"), &records],
            vec![s("render"), &record, s("--html"), &html, s("--svg"), &svg],
        ] {
            let run = lane_records_with_umask(umask, &args);
            assert!(
                run.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&run.stderr)
            );
        }
        for file in [
            record.clone(),
            records.join("index.json"),
            html.join("busy-project.html"),
            svg.join("busy-project.svg"),
        ] {
            assert_eq!(
                mode(&file),
                expected,
                "umask {umask}: {} is {:o}",
                file.display(),
                mode(&file)
            );
        }
    }
}

#[test]
fn a_file_written_again_keeps_its_permissions_and_a_link_is_never_replaced() {
    let dir = TempDir::new().unwrap();
    let scenario = scenario(dir.path());
    let records = dir.path().join("records");
    let record = records.join("busy-project.json");
    let run = lane_records_with_umask(
        "022",
        &[Path::new("run"), &scenario, Path::new("--out"), &records],
    );
    assert!(run.status.success());
    // An author made the record readable by the group only; writing it again keeps that.
    std::fs::set_permissions(&record, std::fs::Permissions::from_mode(0o640)).unwrap();
    let run = lane_records_with_umask(
        "022",
        &[Path::new("run"), &scenario, Path::new("--out"), &records],
    );
    assert!(run.status.success());
    assert_eq!(mode(&record), 0o640);

    // A link where a file would go is refused, naming it, and neither it nor its target changes.
    // The other record of the run is not written either: all or nothing.
    let other = dir.path().join("stale-release.toml");
    std::fs::copy(
        records_dir().join("scenarios/05-stale-release.toml"),
        &other,
    )
    .unwrap();
    let target = dir.path().join("elsewhere.json");
    std::fs::write(&target, "not a record").unwrap();
    std::fs::remove_file(&record).unwrap();
    std::os::unix::fs::symlink(&target, &record).unwrap();
    let both = [
        Path::new("run"),
        &other,
        &scenario,
        Path::new("--out"),
        &records,
    ];
    let run = lane_records_with_umask("022", &both);
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        stderr.contains(&format!("{}: not a regular file", record.display())),
        "{stderr}"
    );
    assert!(
        std::fs::symlink_metadata(&record)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "not a record");
    assert!(!records.join("stale-release.json").exists());
    // And so is a folder.
    std::fs::remove_file(&record).unwrap();
    std::fs::create_dir(&record).unwrap();
    let run = lane_records_with_umask("022", &both);
    assert_eq!(run.status.code(), Some(1));
    assert!(record.is_dir());
    // Nothing half-written is left behind.
    let leftovers: Vec<String> = std::fs::read_dir(&records)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.'))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
}
