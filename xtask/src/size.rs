//! `cargo xtask size`: raw and gzip bytes of the viewer's wasm and JS glue, against the budget,
//! and of the playground page's own module, which no budget holds.

use std::io::Write;
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::dist::{Pkg, build_pkg, build_playground};
use crate::util::{Result, project_root};

/// wasm + JS glue, gzipped, at most this many bytes: the last measurement plus 1% (269,664 with
/// the allocator talc and the body's reading yielding to the browser), so that any growth is a
/// decision. The measurements, what each
/// change cost and what the module is spent on are in `docs/viewer-size.md`.
pub const BUDGET_GZIP_BYTES: usize = 272_361;

pub fn size() -> Result<()> {
    let pkg = build_pkg(&project_root().join("target/size/pkg"))?;
    report(&pkg)?;
    report_playground(&build_playground(
        &project_root().join("target/size/playground"),
    )?)
}

/// Prints the sizes and fails if the gzipped total is over the budget.
pub fn report(pkg: &Pkg) -> Result<()> {
    let gz = print(pkg, &format!("(budget {BUDGET_GZIP_BYTES})"))?;
    if gz > BUDGET_GZIP_BYTES {
        return Err(format!(
            "the viewer is {gz} bytes gzipped, over the {BUDGET_GZIP_BYTES}-byte budget"
        )
        .into());
    }
    Ok(())
}

/// Prints the sizes of the playground page's own module: only that page loads it, so the
/// viewer's budget does not hold it.
pub fn report_playground(pkg: &Pkg) -> Result<()> {
    print(pkg, "(the playground page's module)").map(|_| ())
}

/// Prints each file's raw and gzip bytes and their total; returns the gzip total.
fn print(pkg: &Pkg, total_note: &str) -> Result<usize> {
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
        "{:<40} {raw:>10} {gz:>10}  {total_note}",
        "total (wasm + glue)"
    );
    Ok(gz)
}

fn sizes(path: &Path) -> Result<(usize, usize)> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    gz.write_all(&bytes)?;
    Ok((bytes.len(), gz.finish()?.len()))
}
