//! `lane-records`: scenario files to records, an index for a folder of records, the bundled
//! records' generation and check, and replay. Run `lane-records --help`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};
use lane_records::{
    INDEX_FILE, RECORDED, ReplayReport, check_recorded, compare, describe_mismatch,
    describe_step_mismatch, generate, index_dir, records_dir, replay_file_proving, run_scenarios,
    scenarios_dir, write_files,
};
use project_lanes::record::checkpoint::VerifierKey;
use project_lanes::record::diff::{Plan, Sketch};
use project_lanes::record::stream;
use project_lanes_view::diff::Compared;
use project_lanes_view::i18n::Lang;

/// Records of project lanes, made by running scenarios on the real core.
///
/// Without a command: regenerate the bundled records (records/scenarios/*.toml) into
/// records/*.json and records/index.json.
#[derive(Parser)]
#[command(
    name = "lane-records",
    version,
    override_usage = "lane-records run FILE... [--out DIR]
       lane-records index DIR [--order ID,ID,...]
       lane-records replay FILE... [--max-bytes BYTES] [--public-key FILE]
       lane-records render FILE... [--html DIR] [--svg DIR] [--lang en|ja] [--element [DIR]]
       lane-records diff A B [--lang en|ja] [--json] [--svg FILE] [--hold-ratio R] [--hold-min-ms MS]
       lane-records [--out DIR]      (in a clone of project-lanes: its example records)
       lane-records --check          (in a clone: fail if a committed example record is stale)",
    after_help = "Nothing is written unless every file is good; errors name the file, line and column.
Exit status: 0 done, 1 bad input (a scenario, a record, a file), 2 a mistake in the command line;
diff exits as diff(1) does: 0 the same, 1 different, 2 trouble.

examples:
  lane-records run my-scenarios/deploy-waits.toml --out my-docs/records
  lane-records run my-scenarios/*.toml --out my-docs/records
  lane-records index my-docs/records --order deploy-waits,busy-docs
  lane-records replay my-docs/records/deploy-waits.json
  lane-records render my-docs/records/*.json --html my-docs/static --svg my-docs/img
  lane-records render my-docs/records/deploy-waits.json --element
  lane-records diff last-night.jsonl tonight.jsonl
  lane-records --check

The scenario format: https://github.com/project-lanes/project-lanes/blob/main/records/README.md
(and records/scenario.schema.json there).",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Write the bundled records into DIR instead of records/
    #[arg(long, value_name = "DIR", conflicts_with = "check")]
    out: Option<PathBuf>,
    /// Regenerate the bundled records in memory; fail with a diff if a committed file differs
    #[arg(long)]
    check: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenario files (TOML) and write each record as DIR/<id>.json
    #[command(
        override_usage = "lane-records run FILE... [--out DIR]",
        after_help = "Each record is written next to its scenario file unless --out names a folder. Every file \
is checked before any is written.

examples:
  lane-records run my-scenarios/deploy-waits.toml --out my-docs/records
  lane-records run my-scenarios/*.toml --out my-docs/records"
    )]
    Run {
        /// Scenario files
        #[arg(value_name = "FILE")]
        files: Vec<PathBuf>,
        /// Write the records into DIR (default: next to each scenario file)
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Write DIR/index.json for the records in DIR, with their titles and SHA-256
    #[command(
        override_usage = "lane-records index DIR [--order ID,ID,...]",
        after_help = "Every record in DIR is read, checked and replayed on the core first; JSON Schemas are \
skipped. Without --order, records are listed by file name.

examples:
  lane-records index my-docs/records
  lane-records index my-docs/records --order deploy-waits,busy-docs"
    )]
    Index {
        /// The folder of records
        #[arg(value_name = "DIR")]
        dir: PathBuf,
        /// The records' ids in display order, each record of DIR once
        #[arg(long, value_name = "ID,ID,...")]
        order: Option<String>,
    },
    /// Replay record files on the core; report the first mismatching step of each
    #[command(
        override_usage = "lane-records replay FILE... [--max-bytes BYTES] [--public-key FILE]",
        after_help = "Records of versions 1 and 2 (one JSON document, at most 16 MiB) and version 3 (JSON lines, \
read a line at a time, of any length up to --max-bytes) are read. Replay compares each step's \
answer (for versions 1 and 2, also the state saved after it), never times, callers or the window: \
for a record that has them, a line under its verdict says so, and another names the steps whose \
times are earlier than the step before or outside the window (the viewer's notes, word for word). \
A chained record's hash chain is recomputed (a step changed after it was chained makes the record \
unreadable at its line) and a line says what it proves: its links and root, and who signed its \
checkpoint; with --public-key, a record whose checkpoint that key did not sign is NOT PROVEN. \
Exit status 1 if any file is unreadable, does not replay or is not proven.

examples:
  lane-records replay my-docs/records/deploy-waits.json
  lane-records replay tonight.jsonl --max-bytes 1000000000
  lane-records replay export.jsonl --public-key ops.key.pub
  lane-records replay records/*.json"
    )]
    Replay {
        /// Record files (JSON, or JSON lines for version 3)
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
        /// Refuse a version 3 record larger than BYTES (default 268435456, 256 MiB, as the
        /// viewer)
        #[arg(long, value_name = "BYTES")]
        max_bytes: Option<u64>,
        /// Require each record to be chained and its checkpoint signed by this verifier key
        /// (a file, as `lanes-pg keygen` writes FILE.pub)
        #[arg(long, value_name = "FILE")]
        public_key: Option<PathBuf>,
    },
    /// Write each record's static picture (an HTML fragment, the timeline as SVG) or its whole
    /// <lane-viewer> element
    #[command(
        override_usage = "lane-records render FILE... [--html DIR] [--svg DIR] [--lang en|ja] [--element [DIR]]",
        after_help = "The pictures are drawn by the viewer's own code and need no script: DIR/<id>.html is \
the record (title, summary, timeline, every step, the final lanes; it says it is not yet verified); \
DIR/<id>.svg is the timeline alone, for a README or a slide. --element writes the element to paste \
into a page: <lane-viewer> holding the static picture and the record itself, every `<` in it written \
\\u003c so that no text of the record can end its script element (DIR/<id>.lane-viewer.html, or \
standard output without DIR). Every record is read, checked and replayed on the core first; \
nothing is written unless all are good.

examples:
  lane-records render records/busy-project.json --element
  lane-records render records/*.json --element docs/elements --lang ja
  lane-records render records/*.json --svg docs/img --lang ja"
    )]
    Render {
        /// Record files (JSON)
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
        /// Write DIR/<id>.html, each record's static HTML fragment
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
        /// Write DIR/<id>.svg, each record's timeline as a standalone SVG file
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
        /// The language of the pictures
        #[arg(long, value_enum, default_value_t = LangArg::En)]
        lang: LangArg,
        /// Write DIR/<id>.lane-viewer.html, each record's <lane-viewer> element with the record
        /// inside; without DIR, print the elements
        #[arg(long, value_name = "DIR", num_args = 0..=1)]
        element: Option<Option<PathBuf>>,
    },
    /// Compare two records: steps found in one only or answered differently, each project's
    /// holders, refused runs, hold times and the final lanes
    #[command(
        override_usage = "lane-records diff A B [--lang en|ja] [--json] [--svg FILE] [--hold-ratio R] [--hold-min-ms MS] [--max-bytes BYTES]",
        after_help = "Records of any version are read and replayed as `lane-records replay` reads them (a record \
that does not replay is still compared, and a line on standard error says so). Steps are aligned by \
what they ask (the operation, its project, run, queue, and the lease or reservation its handle names), \
so records that number their leases differently still align. Titles, notes, callers and times of steps \
are not compared; times only make holds that got much longer or shorter. The guide's chapter \
\"Comparing records\" describes every kind of difference.
Exit status as diff(1): 0 the same, 1 different, 2 trouble (a file unreadable, a mistake in the \
command line).

examples:
  lane-records diff records/busy-project.json my-copy.json
  lane-records diff last-night.jsonl tonight.jsonl --lang ja
  lane-records diff last-night.jsonl tonight.jsonl --json --hold-ratio 1.5
  lane-records diff before.json after.json --svg review/compared.svg"
    )]
    Diff {
        /// The first record (A)
        #[arg(value_name = "A")]
        a: PathBuf,
        /// The second record (B)
        #[arg(value_name = "B")]
        b: PathBuf,
        /// The language of the summary
        #[arg(long, value_enum, default_value_t = LangArg::En)]
        lang: LangArg,
        /// Write the whole comparison as JSON instead of a summary
        #[arg(long)]
        json: bool,
        /// Also write the comparison as a standalone SVG picture to FILE (for a README or a
        /// review)
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Report a hold of the same run at least R times longer or shorter in one record
        #[arg(long, value_name = "R", default_value_t = 2.0, value_parser = ratio)]
        hold_ratio: f64,
        /// ... and longer or shorter by at least MS milliseconds
        #[arg(long, value_name = "MS", default_value_t = 1_000)]
        hold_min_ms: u64,
        /// Refuse a version 3 record larger than BYTES (default 268435456, 256 MiB, as the
        /// viewer)
        #[arg(long, value_name = "BYTES")]
        max_bytes: Option<u64>,
    },
}

/// A ratio of at least 1, finite.
fn ratio(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && r >= 1.0 => Ok(r),
        _ => Err(format!(
            "{text:?} is not a ratio of at least 1 (e.g. 2 or 1.5)"
        )),
    }
}

/// `--lang`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum LangArg {
    En,
    Ja,
}

/// A line on standard output. Output that cannot be written (a closed pipe, a full disk) is a
/// failure, exit status 1 with its reason, never a panic as `println!` would make it.
macro_rules! say {
    ($($arg:tt)*) => {
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            return fail(&format!("cannot write the output: {e}"));
        }
    };
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.command.is_none() && !scenarios_dir().is_dir() {
        return fail(
            "with no command, lane-records regenerates the example records of a clone of \
             project-lanes (records/scenarios/), and this copy has none: run your own with \
             `lane-records run FILE... --out DIR` (see --help)",
        );
    }
    match cli.command {
        None if cli.check => check(&records_dir()),
        None => write_bundled(cli.out.as_deref().unwrap_or(&records_dir())),
        Some(Command::Run { files, out }) => {
            if files.is_empty() {
                usage_error(&["run"], "run: name at least one scenario file");
            }
            run(&files, out)
        }
        Some(Command::Index { dir, order }) => index(&dir, order.as_deref()),
        Some(Command::Replay {
            files,
            max_bytes,
            public_key,
        }) => replay(
            &files,
            max_bytes.unwrap_or(project_lanes::record::stream::DEFAULT_MAX_BYTES),
            public_key.as_deref(),
        ),
        Some(Command::Render {
            files,
            html,
            svg,
            lang,
            element,
        }) => {
            if html.is_none() && svg.is_none() && element.is_none() {
                usage_error(
                    &["render"],
                    "render: name --html DIR, --svg DIR, --element [DIR], or several",
                );
            }
            let lang = lang.into();
            let outputs = lane_records::render::Outputs {
                html: html.as_deref(),
                svg: svg.as_deref(),
                lang,
            };
            render(&files, &outputs, element.as_ref().map(Option::as_deref))
        }
        Some(Command::Diff {
            a,
            b,
            lang,
            json,
            svg,
            hold_ratio,
            hold_min_ms,
            max_bytes,
        }) => {
            let options = project_lanes::record::diff::Options {
                hold_ratio,
                hold_min_millis: hold_min_ms,
                ..Default::default()
            };
            let limit = max_bytes.unwrap_or(project_lanes::record::stream::DEFAULT_MAX_BYTES);
            let output = DiffOutput {
                lang: lang.into(),
                json,
                svg: svg.as_deref(),
            };
            diff([&a, &b], &output, &options, limit)
        }
    }
}

impl From<LangArg> for Lang {
    fn from(lang: LangArg) -> Lang {
        match lang {
            LangArg::En => Lang::En,
            LangArg::Ja => Lang::Ja,
        }
    }
}

/// What `diff` writes: a summary in `lang` or JSON, and an SVG picture.
struct DiffOutput<'a> {
    lang: Lang,
    json: bool,
    svg: Option<&'a Path>,
}

/// `diff`: exit status 0 the same, 1 different, 2 trouble.
fn diff(
    files: [&Path; 2],
    output: &DiffOutput,
    options: &project_lanes::record::diff::Options,
    limit: u64,
) -> ExitCode {
    let (lang, json) = (output.lang, output.json);
    let trouble = |message: &str| {
        eprintln!("lane-records: error: {message}");
        ExitCode::from(2)
    };
    let [mut sketch_a, mut sketch_b] = Sketch::pair();
    // The two files are read side by side, one on another thread.
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| lane_records::diff::read(files[0], limit, &mut sketch_a));
        let b = lane_records::diff::read(files[1], limit, &mut sketch_b);
        (joined(a.join()), b)
    });
    let (mut a, mut b) = match (a, b) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), Ok(_)) | (Ok(_), Err(e)) => return trouble(&e),
        (Err(ea), Err(eb)) => {
            eprintln!("lane-records: error: {ea}");
            return trouble(&eb);
        }
    };
    for (side, name) in [(&a, "A"), (&b, "B")] {
        if let Some(mismatch) = &side.mismatch {
            eprintln!(
                "lane-records: note: {name} ({}) does not replay on the core: {mismatch}",
                side.file
            );
        }
    }
    let plan = Plan::new(&sketch_a, &sketch_b, options);
    let [wanted_a, wanted_b] = plan.wanted();
    let fetched = std::thread::scope(|s| {
        let fetched_a = s.spawn(|| a.fetch(wanted_a, limit));
        let fetched_b = b.fetch(wanted_b, limit);
        joined(fetched_a.join()).and(fetched_b)
    });
    if let Err(e) = fetched {
        return trouble(&e);
    }
    let compared = plan.finish([&sketch_a, &sketch_b], [&|n| a.step(n), &|n| b.step(n)]);
    drop((sketch_a, sketch_b));
    let out = if json {
        lane_records::diff::json(&a, &b, &compared)
    } else {
        let lines = project_lanes_view::diff::lines(lang, [&a.file, &b.file], &a, &b, &compared);
        lines
            .iter()
            .flat_map(|l| [l.as_bytes(), b"\n"])
            .flatten()
            .copied()
            .collect()
    };
    if let Some(path) = output.svg
        && let Err(e) = lane_records::diff::write_svg(path, [&a, &b], &compared, lang)
    {
        return trouble(&e);
    }
    if let Err(e) = std::io::stdout().lock().write_all(&out) {
        return trouble(&format!("cannot write the output: {e}"));
    }
    if compared.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// What a thread gave, or that it panicked.
fn joined<T>(result: std::thread::Result<Result<T, String>>) -> Result<T, String> {
    result.unwrap_or_else(|_| Err("a reading thread panicked".to_owned()))
}

/// `element`: the elements too, into a folder or (`Some(None)`) onto standard output.
fn render(
    files: &[PathBuf],
    outputs: &lane_records::render::Outputs,
    element: Option<Option<&Path>>,
) -> ExitCode {
    let made = lane_records::render::render(files, outputs).and_then(|made| {
        let mut made: Vec<_> = made.into_iter().map(|(dir, f)| (Some(dir), f)).collect();
        if let Some(into) = element {
            let elements = lane_records::render::elements(files, outputs.lang)?;
            made.extend(
                elements
                    .into_iter()
                    .map(|e| (into.map(Path::to_path_buf), e)),
            );
        }
        Ok(made)
    });
    let made: Vec<(Option<PathBuf>, lane_records::OutputFile)> = match made {
        Ok(made) => made,
        Err(problems) => {
            eprintln!("{problems}");
            return fail(&format!(
                "{} of {} record files failed; nothing was written",
                problems.0.len(),
                files.len()
            ));
        }
    };
    let targets: Vec<(PathBuf, &lane_records::OutputFile)> = made
        .iter()
        .filter_map(|(dir, file)| Some((dir.clone()?, file)))
        .collect();
    if let Err(e) = write_files(&targets) {
        return fail(&format!("{e}; nothing was written"));
    }
    for (dir, file) in &made {
        match dir {
            Some(dir) => say!(
                "wrote {} ({} bytes)",
                dir.join(&file.name).display(),
                file.bytes.len()
            ),
            None => say!("{}", String::from_utf8_lossy(&file.bytes).trim_end()),
        }
    }
    ExitCode::SUCCESS
}

/// Exits with status 2 and clap's usage error for `subcommand` (empty: the tool itself).
fn usage_error(subcommand: &[&str], message: &str) -> ! {
    let mut command = Cli::command();
    let command = match subcommand {
        [name] => command
            .find_subcommand_mut(name)
            .map(|c| c.clone().bin_name(format!("lane-records {name}")))
            .unwrap_or(command),
        _ => command,
    };
    let mut command = command;
    command
        .error(ErrorKind::MissingRequiredArgument, message)
        .exit()
}

fn run(files: &[PathBuf], out: Option<PathBuf>) -> ExitCode {
    let made = match run_scenarios(files) {
        Ok(made) => made,
        Err(problems) => {
            eprintln!("{problems}");
            return fail(&format!(
                "{} of {} scenario files failed; nothing was written",
                problems.0.len(),
                files.len()
            ));
        }
    };
    let targets: Vec<(PathBuf, &lane_records::OutputFile)> = made
        .iter()
        .map(|m| {
            let dir = out.clone().unwrap_or_else(|| {
                m.scenario
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default()
            });
            (dir, &m.file)
        })
        .collect();
    if let Err(e) = write_files(&targets) {
        return fail(&format!("{e}; nothing was written"));
    }
    for ((dir, file), m) in targets.iter().zip(&made) {
        say!(
            "wrote {} ({} steps, {} bytes) from {}",
            dir.join(&file.name).display(),
            m.record.steps.len(),
            file.bytes.len(),
            m.scenario.display()
        );
    }
    ExitCode::SUCCESS
}

fn index(dir: &Path, order: Option<&str>) -> ExitCode {
    let order: Option<Vec<String>> = order.map(|list| {
        list.split(',')
            .map(|id| id.trim().to_string())
            .filter(|id| !id.is_empty())
            .collect()
    });
    let (index, skipped) = match index_dir(dir, order.as_deref()) {
        Ok(indexed) => indexed,
        Err(problems) => {
            eprintln!("{problems}");
            return fail(&format!(
                "{} was not written",
                dir.join(INDEX_FILE).display()
            ));
        }
    };
    if let Err(e) = write_files(&[(dir.to_path_buf(), &index)]) {
        return fail(&e);
    }
    let count = serde_json::from_slice::<serde_json::Value>(&index.bytes)
        .ok()
        .and_then(|v| v["records"].as_array().map(Vec::len))
        .unwrap_or_default();
    for path in skipped {
        say!("skipped {} (a JSON Schema, not a record)", path.display());
    }
    let noun = if count == 1 { "record" } else { "records" };
    say!("wrote {} ({count} {noun})", dir.join(INDEX_FILE).display());
    ExitCode::SUCCESS
}

fn write_bundled(dir: &Path) -> ExitCode {
    let files = match generate() {
        Ok(files) => files,
        Err(e) => return fail(&format!("a bundled scenario failed:\n{e}")),
    };
    let targets: Vec<(PathBuf, &lane_records::OutputFile)> =
        files.iter().map(|f| (dir.to_path_buf(), f)).collect();
    if let Err(e) = write_files(&targets) {
        return fail(&format!("{e}; nothing was written"));
    }
    for file in &files {
        say!(
            "wrote {} ({} bytes)",
            dir.join(&file.name).display(),
            file.bytes.len()
        );
    }
    ExitCode::SUCCESS
}

fn check(dir: &Path) -> ExitCode {
    let files = match generate() {
        Ok(files) => files,
        Err(e) => return fail(&format!("a bundled scenario failed:\n{e}")),
    };
    let differences = compare(dir, &files);
    let unreplayed = check_recorded(dir);
    for (recorded, why) in &unreplayed {
        eprintln!(
            "{}: {why}\nmake it again with `{}` and copy its record there",
            dir.join(recorded.file).display(),
            recorded.made_by
        );
    }
    if differences.is_empty() && unreplayed.is_empty() {
        say!(
            "records are up to date: {} files in {} match a fresh generation, and the records \
             made by a running system ({}) replay",
            files.len(),
            dir.display(),
            RECORDED.len()
        );
        return ExitCode::SUCCESS;
    }
    for difference in &differences {
        eprintln!(
            "{} differs from a fresh generation:\n{}",
            difference.name, difference.diff
        );
    }
    if differences.is_empty() {
        return fail(&format!(
            "{} of {} recorded files do not replay on this core",
            unreplayed.len(),
            RECORDED.len()
        ));
    }
    fail(&format!(
        "{} of {} record files are out of date; run `cargo run -p lane-records` and commit the result",
        differences.len(),
        files.len()
    ))
}

fn replay(files: &[PathBuf], limit: u64, public_key: Option<&Path>) -> ExitCode {
    let key = match public_key.map(read_verifier).transpose() {
        Ok(key) => key,
        Err(e) => return fail(&e),
    };
    let mut failed = 0;
    for path in files {
        let file = path.display();
        let (report, notes, chain) = replay_file_proving(path, limit);
        match report {
            ReplayReport::Matched(steps) => match key.as_ref().map(|k| signed_by(&chain, k)) {
                Some(Err(why)) => {
                    failed += 1;
                    say!("{file}: NOT PROVEN: all {steps} steps matched the core, but {why}");
                }
                _ => say!("{file}: ok, all {steps} steps matched the core"),
            },
            ReplayReport::Unreadable(e) => {
                failed += 1;
                say!("{file}: unreadable: {e} ({})", e.code());
            }
            ReplayReport::Mismatch(m) => {
                failed += 1;
                say!("{file}: MISMATCH at {}", describe_mismatch(&m));
            }
            ReplayReport::StepMismatch(m) => {
                failed += 1;
                say!("{file}: MISMATCH at {}", describe_step_mismatch(&m));
            }
        }
        // What replay did not check (times, callers, the window) and the times that stand
        // out: the viewer's notes for this file, word for word.
        for line in notes {
            say!("  {line}");
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        fail(&format!("{failed} of {} files did not replay", files.len()))
    }
}

/// A verifier key from its file (`lanes-pg keygen`'s FILE.pub).
fn read_verifier(path: &Path) -> Result<VerifierKey, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(text)
        .map_err(|_| format!("{}: not a verifier key (not UTF-8)", path.display()))?;
    VerifierKey::parse(text.trim_end()).map_err(|e| format!("{}: {e}", path.display()))
}

/// Whether `chain` ends in a checkpoint signed by `key`, or why not.
fn signed_by(chain: &stream::Chain, key: &VerifierKey) -> Result<(), String> {
    let stream::Chain::Chained(chained) = chain else {
        return Err("it has no hash chain".to_owned());
    };
    let Some(checkpoint) = &chained.checkpoint else {
        return Err("it carries no checkpoint".to_owned());
    };
    let wanted = key.fingerprint();
    match &checkpoint.signer {
        Some(signer) if *signer == wanted => Ok(()),
        Some(signer) => Err(format!(
            "its checkpoint is signed by {signer}, not {wanted}"
        )),
        None => Err(format!("its checkpoint is not signed by {wanted}")),
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("lane-records: error: {message}");
    ExitCode::FAILURE
}
