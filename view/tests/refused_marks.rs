//! The timeline's marks of refused steps stay whole inside the plot, on either axis: a refusal
//! at a record's first instant (as PostgreSQL exports often begin) or at its last, alone or
//! counted with others in one bucket.

use project_lanes::record::{Origin, OriginKind, Record, Recorder, Text, Timestamp};
use project_lanes_view::i18n::Lang;
use project_lanes_view::time::Utc;
use project_lanes_view::timeline::{Axis, Drawing, section_on};
use project_lanes_view::tree::{ROOT, Tree, html};

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

const START: u64 = 1_777_604_400_000;

/// A journal's record: `first` refused claims at its first instant, `middle` views 10 ms
/// apart, `last` refused claims at its last instant.
fn record(first: usize, middle: usize, last: usize) -> Record {
    let mut rec = Recorder::new("marks", text("t"), text("t"), &["docs", "site"], "site")
        .unwrap()
        .without_untouched_project();
    rec.origin(Origin {
        kind: OriginKind::Journal,
        system: Some("pg".into()),
        since: None,
        until: None,
    });
    let at = |ms: u64| Timestamp::from_millis(START + ms).unwrap();
    for _ in 0..first {
        rec.claim("docs", "not a label").at(at(0)).actor("w");
    }
    for n in 0..middle {
        rec.view("docs").at(at(10 * (n as u64 + 1))).actor("w");
    }
    let end = 10 * (middle as u64 + 1);
    for _ in 0..last {
        rec.claim("docs", "not a label").at(at(end)).actor("w");
    }
    rec.finish().unwrap()
}

/// The value of `name` in the first tag of `markup`.
fn attr<'a>(markup: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let head = &markup[..markup.find('>').unwrap()];
    let at = head
        .find(&key)
        .unwrap_or_else(|| panic!("{name} in {head}"))
        + key.len();
    &head[at..at + head[at..].find('"').unwrap()]
}

/// Every refused mark's horizontal extent in px: crosses, guides and bucket bars.
fn extents(markup: &str) -> Vec<(String, f64, f64)> {
    let mut out = Vec::new();
    for part in markup.split("<path class=\"lv-tl-cross\"").skip(1) {
        let d = attr(part, "d");
        let x: f64 = d[1..d.find(',').unwrap()].parse().unwrap();
        out.push((format!("cross {d}"), x, x + 8.0));
    }
    for part in markup.split("<path class=\"lv-tl-guide\"").skip(1) {
        let d = attr(part, "d");
        let x: f64 = d[1..d.find(',').unwrap()].parse().unwrap();
        out.push((format!("guide {d}"), x - 0.5, x + 0.5));
    }
    for part in markup.split("<rect class=\"lv-tl-bucket-bar\"").skip(1) {
        let x: f64 = attr(part, "x").parse().unwrap();
        let w: f64 = attr(part, "width").parse().unwrap();
        out.push((format!("bucket at {x}"), x, x + w));
    }
    out
}

#[test]
fn refused_marks_stay_whole_inside_the_plot_on_either_axis() {
    for (first, middle, last) in [(1, 20, 1), (30, 20, 30), (1, 2_000, 1), (40, 2_000, 40)] {
        let record = record(first, middle, last);
        for axis in [Axis::Steps, Axis::Time] {
            let mut t = Tree::new();
            section_on(
                &mut t,
                ROOT,
                Lang::En,
                &record,
                "p",
                Drawing::new(axis, &Utc),
            );
            let markup = html::write(&t);
            let svg = &markup[markup.find("<svg class=\"lv-tl-svg\"").unwrap()..];
            let left: f64 = attr(svg, "data-plot-x").parse().unwrap();
            let right = left + attr(svg, "data-plot-w").parse::<f64>().unwrap();
            let marks = extents(svg);
            assert!(!marks.is_empty());
            for (mark, from, to) in marks {
                assert!(
                    left <= from && to <= right,
                    "{first}+{middle}+{last} steps on {axis:?}: {mark} spans {from}..{to}, \
                     the plot {left}..{right}"
                );
            }
        }
    }
}
