//! Whether this build carries the viewer `install` copies (`viewer/`, filled by `cargo xtask
//! dist`; always there in the packaged crate): `cfg(carried_viewer)` when both files are.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(carried_viewer)");
    println!("cargo::rerun-if-changed=viewer");
    let dir = std::path::Path::new("viewer");
    if ["lane-viewer.standalone.js", "viewer.css"]
        .iter()
        .all(|name| dir.join(name).is_file())
    {
        println!("cargo::rustc-cfg=carried_viewer");
    }
}
