//! Japanese for Japanese readers: the viewer's catalog, the records' Japanese text and the pages
//! use the glossary's one term per concept (`view/src/i18n/GLOSSARY.md`) and Japanese
//! punctuation.

use project_lanes_view::i18n::{Lang, every_text};

/// Words that are not the glossary's, and what the glossary says instead.
const NOT_THE_GLOSSARY: [(&str, &str); 6] = [
    ("待ち行列", "キュー"),
    ("項目", "予約 (a reservation)"),
    ("コアに再生", "コアで再生"),
    ("に再生し", "で再生し"),
    (
        "取得し直されて",
        "an active phrasing: 別の実行がプロジェクトを取得し直して",
    ),
    ("手つかずです", "はどのステップでも取得されず"),
];

fn catalog() -> Vec<&'static str> {
    every_text(Lang::Ja)
}

fn check(what: &str, ja: &str) {
    for (word, instead) in NOT_THE_GLOSSARY {
        assert!(!ja.contains(word), "{what}: 「{word}」 → {instead}: {ja}");
    }
    // The label rule is ASCII: 半角英数字.
    assert!(
        ja.matches("英数字").count() == ja.matches("半角英数字").count(),
        "{what}: 英数字 → 半角英数字: {ja}"
    );
}

#[test]
fn the_catalog_uses_the_glossary_terms_and_japanese_punctuation() {
    for ja in catalog() {
        check("catalog", ja);
        assert!(
            !ja.contains('(') && !ja.contains(')'),
            "full-width （）: {ja}"
        );
        assert!(!ja.contains(": "), "full-width ：: {ja}");
    }
}

/// Every `ja` string of a JSON value.
fn japanese(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("ja", serde_json::Value::String(s)) => out.push(s.clone()),
                    _ => japanese(value, out),
                }
            }
        }
        serde_json::Value::Array(list) => list.iter().for_each(|v| japanese(v, out)),
        _ => {}
    }
}

#[test]
fn the_records_japanese_uses_the_glossary_terms() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../records");
    let mut checked = 0;
    for file in std::fs::read_dir(&dir).unwrap() {
        let path = file.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("json")
            || path.ends_with("schema.json")
        {
            continue;
        }
        let value: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let mut texts = Vec::new();
        japanese(&value, &mut texts);
        for ja in texts {
            check(&path.display().to_string(), &ja);
            checked += 1;
        }
    }
    assert!(checked > 50, "{checked} Japanese texts");
}
