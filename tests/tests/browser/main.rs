//! The browser tests that read the site's files, as one test binary: each file is a module, and
//! the runner opens one page for all of them (one link and one browser start instead of one per
//! file). The files whose tests read the fixture server's counted and endless streams
//! (`__lines`, `__length`, `__chunked`, `__endless`: element, loading_limits, page, version_3)
//! and the playground's keep binaries of their own beside this folder, each in a fresh page.

#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::wasm_bindgen_test_configure;

wasm_bindgen_test_configure!(run_in_browser);

mod bad_files;
mod chain;
mod compare;
mod corpus;
mod embedding;
mod find;
mod keyboard_and_focus;
mod layout;
mod markup;
mod open_verify;
mod timeline;
mod times;
mod viewer;
mod wasm_stack;
mod wording;
mod zoom;
