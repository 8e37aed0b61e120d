//! `cargo xtask size`: raw and gzip bytes of the viewer's wasm and JS glue, against the budget.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::dist::{Pkg, build_pkg};
use crate::util::{Result, project_root};

/// wasm + JS glue, gzipped, at most this many bytes. Issue 9 aimed at 100,000 for the design's
/// crates (serde-wasm-bindgen) and the core's check and replay; measured, check and replay alone
/// cost 21.7 KB gzipped (the whole dispatcher and lanes come with them), and the viewer was at
/// 118.0 KB before the timeline (issue 10) joined it. Merged, it is at 130,627 bytes (the
/// timeline adds about 12.9 KB, its cache included): the gate sat at the next round thousand
/// above that, so any growth is a decision. Keeping built panels (`web/src/panels.rs`, a switch
/// 0.6 ms faster) took it to 131,498: the gate moved to 132,000. Showing the selected record as
/// soon as its own file arrives (tabs first, records one by one: the first record of a
/// 200-record index on screen while the others load, instead of after all of them) took it to
/// 133,422: the gate was 134,000. The viewer then read records with the core's reader
/// (`parse_record`: serde_json, the verdict the command line gives): 133,405 → 152,980 (serde_json
/// and its deserializers, one per record type, +65.7 KB raw; serde-wasm-bindgen's record
/// deserializers −29 KB raw, it now reads `mount`'s options only). The timeline's sticky labels,
/// counted refusals and slider, labelled responses, chunked steps and the deep link's encoding
/// took it to 157,787. Reading record format 2 (a step's time and actor, where the record
/// came from, a starting state: their deserializers and checks) took it to 165,460: the gate is
/// 166,000. What remains large is the design's own: serde_json,
/// the float formatting serde's type errors link in (`Unexpected::Float`), and the core's check
/// and replay.
pub const BUDGET_GZIP_BYTES: usize = 166_000;

pub fn size() -> Result<()> {
    let pkg = build_pkg(&project_root().join("target/size/pkg"))?;
    report(&pkg)
}

/// Prints the sizes and fails if the gzipped total is over the budget.
pub fn report(pkg: &Pkg) -> Result<()> {
    println!("{:<40} {:>10} {:>10}", "file", "raw bytes", "gzip bytes");
    let (mut raw, mut gz) = (0, 0);
    for path in std::iter::once(&pkg.wasm).chain(&pkg.glue) {
        let (r, g) = sizes(path)?;
        let name = path
            .strip_prefix(path.ancestors().nth(2).unwrap_or(path))
            .unwrap_or(path);
        println!("{:<40} {r:>10} {g:>10}", name.display());
        (raw, gz) = (raw + r, gz + g);
    }
    println!(
        "{:<40} {raw:>10} {gz:>10}  (budget {BUDGET_GZIP_BYTES})",
        "total (wasm + glue)"
    );
    if gz > BUDGET_GZIP_BYTES {
        return Err(format!(
            "the viewer is {gz} bytes gzipped, over the {BUDGET_GZIP_BYTES}-byte budget"
        )
        .into());
    }
    Ok(())
}

fn sizes(path: &Path) -> Result<(usize, usize)> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(&bytes)?;
    Ok((bytes.len(), gz.finish()?.len()))
}
