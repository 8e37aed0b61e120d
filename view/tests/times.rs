//! Version 2 records with times, callers and an origin: the step cards give each step's time in
//! the reader's zone (to the millisecond) and its caller, the panel says that the record was
//! recorded from a running system, and the timeline offers a time axis only when every step has
//! a time.

use project_lanes::record::{Origin, OriginKind, Record, Recorder, Text, Timestamp};
use project_lanes_view::i18n::Lang;
use project_lanes_view::panel;
use project_lanes_view::steps::{cards, cards_in_zone};
use project_lanes_view::time::{Fixed, Zone};
use project_lanes_view::timeline::{Axis, Drawing, section, section_on, time_edges};
use project_lanes_view::tree::{ROOT, Tree, html};

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

fn at(text: &str) -> Option<Timestamp> {
    Some(text.parse().unwrap())
}

/// Four steps at uneven times (the third 10 s after the second), with callers, from the journal
/// of a system called "build farm".
fn journal_record() -> Record {
    let mut rec = Recorder::new("farm", text("t"), text("t"), &["docs", "site"], "site").unwrap();
    rec.claim("docs", "nightly-1");
    rec.claim("docs", "nightly-2");
    rec.release("L1", "succeeded");
    rec.claim("docs", "nightly-3");
    let mut record = rec.finish().unwrap();
    record.version = 2;
    let times = [
        "2026-05-01T03:00:00.000Z",
        "2026-05-01T03:00:00.250Z",
        "2026-05-01T03:00:10.250Z",
        "2026-05-01T03:00:10.251Z",
    ];
    for (i, (step, time)) in record.steps.iter_mut().zip(times).enumerate() {
        step.at = at(time);
        step.actor = Some(format!("host-a/pid {}", 4100 + i).into());
    }
    record.origin = Some(Origin {
        kind: OriginKind::Journal,
        system: Some("build farm".into()),
        since: at("2026-05-01T03:00:00.000Z"),
        until: at("2026-05-01T03:01:00.000Z"),
    });
    record
}

fn v1_record() -> Record {
    let mut rec = Recorder::new("v1", text("t"), text("t"), &["docs", "site"], "site").unwrap();
    rec.claim("docs", "nightly-1");
    rec.release("L1", "succeeded");
    rec.finish().unwrap()
}

/// The panel's origin lines of `record` in `lang`, times in `zone`.
fn origin(t: &mut Tree, lang: Lang, record: &Record, zone: &dyn Zone) {
    let notes = project_lanes_view::recorded::notes(record);
    panel::origin(t, ROOT, lang, record, &notes, zone);
}

#[test]
fn a_steps_time_reads_in_the_readers_zone_to_the_millisecond_with_its_caller() {
    let record = journal_record();
    for (lang, time, caller) in [
        (Lang::En, "2026-05-01 12:00:00.250 (UTC+09:00)", "Caller"),
        (
            Lang::Ja,
            "2026年5月1日 12:00:00.250（UTC+09:00）",
            "呼び出し元",
        ),
    ] {
        let mut t = Tree::new();
        cards_in_zone(&mut t, ROOT, lang, &record, (0, 1_000), None, &Fixed(540));
        let markup = html::write(&t);
        assert!(
            markup.contains(&format!(
                "<time class=\"lv-time\" datetime=\"2026-05-01T03:00:00.250Z\">{time}</time>"
            )),
            "{markup}"
        );
        assert!(markup.contains(&format!(
            "<span class=\"lv-k\">{caller}</span><code class=\"lv-code lv-actor\">host-a/pid 4101</code>"
        )));
        assert!(markup.contains(
            "data-step=\"1\" data-op=\"claim\" data-result=\"PROJECT_BUSY\" data-at=\"2026-05-01T03:00:00.250Z\" data-actor=\"host-a/pid 4101\""
        ));
    }
}

#[test]
fn a_record_from_a_journal_says_it_was_recorded_from_a_running_system() {
    let record = journal_record();
    let mut t = Tree::new();
    origin(&mut t, Lang::En, &record, &Fixed(-240));
    assert_eq!(
        html::write(&t),
        "<p class=\"lv-origin\" data-origin=\"journal\">Recorded from a running system: <bdi>build farm</bdi>.</p>\
         <p class=\"lv-window\" data-origin-window=\"\">Transitions from 2026-04-30 23:00:00.000 (UTC-04:00) until 2026-04-30 23:01:00.000 (UTC-04:00).</p>\
         <p class=\"lv-zone\" data-time-zone=\"UTC-04:00\">Times are shown in your time zone (UTC-04:00).</p>\
         <p class=\"lv-unchecked\" data-unchecked=\"\">Replay checks each step's result and the state after it. Shown as recorded, not checked: times, callers, the window.</p>"
    );
    let mut t = Tree::new();
    origin(&mut t, Lang::Ja, &record, &Fixed(540));
    let markup = html::write(&t);
    assert!(markup.contains("稼働中のシステム「<bdi>build farm</bdi>」から記録したものです。"));
    assert!(markup.contains("時刻は閲覧環境のタイムゾーン（UTC+09:00）で表示しています。"));
}

#[test]
fn version_1_records_keep_their_markup_without_times_origin_or_axis_switch() {
    let record = v1_record();
    let mut t = Tree::new();
    origin(&mut t, Lang::En, &record, &Fixed(540));
    assert_eq!(html::write(&t), "");
    for lang in Lang::ALL {
        let (mut a, mut b) = (Tree::new(), Tree::new());
        cards(&mut a, ROOT, lang, &record, (0, 1_000), None);
        cards_in_zone(&mut b, ROOT, lang, &record, (0, 1_000), None, &Fixed(540));
        assert_eq!(html::write(&a), html::write(&b));
        assert!(!html::write(&a).contains("lv-when"));
        let (mut a, mut b) = (Tree::new(), Tree::new());
        section(&mut a, ROOT, lang, &record, "p");
        section_on(
            &mut b,
            ROOT,
            lang,
            &record,
            "p",
            Drawing::new(Axis::Time, &Fixed(540)),
        );
        assert_eq!(
            html::write(&a),
            html::write(&b),
            "no time axis without times"
        );
        assert!(!html::write(&a).contains("data-axis"));
    }
    assert_eq!(time_edges(&record), None);
}

#[test]
fn the_time_axis_places_steps_by_their_times_and_labels_local_times() {
    let record = journal_record();
    assert_eq!(
        time_edges(&record),
        Some(vec![0, 250, 10_250, 10_251, 10_251 + 10_251 / 4])
    );
    let mut t = Tree::new();
    section_on(
        &mut t,
        ROOT,
        Lang::En,
        &record,
        "p",
        Drawing::new(Axis::Steps, &Fixed(540)),
    );
    let steps = html::write(&t);
    assert!(steps.contains("<section class=\"lv-timeline\" data-axis=\"steps\">"));
    assert!(
        steps.contains(
            "data-axis-choice=\"steps\" aria-pressed=\"true\">One column per step</button>"
        )
    );
    assert!(steps.contains("data-axis-choice=\"time\" aria-pressed=\"false\">Time axis</button>"));
    assert!(!steps.contains("data-time-tick"));

    let mut t = Tree::new();
    section_on(
        &mut t,
        ROOT,
        Lang::Ja,
        &record,
        "p",
        Drawing::new(Axis::Time, &Fixed(540)),
    );
    let time = html::write(&t);
    assert!(time.contains("<section class=\"lv-timeline\" data-axis=\"time\">"));
    assert!(time.contains("data-axis-choice=\"time\" aria-pressed=\"true\">時間軸</button>"));
    let svg = time.split("<svg class=\"lv-tl-svg\"").nth(1).unwrap();
    assert!(
        svg.split('>')
            .next()
            .unwrap()
            .contains("data-axis=\"time\"")
    );
    // Ticks every 2 s of the reader's clock, from 12:00:00.
    assert!(
        time.contains("data-time-tick=\"\">12:00:00</text>"),
        "{time}"
    );
    assert!(time.contains("data-time-tick=\"\">12:00:02</text>"));
    // The same segments on either axis; only their places differ.
    let segments = |markup: &str| -> Vec<String> {
        markup
            .split("data-segment=\"\" ")
            .skip(1)
            .map(|s| {
                let from = s.find("data-state").unwrap();
                let rest = &s[from..];
                let to = rest.find("data-to=\"").unwrap() + 9;
                rest[..to + rest[to..].find('"').unwrap()].to_string()
            })
            .collect()
    };
    // docs: running, idle, running; site: idle.
    assert_eq!(
        segments(&steps),
        [
            "data-state=\"running\" data-from=\"0\" data-to=\"1",
            "data-state=\"idle\" data-from=\"2\" data-to=\"2",
            "data-state=\"running\" data-from=\"3\" data-to=\"3",
            "data-state=\"idle\" data-from=\"0\" data-to=\"3"
        ]
    );
    // The last claim, 10 s after the second step, is far right on the time axis only.
    assert!(steps.contains("x=\"683\" y=\"26\" width=\"185\""));
    assert!(time.contains("x=\"720.03\" y=\"26\" width=\"147.97\""));
    assert_eq!(segments(&steps), segments(&time));
}

/// A record of a journal names no untouched project (as every PostgreSQL export).
fn no_untouched_record() -> Record {
    let mut rec = Recorder::new("pg", text("t"), text("t"), &["docs", "site"], "site")
        .unwrap()
        .without_untouched_project();
    rec.claim("docs", "nightly-1");
    rec.release("L1", "succeeded");
    rec.finish().unwrap()
}

#[test]
fn a_record_without_an_untouched_project_says_nothing_of_one() {
    use project_lanes_view::entry::{Entry, Loaded};
    let record = no_untouched_record();
    assert!(record.untouched_project.is_none());
    for lang in Lang::ALL {
        let entry = Entry::<()> {
            id: "pg".into(),
            title: record.title.clone(),
            file: "pg.json".into(),
            url: None,
            opened: false,
            named_by_file: false,
            hashed: true,
            verdict_told: Default::default(),
            content: project_lanes_view::entry::Content::Pending,
        };
        let loaded = Loaded::new(record.clone(), ());
        let mut t = Tree::new();
        panel::tail(&mut t, ROOT, lang, &entry, &loaded);
        let mut cards_tree = Tree::new();
        cards(&mut cards_tree, ROOT, lang, &record, (0, 1_000), None);
        let still = project_lanes_view::still::fragment(&record, lang, "p");
        for markup in [html::write(&t), html::write(&cards_tree), still] {
            assert!(!markup.contains("lv-untouched"), "{markup}");
            assert!(!markup.contains("data-untouched-project"), "{markup}");
            assert!(!markup.contains("is untouched"), "{markup}");
            assert!(!markup.contains("どのステップでも取得されず"), "{markup}");
        }
    }
    // A record that names one still says so, once, with its name.
    let record = v1_record();
    let still = project_lanes_view::still::fragment(&record, Lang::En, "p");
    assert!(still.contains("data-untouched-project=\"site\""));
    assert!(still.contains("site is untouched: no step claims it"));
}

#[test]
fn replay_says_what_it_checks_and_shows_times_callers_and_the_window_as_recorded() {
    use project_lanes_view::recorded::{notes, sentences};
    let record = journal_record();
    let n = notes(&record);
    assert!(n.times && n.callers && n.window);
    assert_eq!((n.marked, n.first.as_slice()), (0, &[][..]));
    assert_eq!(
        sentences(Lang::En, &n),
        [
            "Replay checks each step's result and the state after it. Shown as recorded, not checked: times, callers, the window."
        ]
    );
    assert_eq!(
        sentences(Lang::Ja, &n),
        [
            "再生で確かめるのは、各ステップの応答とその後の状態です。時刻、呼び出し元、記録の期間は記録のまま表示しており、確かめていません。"
        ]
    );
    let mut t = Tree::new();
    origin(&mut t, Lang::En, &record, &Fixed(0));
    assert!(html::write(&t).ends_with(
        "<p class=\"lv-unchecked\" data-unchecked=\"\">Replay checks each step's result and the state after it. Shown as recorded, not checked: times, callers, the window.</p>"
    ));
    // Every caller renamed: still unchecked, nothing to mark. No window: not named.
    let mut mallory = journal_record();
    mallory.origin.as_mut().unwrap().since = None;
    mallory.origin.as_mut().unwrap().until = None;
    for step in &mut mallory.steps {
        step.actor = Some("mallory".into());
    }
    let n = notes(&mallory);
    assert_eq!((n.window, n.marked), (false, 0));
    assert!(sentences(Lang::En, &n)[0].ends_with("not checked: times, callers."));
    // A version 1 record says nothing.
    assert!(sentences(Lang::En, &notes(&v1_record())).is_empty());
}

#[test]
fn a_time_earlier_than_the_step_before_or_outside_the_window_is_marked_on_its_step() {
    use project_lanes_view::recorded::{TimeMark, mark, notes, sentences};
    // One step's time set to 2001: earlier than the step before, and before the window.
    let mut record = journal_record();
    record.steps[2].at = at("2001-01-01T00:00:00.000Z");
    let both = TimeMark {
        earlier: true,
        outside: true,
    };
    assert_eq!(mark(&record, 2), Some(both));
    assert_eq!(mark(&record, 3), None, "later than 2001, inside the window");
    let n = notes(&record);
    assert_eq!(
        (n.marked, n.first.as_slice(), n.earlier),
        (1, &[2][..], true)
    );
    assert_eq!(
        sentences(Lang::En, &n)[1],
        "The time of Step 3 stands out: it is earlier than the step before it or outside the record's window. \
         Callers running at the same time can record times a millisecond or so out of order: the order of the steps is the one that replays."
    );
    assert_eq!(
        sentences(Lang::Ja, &n)[1],
        "ステップ 3 の時刻は、直前のステップより前か、記録の期間の外にあります。\
         同時に動く呼び出し元の時刻は、1 ミリ秒ほど前後することがあります。ステップの順序は、再生で確かめた順序です。"
    );
    for (lang, words) in [
        (
            Lang::En,
            "earlier than step 2 · outside the record&#39;s window",
        ),
        (Lang::Ja, "ステップ 2 より前の時刻 · 記録の期間の外"),
    ] {
        let mut t = Tree::new();
        cards_in_zone(&mut t, ROOT, lang, &record, (0, 1_000), None, &Fixed(0));
        let markup = html::write(&t);
        assert_eq!(markup.matches("data-time-mark=").count(), 1, "{markup}");
        assert!(markup.contains("data-step=\"2\" data-op=\"release\" data-result=\"ok\" data-at=\"2001-01-01T00:00:00.000Z\""));
        let card = markup.split("data-step=\"2\"").nth(1).unwrap();
        let card = &card[..card.find("</li>").unwrap()];
        assert!(
            card.contains("data-time-mark=\"earlier outside\""),
            "{card}"
        );
        let words = words.replace("&#39;", "'");
        assert!(
            card.contains(&format!("<span class=\"lv-time-mark\">{words}</span>")),
            "{card}"
        );
    }

    // Steps past the stated `until` (exclusive), and every time moved a day on: outside only.
    let mut record = journal_record();
    record.origin.as_mut().unwrap().until = at("2026-05-01T03:00:10.250Z");
    let outside = TimeMark {
        earlier: false,
        outside: true,
    };
    assert_eq!(
        (0..4).map(|i| mark(&record, i)).collect::<Vec<_>>(),
        [None, None, Some(outside), Some(outside)]
    );
    let n = notes(&record);
    assert_eq!((n.marked, n.earlier), (2, false));
    assert_eq!(
        sentences(Lang::En, &n)[1],
        "The times of 2 steps stand out, earlier than the step before or outside the record's window: Step 3, Step 4."
    );
    assert_eq!(
        sentences(Lang::Ja, &n)[1],
        "2 ステップの時刻が、直前のステップより前か、記録の期間の外にあります：ステップ 3、ステップ 4。"
    );
    let mut moved = journal_record();
    for step in &mut moved.steps {
        let ms = step.at.unwrap().millis() + 86_400_000;
        step.at = Some(Timestamp::from_millis(ms).unwrap());
    }
    assert_eq!(notes(&moved).marked, 4);

    // Concurrent callers a millisecond out of order: marked as earlier, worded as no error.
    let mut record = journal_record();
    record.steps[3].at = at("2026-05-01T03:00:10.249Z");
    assert_eq!(
        mark(&record, 3),
        Some(TimeMark {
            earlier: true,
            outside: false
        })
    );
    assert!(sentences(Lang::En, &notes(&record))[1].contains("a millisecond or so out of order"));
}

#[test]
fn only_the_first_marked_steps_are_named_and_the_rest_counted() {
    use project_lanes_view::recorded::{NAMED, notes, sentences};
    let mut rec = Recorder::new("many", text("t"), text("t"), &["docs", "site"], "site").unwrap();
    for n in 0..1_200u64 {
        // Each step a millisecond before the one before.
        rec.view("docs")
            .at(Timestamp::from_millis(1_777_604_400_000 - n).unwrap());
    }
    let record = rec.finish().unwrap();
    let n = notes(&record);
    assert_eq!((n.marked, n.first.len()), (1_199, NAMED));
    assert_eq!(
        sentences(Lang::En, &n)[1].split(": ").nth(1).unwrap(),
        "Step 2, Step 3, Step 4, Step 5, Step 6, …. Callers running at the same time can record times a millisecond or so out of order"
    );
    assert!(sentences(Lang::En, &n)[1].starts_with("The times of 1,199 steps stand out"));
}
