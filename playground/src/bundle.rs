//! The `.zip` the playground offers: the scenario, the record `lane-records run` writes for it,
//! and `index.json` listing that record, as `lane-records index` writes one. A viewer (or
//! `mdbook-lanes`) reads the unpacked folder as it is.

use std::io::{Cursor, Write};

use lane_records::{OutputFile, index_of};
use project_lanes::record::Record;
use zip::CompressionMethod;
use zip::write::{SimpleFileOptions, ZipWriter};

/// The files of the bundle, in order: `<scenario>`, `<id>.json`, `index.json`.
pub fn files(
    scenario_name: &str,
    scenario: &str,
    record: &Record,
    file: &OutputFile,
) -> Vec<OutputFile> {
    let mut files = vec![
        OutputFile {
            name: scenario_name.to_string(),
            bytes: scenario.as_bytes().to_vec(),
        },
        file.clone(),
    ];
    // The record was checked as it was made, so its index is good.
    if let Ok(index) = index_of(&[(record, file)]) {
        files.push(index);
    }
    files
}

/// The files as one zip (deflated, dated 1980-01-01: the same files give the same bytes).
pub fn zip(files: &[OutputFile]) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for file in files {
        // Writing into memory cannot fail.
        let _ = zip.start_file(file.name.as_str(), options);
        let _ = zip.write_all(&file.bytes);
    }
    zip.finish().map(Cursor::into_inner).unwrap_or_default()
}
