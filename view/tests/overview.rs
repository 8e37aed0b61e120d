//! The timeline of a long record, as the viewer's drawing writes it: step numbers at a readable
//! interval over any window, a row of a busy record counted into a few paths, thirty rows at a
//! time, and the zoom buttons' states.

use project_lanes::record::{Recorder, Text};
use project_lanes_view::i18n::Lang;
use project_lanes_view::time::Utc;
use project_lanes_view::timeline::{Axis, Drawing, Window, section_on};
use project_lanes_view::tree::{ROOT, Tree, html};

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

/// `runs` runs over `projects` projects (and one left untouched), each claimed in turn and
/// released at once.
fn record(runs: usize, projects: usize) -> project_lanes::record::Record {
    let mut names: Vec<String> = (0..projects).map(|p| format!("p{p}")).collect();
    names.push("quiet".into());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut rec = Recorder::new("long", text("long"), text("long"), &names, "quiet").unwrap();
    for n in 0..runs {
        rec.claim(names[n % projects], &format!("run-{n}"));
        rec.release(&format!("L{}", n + 1), "succeeded");
    }
    rec.finish().unwrap()
}

fn draw(record: &project_lanes::record::Record, window: Option<Window>, rows: usize) -> String {
    let mut t = Tree::new();
    let drawing = Drawing {
        window,
        rows,
        ..Drawing::new(Axis::Steps, &Utc)
    };
    section_on(&mut t, ROOT, Lang::En, record, "p", drawing);
    html::write(&t)
}

fn ticks(markup: &str) -> Vec<String> {
    markup
        .split("<text class=\"lv-tl-tick\"")
        .skip(1)
        .map(|t| {
            t.split('>')
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn step_numbers_are_spread_over_any_window() {
    let record = record(50_000, 2);
    let whole = draw(&record, None, 0);
    assert_eq!(
        ticks(&whole),
        [
            "1", "10,000", "20,000", "30,000", "40,000", "50,000", "60,000", "70,000", "80,000",
            "90,000", "100,000"
        ]
    );
    assert!(whole.contains("Steps 1–100,000 of 100,000"));
    assert!(whole.contains("data-zoom=\"in\" aria-disabled=\"false\""));
    assert!(whole.contains("data-zoom=\"whole\" aria-disabled=\"true\""));
    let zoomed = draw(
        &record,
        Some(Window {
            from: 59_995,
            to: 60_005,
        }),
        0,
    );
    assert_eq!(
        ticks(&zoomed),
        [
            "59,996", "59,997", "59,998", "59,999", "60,000", "60,001", "60,002", "60,003",
            "60,004", "60,005"
        ]
    );
    assert!(zoomed.contains("data-zoom=\"in\" aria-disabled=\"true\""));
    assert!(zoomed.contains("data-window-from=\"59995\" data-window-to=\"60005\""));
    // Ten steps: every one drawn as itself, nothing counted together.
    assert!(!zoomed.contains("data-dense"));
}

#[test]
fn a_busy_row_is_a_few_shapes_and_counts_what_it_does_not_draw_apart() {
    let record = record(50_000, 2);
    let whole = draw(&record, None, 0);
    let row = whole
        .split("data-timeline-row=\"p0\"")
        .nth(1)
        .unwrap()
        .split("</g>")
        .next()
        .unwrap();
    let shapes = row.matches("<rect").count() + row.matches("<path").count();
    assert!(shapes < 20, "{shapes} shapes in a row of 50,000 spans");
    let counted: u64 = row
        .split("data-count=\"")
        .skip(1)
        .map(|c| c.split('"').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(counted, 50_000, "every span of p0 counted");
}

/// A version 3 record of 1,000 projects, each claimed once (`p{N}` at step N).
fn projects() -> project_lanes::record::Record {
    use project_lanes::record::stream::{Gather, Reader};
    let mut text = String::from(concat!(
        r#"{"format":"project-lanes/record","version":3,"id":"wide","#,
        r#""title":{"en":"W","ja":"W"},"summary":{"en":"W","ja":"W"},"#,
        r#""work_executed_here":false}"#,
        "\n"
    ));
    for n in 0..1_000 {
        text.push_str(&format!(
            "{{\"op\":\"claim\",\"project\":\"p{n}\",\"run\":\"r{n}\",\"result\":\"ok\"}}\n"
        ));
    }
    text.push_str("{\"end\":{\"steps\":1000}}\n");
    let (mut reader, mut gather) = (Reader::new(), Gather::new());
    reader
        .feed(text.as_bytes(), &mut |seen| gather.seen(seen))
        .unwrap();
    reader.finish(&mut |seen| gather.seen(seen)).unwrap();
    gather.record()
}

#[test]
fn a_thousand_projects_draw_thirty_rows_from_the_first_asked() {
    let record = projects();
    let rows = |markup: &str| -> Vec<String> {
        markup
            .split("data-timeline-row=\"")
            .skip(1)
            .map(|r| r.split('"').next().unwrap().to_string())
            .collect()
    };
    let first = draw(&record, None, 0);
    assert_eq!(rows(&first).len(), 30);
    assert_eq!(rows(&first)[0], "p0");
    assert!(first.contains("Rows 1–30 of 1,000"));
    assert!(first.contains("data-rows=\"earlier\" aria-disabled=\"true\""));
    let last = draw(&record, None, 990);
    assert_eq!(rows(&last).first().map(String::as_str), Some("p970"));
    assert_eq!(rows(&last).last().map(String::as_str), Some("p999"));
    assert!(last.contains("Rows 971–1,000 of 1,000"));
    assert!(last.contains("data-rows=\"later\" aria-disabled=\"true\""));
    // What is said to assistive technologies is what is drawn.
    assert!(last.contains("Shown: rows 971–1,000 of 1,000."));
    assert!(!last.contains("p0:"));
}

#[test]
fn a_window_on_the_time_axis_labels_its_own_times() {
    // 40 steps 100 ms apart from 03:00:00.000 UTC.
    let mut record = record(20, 2);
    record.version = 2;
    let start: u64 = "2026-05-01T03:00:00.000Z"
        .parse::<project_lanes::record::Timestamp>()
        .unwrap()
        .millis();
    for (i, step) in record.steps.iter_mut().enumerate() {
        step.at =
            Some(project_lanes::record::Timestamp::from_millis(start + 100 * i as u64).unwrap());
    }
    let mut t = Tree::new();
    let drawing = Drawing {
        window: Some(Window { from: 10, to: 20 }),
        ..Drawing::new(Axis::Time, &Utc)
    };
    section_on(&mut t, ROOT, Lang::En, &record, "p", drawing);
    let markup = html::write(&t);
    let ticks: Vec<&str> = markup
        .split("data-time-tick=\"\">")
        .skip(1)
        .map(|t| t.split('<').next().unwrap())
        .collect();
    // Steps 11 to 20 run from 03:00:01.000 to 03:00:02.000: labels every 200 ms between.
    assert_eq!(
        ticks,
        [
            "03:00:01.000",
            "03:00:01.200",
            "03:00:01.400",
            "03:00:01.600",
            "03:00:01.800",
            "03:00:02.000"
        ]
    );
}
