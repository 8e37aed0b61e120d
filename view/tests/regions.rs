//! Every viewer's region, live or static, is named by the record it shows, in its language, so
//! a page with several viewers has one name per landmark.

use project_lanes::record::Record;
use project_lanes_view::frame::region_label;
use project_lanes_view::i18n::Lang;

fn record(file: &str) -> Record {
    let path = format!("{}/../records/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn static_pictures_are_regions_named_by_their_records() {
    let (busy, stale) = (record("busy-project.json"), record("stale-release.json"));
    for lang in Lang::ALL {
        let names: Vec<String> = [&busy, &stale]
            .iter()
            .map(|r| {
                let fragment = project_lanes_view::still::fragment(r, lang, "p");
                let head = &fragment[..fragment.find('>').unwrap()];
                assert!(head.contains("role=\"region\""), "{head}");
                let at = head.find("aria-label=\"").unwrap() + 12;
                head[at..at + head[at..].find('"').unwrap()].to_string()
            })
            .collect();
        assert_ne!(names[0], names[1], "{lang:?}");
        assert_eq!(names[0], region_label(lang, Some(&busy.title)));
    }
    assert_eq!(
        region_label(Lang::En, Some(&busy.title)),
        format!("Project lanes: {}", busy.title.en)
    );
    assert_eq!(
        region_label(Lang::Ja, Some(&stale.title)),
        format!("プロジェクトレーン：{}", stale.title.ja)
    );
    assert_eq!(region_label(Lang::En, None), "Project lanes: Records");
}
