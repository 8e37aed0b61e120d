//! Chained records in the viewer (`fixtures/chained/`, written by xtask from a journal): the
//! chain recomputed as the record is read and said under the verification line (signed by a
//! key, or unsigned), the root hash shown and copied, a step edited after the fact refused at
//! its line, and a deep link pinned to another record's root refused with a warning.

use lane_viewer_tests::*;
use project_lanes::record::checkpoint::SigningKey;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

/// The fingerprint of the key that signed the fixtures' checkpoint (xtask's `SIGNING_SEED`).
fn signer() -> String {
    SigningKey::from_seed("ops.example", [7; 32])
        .unwrap()
        .verifier()
        .fingerprint()
}

fn field(detail: &JsValue, name: &str) -> Option<String> {
    js_sys::Reflect::get(detail, &name.into()).ok()?.as_string()
}

async fn shown(src: &str, lang: &str) -> Mounted {
    let m = mount(&[("src", s(src)), ("lang", s(lang))]).await;
    let panel = one(&m.root(), "[role=tabpanel]");
    assert!(
        eventually(|| { attr(&panel, "data-verification").is_some_and(|v| v != "pending") }).await,
        "{}",
        text(&m.root())
    );
    m
}

#[wasm_bindgen_test]
async fn a_chained_signed_record_names_its_signer_and_its_root() {
    let m = shown("fixtures/chained/signed.jsonl", "en").await;
    let root = m.root();
    let panel = one(&root, "[role=tabpanel]");
    assert_eq!(
        attr(&panel, "data-verification").as_deref(),
        Some("verified"),
        "{}",
        text(&root)
    );
    assert_eq!(attr(&panel, "data-chain").as_deref(), Some("signed"));
    let line = one(&root, ".lv-chain[data-chain=signed]");
    assert_eq!(attr(&line, "data-signer"), Some(signer()));
    let said = text(&line);
    assert!(said.starts_with("Chained and signed by "), "{said}");
    assert!(said.contains(&signer()), "{said}");
    // Its identity: the root, 12 hex digits shown, the whole copied and told.
    let code = one(&line, "code[data-root]");
    let full = attr(&code, "data-root").unwrap();
    assert_eq!(full.len(), 64, "{full}");
    assert!(full.bytes().all(|b| b.is_ascii_hexdigit()), "{full}");
    assert_eq!(text(&code), full[..12]);
    assert!(
        said.contains(&format!("Root hash: {}", &full[..12])),
        "{said}"
    );
    let copy = one(&line, "button[data-copy-root]");
    assert_eq!(
        attr(&copy, "data-copy-root").as_deref(),
        Some(full.as_str())
    );
    let detail = JsFuture::from(m.viewer.verdict(None)).await.unwrap();
    assert_eq!(field(&detail, "verdict").as_deref(), Some("verified"));
    assert_eq!(field(&detail, "chain").as_deref(), Some("signed"));
    assert_eq!(field(&detail, "root"), Some(full));
    drop(m);

    // The same in Japanese.
    let m = shown("fixtures/chained/signed.jsonl", "ja").await;
    let said = text(&one(&m.root(), ".lv-chain[data-chain=signed]"));
    assert!(said.contains("ハッシュチェーンがつながり"), "{said}");
    assert!(
        said.contains(&format!("{} の署名を検証しました", signer())),
        "{said}"
    );
    assert!(said.contains("ルートハッシュ："), "{said}");
    assert_eq!(text(&one(&m.root(), "button[data-copy-root]")), "コピー");
}

#[wasm_bindgen_test]
async fn a_chained_record_without_a_verified_signature_is_unsigned() {
    let m = shown("fixtures/chained/unsigned.jsonl", "en").await;
    let root = m.root();
    let panel = one(&root, "[role=tabpanel]");
    assert_eq!(
        attr(&panel, "data-verification").as_deref(),
        Some("verified")
    );
    assert_eq!(attr(&panel, "data-chain").as_deref(), Some("unsigned"));
    let line = one(&root, ".lv-chain[data-chain=unsigned]");
    assert_eq!(attr(&line, "data-signer"), None);
    let said = text(&line);
    assert!(said.starts_with("Chained, unsigned"), "{said}");
    let detail = JsFuture::from(m.viewer.verdict(None)).await.unwrap();
    assert_eq!(field(&detail, "chain").as_deref(), Some("unsigned"));
    drop(m);

    // A checkpoint signed by a key the record does not give: unsigned, and says whose.
    let m = shown("fixtures/chained/other-key.jsonl", "en").await;
    let line = one(&m.root(), ".lv-chain[data-chain=unsigned]");
    let said = text(&line);
    assert!(
        said.contains(&format!(
            "signed by {}, a key the record does not give",
            signer()
        )),
        "{said}"
    );
    drop(m);
    let m = shown("fixtures/chained/other-key.jsonl", "ja").await;
    let said = text(&one(&m.root(), ".lv-chain[data-chain=unsigned]"));
    assert!(said.contains("その鍵が記録に含まれていない"), "{said}");
}

#[wasm_bindgen_test]
async fn a_record_without_a_chain_shows_no_chain_line() {
    let m = shown("corpus/v3-valid.jsonl", "en").await;
    let root = m.root();
    let panel = one(&root, "[role=tabpanel]");
    assert_eq!(attr(&panel, "data-chain").as_deref(), Some("none"));
    assert!(maybe(&root, ".lv-chain").is_none());
    let detail = JsFuture::from(m.viewer.verdict(None)).await.unwrap();
    assert_eq!(field(&detail, "chain").as_deref(), Some("none"));
    assert_eq!(field(&detail, "root"), None);
}

#[wasm_bindgen_test]
async fn an_edited_chained_record_is_invalid_at_the_edited_steps_line() {
    let file = fetch_text("fixtures/chained/edited.jsonl").await;
    // The cancelled release made to look successful: the first line that says succeeded.
    let edited = 1 + file
        .lines()
        .position(|l| l.contains("\"outcome\":\"succeeded\""))
        .unwrap();
    // A single record that cannot be read: the viewer's error, no panel.
    let m = mount(&[
        ("src", s("fixtures/chained/edited.jsonl")),
        ("lang", s("en")),
    ])
    .await;
    let root = m.root();
    assert!(
        eventually(|| error_codes(&root) == ["INVALID_RECORD"]).await,
        "{}",
        text(&root)
    );
    let detail = text(&one(&root, ".lv-error-detail"));
    assert!(detail.starts_with(&format!("line {edited},")), "{detail}");
    assert!(detail.contains("the chain breaks at this step"), "{detail}");
    assert!(maybe(&root, ".lv-chain").is_none());
    let verdict = JsFuture::from(m.viewer.verdict(None)).await.unwrap();
    assert_eq!(field(&verdict, "verdict").as_deref(), Some("invalid"));
    assert_eq!(field(&verdict, "chain").as_deref(), Some("none"));
    drop(m);
    // In Japanese the reader's detail stays English, marked so.
    let m = mount(&[
        ("src", s("fixtures/chained/edited.jsonl")),
        ("lang", s("ja")),
    ])
    .await;
    let root = m.root();
    assert!(eventually(|| error_codes(&root) == ["INVALID_RECORD"]).await);
    let detail = one(&root, ".lv-error-detail");
    assert_eq!(attr(&detail, "lang").as_deref(), Some("en"));
}

#[wasm_bindgen_test]
async fn a_link_pinned_to_the_records_root_selects_its_step_and_another_root_warns() {
    let src = "fixtures/chained/signed.jsonl";
    let m = shown(src, "en").await;
    let full = attr(&one(&m.root(), "code[data-root]"), "data-root").unwrap();
    drop(m);

    // Its own root (16 digits, as the viewer writes it): the step is selected.
    clear_hash();
    let pinned = format!("lang=en&step=3&root={}", &full[..16]);
    window().location().set_hash(&pinned).unwrap();
    let m = mount(&[("src", s(src)), ("hash", JsValue::TRUE)]).await;
    let root = m.root();
    assert!(
        eventually(|| attr(&root, "data-current-step").as_deref() == Some("2")).await,
        "{}",
        text(&root)
    );
    assert!(maybe(&root, "[data-root-mismatch]").is_none());
    drop(m);

    // Another record's root: a warning naming both, and no step.
    clear_hash();
    let other = "0123456789abcdef";
    let pinned = format!("lang=en&step=3&root={other}");
    window().location().set_hash(&pinned).unwrap();
    let m = mount(&[("src", s(src)), ("hash", JsValue::TRUE)]).await;
    let root = m.root();
    assert!(
        eventually(|| maybe(&root, "[data-root-mismatch]").is_some()).await,
        "{}",
        text(&root)
    );
    let warning = one(&root, "[data-root-mismatch]");
    assert_eq!(attr(&warning, "data-root-mismatch").as_deref(), Some(other));
    let said = text(&warning);
    assert_eq!(
        said,
        format!(
            "This link was made for another record: root {other} expected, {} found. The link's step is not selected.",
            &full[..12]
        )
    );
    assert_eq!(attr(&root, "data-current-step"), None);
    // A step chosen now is written with the record's own root.
    assert!(m.viewer.select_step(JsValue::from(1_u32)));
    let hash = window().location().hash().unwrap();
    assert!(
        hash.ends_with(&format!("&step=2&root={}", &full[..16])),
        "{hash}"
    );
    drop(m);
    clear_hash();
}
