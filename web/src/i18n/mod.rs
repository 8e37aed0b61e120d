//! Every string the viewer shows, in English and Japanese.
//!
//! Japanese terms follow `GLOSSARY.md` beside this file. Both languages are matched exhaustively,
//! so a message without a translation does not compile; a test checks none is empty.

use project_lanes::dispatch::{DispatchError, ReservationState};
use project_lanes::record::Op;
use project_lanes::{LaneError, LaneState, Outcome};

// The timeline's own messages, in their own file.
pub mod timeline;

/// A display language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English.
    En,
    /// Japanese.
    Ja,
}

impl Lang {
    /// Both languages, in switcher order.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ja];

    /// The BCP 47 tag: `en` or `ja`.
    pub fn tag(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ja => "ja",
        }
    }

    /// `en` or `ja` exactly; nothing else.
    pub fn from_tag(tag: &str) -> Option<Lang> {
        match tag {
            "en" => Some(Lang::En),
            "ja" => Some(Lang::Ja),
            _ => None,
        }
    }

    /// The language of a browser preference such as `ja-JP` or `en-GB`, if it is one of ours.
    pub fn from_preference(tag: &str) -> Option<Lang> {
        let primary = tag.split(['-', '_']).next()?.to_ascii_lowercase();
        Lang::from_tag(&primary)
    }

    /// The language's own name, for the switcher.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Ja => "日本語",
        }
    }
}

/// The viewer's messages. Variants are the keys of the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Msg {
    ViewerLabel,
    RecordsLabel,
    LanguageLabel,
    Loading,
    NothingExecuted,
    StepsHeading,
    StepLabel,
    LanesAfterStep,
    FinalLanesHeading,
    ProjectColumn,
    StateColumn,
    RunColumn,
    Idle,
    Untouched,
    UntouchedExplained,
    Accepted,
    Refused,
    Inputs,
    Response,
    LeaseIssued,
    ViewReturned,
    ReceiptReturned,
    StopRequestedYes,
    StopRequestedNo,
    WorkExecutedNo,
    RawJson,
    Download,
    QueuesLabel,
    ReservationsAfterStep,
    ReservationEntered,
    JobDispatched,
    NothingDispatched,
    SavingFinalState,
    SettledSaved,
    SettledSaveFailed,
    Labelled,
    Exact,
    LabelQueue,
    LabelProject,
    LabelRun,
    LabelState,
    LabelOutcome,
    OpenRecords,
    OpenNote,
    TabFailed,
    Verifying,
    Verified,
    VerifiedOne,
    MismatchStep,
    MismatchFinal,
    SavedVsCore,
    LaneSavedVsCore,
    ReservationSavedVsCore,
    InvalidLine,
    Op(Op),
    State(LaneState),
    Outcome(Outcome),
    LaneError(LaneError),
    Dispatch(DispatchError),
    Reservation(ReservationState),
    Viewer(ViewerError),
}

/// Errors of the viewer itself: what went wrong loading or reading files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewerError {
    /// The index could not be fetched.
    IndexUnavailable,
    /// A record could not be fetched.
    RecordUnavailable,
    /// A file is not JSON (or not UTF-8).
    InvalidJson,
    /// A file is not a project-lanes record or index.
    UnknownFormat,
    /// A file has a format version this build cannot read.
    UnsupportedVersion,
    /// A record's SHA-256 differs from the index.
    HashMismatch,
    /// A record or index breaks the format.
    InvalidRecord,
    /// A record file is over the size limit.
    RecordTooLarge,
    /// An id (from `select`, the `record` option or the deep link) names no record in the index.
    UnknownRecord,
    /// The index breaks the index format (too many entries, a repeated id, a bad entry).
    InvalidIndex,
    /// The index lists no records.
    EmptyIndex,
    /// The index file is over the size limit.
    IndexTooLarge,
    /// An opened record has the id of a record already shown.
    DuplicateRecord,
    /// A step's saved result or snapshot differs from what the core returns on replay.
    ReplayMismatch,
}

impl ViewerError {
    /// Every viewer error.
    pub const ALL: [ViewerError; 14] = [
        ViewerError::IndexUnavailable,
        ViewerError::RecordUnavailable,
        ViewerError::InvalidJson,
        ViewerError::UnknownFormat,
        ViewerError::UnsupportedVersion,
        ViewerError::HashMismatch,
        ViewerError::InvalidRecord,
        ViewerError::RecordTooLarge,
        ViewerError::UnknownRecord,
        ViewerError::InvalidIndex,
        ViewerError::EmptyIndex,
        ViewerError::IndexTooLarge,
        ViewerError::DuplicateRecord,
        ViewerError::ReplayMismatch,
    ];

    /// The stable code shown verbatim and used in `data-viewer-error`.
    pub fn code(self) -> &'static str {
        match self {
            ViewerError::IndexUnavailable => "INDEX_UNAVAILABLE",
            ViewerError::RecordUnavailable => "RECORD_UNAVAILABLE",
            ViewerError::InvalidJson => "INVALID_JSON",
            ViewerError::UnknownFormat => "UNKNOWN_FORMAT",
            ViewerError::UnsupportedVersion => "UNSUPPORTED_VERSION",
            ViewerError::HashMismatch => "HASH_MISMATCH",
            ViewerError::InvalidRecord => "INVALID_RECORD",
            ViewerError::RecordTooLarge => "RECORD_TOO_LARGE",
            ViewerError::UnknownRecord => "UNKNOWN_RECORD",
            ViewerError::InvalidIndex => "INVALID_INDEX",
            ViewerError::EmptyIndex => "EMPTY_INDEX",
            ViewerError::IndexTooLarge => "INDEX_TOO_LARGE",
            ViewerError::DuplicateRecord => "DUPLICATE_RECORD",
            ViewerError::ReplayMismatch => "REPLAY_MISMATCH",
        }
    }
}

/// Every message, for the completeness test.
pub fn all_messages() -> Vec<Msg> {
    use Msg::*;
    let mut all = vec![
        ViewerLabel,
        RecordsLabel,
        LanguageLabel,
        Loading,
        NothingExecuted,
        StepsHeading,
        StepLabel,
        LanesAfterStep,
        FinalLanesHeading,
        ProjectColumn,
        StateColumn,
        RunColumn,
        Idle,
        Untouched,
        UntouchedExplained,
        Accepted,
        Refused,
        Inputs,
        Response,
        LeaseIssued,
        ViewReturned,
        ReceiptReturned,
        StopRequestedYes,
        StopRequestedNo,
        WorkExecutedNo,
        RawJson,
        Download,
        QueuesLabel,
        ReservationsAfterStep,
        ReservationEntered,
        JobDispatched,
        NothingDispatched,
        SavingFinalState,
        SettledSaved,
        SettledSaveFailed,
        Labelled,
        Exact,
        LabelQueue,
        LabelProject,
        LabelRun,
        LabelState,
        LabelOutcome,
        OpenRecords,
        OpenNote,
        TabFailed,
        Verifying,
        Verified,
        VerifiedOne,
        MismatchStep,
        MismatchFinal,
        SavedVsCore,
        LaneSavedVsCore,
        ReservationSavedVsCore,
        InvalidLine,
    ];
    all.extend(project_lanes::record::Op::ALL.map(Msg::Op));
    all.extend([LaneState::Running, LaneState::StopRequested].map(Msg::State));
    all.extend(project_lanes::Outcome::ALL.map(Msg::Outcome));
    all.extend(project_lanes::LaneError::ALL.map(Msg::LaneError));
    all.extend(DispatchError::OWN.map(Msg::Dispatch));
    all.extend(ReservationState::ALL.map(Msg::Reservation));
    all.extend(ViewerError::ALL.map(Msg::Viewer));
    all
}

/// The text of `msg` in `lang`. `{}` marks where a value is inserted (see [`fill`]).
pub fn text(lang: Lang, msg: Msg) -> &'static str {
    match lang {
        Lang::En => en(msg),
        Lang::Ja => ja(msg),
    }
}

/// Replaces each `{}` in a message with the next of `values`, in order (values are never
/// searched for placeholders themselves).
pub fn fill_all(template: &str, values: &[&str]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.len()).sum::<usize>());
    let mut rest = template;
    for value in values {
        let Some(at) = rest.find('{') else { break };
        let (Some(head), Some(tail)) = (rest.get(..at), rest.get(at..)) else {
            break;
        };
        if !tail.starts_with("{}") {
            break;
        }
        out.push_str(head);
        out.push_str(value);
        rest = tail.get(2..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// `n` with its digits grouped by three (`10,000`), as both languages write counts.
pub fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// Replaces the first `{}` in a message with `value`.
pub fn fill(template: &str, value: &str) -> String {
    // A char search: a `&str` pattern links a substring searcher the wasm has no other use for.
    // `get` rather than indexing, so no slicing panic (and its formatting code) is linked.
    let parts = template
        .find('{')
        .and_then(|at| Some((template.get(..at)?, template.get(at..)?)));
    match parts {
        Some((head, tail)) if tail.starts_with("{}") => {
            let mut out = String::with_capacity(template.len() + value.len());
            out.push_str(head);
            out.push_str(value);
            out.push_str(tail.get(2..).unwrap_or_default());
            out
        }
        _ => template.to_string(),
    }
}

fn en(msg: Msg) -> &'static str {
    use Msg::*;
    match msg {
        ViewerLabel => "Project lanes: saved records",
        RecordsLabel => "Records",
        LanguageLabel => "Language",
        Loading => "Loading records…",
        NothingExecuted => {
            "Nothing was executed here. This viewer shows saved records of lane metadata; it runs no work and does not drive the lanes."
        }
        StepsHeading => "Steps",
        StepLabel => "Step {}",
        LanesAfterStep => "Lanes after this step",
        FinalLanesHeading => "Lanes after the last step",
        ProjectColumn => "Project",
        StateColumn => "State",
        RunColumn => "Run",
        Idle => "idle",
        Untouched => "untouched",
        UntouchedExplained => "{} is untouched: no step claims it, and it stays idle throughout.",
        Accepted => "accepted",
        Refused => "refused",
        Inputs => "Inputs",
        Response => "Response",
        LeaseIssued => "lease {} issued",
        ViewReturned => "lane view",
        ReceiptReturned => "receipt",
        StopRequestedYes => "a stop was requested",
        StopRequestedNo => "no stop was requested",
        WorkExecutedNo => "no work was executed by the lanes",
        RawJson => "Raw JSON of this record",
        Download => "Download {}",
        QueuesLabel => "Queues: {}",
        ReservationsAfterStep => "Reservations after this step",
        ReservationEntered => "reservation {}",
        JobDispatched => "{} given the lane",
        NothingDispatched => "no reservation can start · waiting in this queue: {}",
        SavingFinalState => "saving the final state of {}; the lane stays held",
        SettledSaved => "{} saved, lane released",
        SettledSaveFailed => "saving {} failed, lane released",
        Labelled => "{}: {}",
        Exact => "{} ({})",
        LabelQueue => "queue",
        LabelProject => "project",
        LabelRun => "run",
        LabelState => "state",
        LabelOutcome => "outcome",
        OpenRecords => "Open records…",
        OpenNote => {
            "Open or drop record files (.json) to view them: they are read in this browser and never uploaded."
        }
        TabFailed => "(could not be shown)",
        Verifying => "Replaying on the core in this browser: {} of {} steps match so far…",
        Verified => "Replayed on the core in this browser: all {} steps match",
        VerifiedOne => "Replayed on the core in this browser: its {} step matches",
        MismatchStep => "Step {} ({}) does not match the core:",
        MismatchFinal => "The lanes after the last step do not match the core:",
        SavedVsCore => "saved {}, the core returns {}",
        LaneSavedVsCore => "lane {}: saved {}, the core shows {}",
        ReservationSavedVsCore => "reservation {}: saved {}, the core shows {}",
        InvalidLine => "This record breaks the record format, so it was not replayed:",
        Op(op) => match op {
            project_lanes::record::Op::Claim => "claim",
            project_lanes::record::Op::RequestStop => "request stop",
            project_lanes::record::Op::Release => "release",
            project_lanes::record::Op::View => "view",
            project_lanes::record::Op::Enqueue => "enqueue",
            project_lanes::record::Op::Dispatch => "dispatch",
            project_lanes::record::Op::Finish => "work returned",
            project_lanes::record::Op::Persist => "save reported",
            project_lanes::record::Op::Cancel => "cancel",
            project_lanes::record::Op::Resolve => "resolve",
        },
        State(state) => match state {
            LaneState::Running => "running",
            LaneState::StopRequested => "stop requested",
        },
        Outcome(outcome) => match outcome {
            project_lanes::Outcome::Succeeded => "succeeded",
            project_lanes::Outcome::Failed => "failed",
            project_lanes::Outcome::Cancelled => "cancelled",
            project_lanes::Outcome::NeedsReview => "needs review",
        },
        LaneError(error) => match error {
            project_lanes::LaneError::InvalidLabel => {
                "A project or run label breaks the rule: 1 to 80 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit."
            }
            project_lanes::LaneError::ProjectBusy => {
                "Another run holds this project's lane. Nothing was queued; the caller decides what to do next."
            }
            project_lanes::LaneError::InvalidLease => {
                "The value given is not a lease issued by the lanes."
            }
            project_lanes::LaneError::LeaseNotCurrent => {
                "This lease no longer holds its project's lane (it was released, or the project was claimed again), so nothing changed."
            }
            project_lanes::LaneError::InvalidOutcome => {
                "The outcome must be succeeded, failed, cancelled or needs_review. It never reached the lane, which stays occupied."
            }
        },
        Dispatch(error) => match error {
            DispatchError::Lane(e) => en(LaneError(e)),
            DispatchError::UnknownQueue => "No queue has this name.",
            DispatchError::UnknownReservation => "No reservation has this id.",
            DispatchError::NotQueued => {
                "Only a waiting reservation can be cancelled; this one was already given its lane."
            }
            DispatchError::NotDispatched => "Only a dispatched reservation can finish its work.",
            DispatchError::NotPersisting => {
                "Only a reservation whose final state is being saved can report its save; a repeated or late report changes nothing."
            }
            DispatchError::NotUnresolved => "Only an unresolved reservation can be resolved.",
        },
        Reservation(state) => match state {
            ReservationState::Queued => "waiting",
            ReservationState::Dispatched => "dispatched",
            ReservationState::Persisting => "saving",
            ReservationState::Done => "done",
            ReservationState::Cancelled => "cancelled",
            ReservationState::Unresolved => "unresolved",
            ReservationState::Resolved => "resolved",
        },
        Viewer(error) => match error {
            ViewerError::IndexUnavailable => "The list of records could not be loaded.",
            ViewerError::RecordUnavailable => "This record's file could not be loaded.",
            ViewerError::InvalidJson => "The file is not valid JSON.",
            ViewerError::UnknownFormat => "The file is not a project-lanes record.",
            ViewerError::UnsupportedVersion => {
                "The file uses a format version this viewer cannot read."
            }
            ViewerError::HashMismatch => {
                "The file's SHA-256 does not match the index, so it is not shown."
            }
            ViewerError::InvalidRecord => "The record does not follow the record format.",
            ViewerError::RecordTooLarge => "The record file is too large to show.",
            ViewerError::UnknownRecord => "No record with this id is in the index.",
            ViewerError::InvalidIndex => "The index of records does not follow the index format.",
            ViewerError::EmptyIndex => "The index lists no records.",
            ViewerError::IndexTooLarge => "The index file is too large to read.",
            ViewerError::DuplicateRecord => "A record with this id is already shown.",
            ViewerError::ReplayMismatch => "The saved record does not match the core.",
        },
    }
}

fn ja(msg: Msg) -> &'static str {
    use Msg::*;
    match msg {
        ViewerLabel => "プロジェクトレーン：保存された記録",
        RecordsLabel => "記録",
        LanguageLabel => "言語",
        Loading => "記録を読み込んでいます…",
        NothingExecuted => {
            "ここでは何も実行されていません。このビューアは保存されたレーンのメタデータの記録を表示するだけで、処理を実行したりレーンを操作したりはしません。"
        }
        StepsHeading => "ステップ",
        StepLabel => "ステップ {}",
        LanesAfterStep => "このステップ後のレーン",
        FinalLanesHeading => "最後のステップ後のレーン",
        ProjectColumn => "プロジェクト",
        StateColumn => "状態",
        RunColumn => "実行",
        Idle => "空き",
        Untouched => "手つかず",
        UntouchedExplained => "{} はどのステップでも取得されず、最初から最後まで空きのままです。",
        Accepted => "受理",
        Refused => "拒否",
        Inputs => "入力",
        Response => "応答",
        LeaseIssued => "リース {} を発行",
        ViewReturned => "レーンの状態",
        ReceiptReturned => "受領証",
        StopRequestedYes => "停止要求あり",
        StopRequestedNo => "停止要求なし",
        WorkExecutedNo => "レーンは処理を実行していません",
        RawJson => "この記録の JSON",
        Download => "{} をダウンロード",
        QueuesLabel => "キュー：{}",
        ReservationsAfterStep => "このステップ後の予約",
        ReservationEntered => "予約 {}",
        JobDispatched => "{} にレーンを割り当て",
        NothingDispatched => "開始できる予約はありません · このキューで待機中の予約：{} 件",
        SavingFinalState => "{} の最終状態を保存中。レーンは使用中のまま",
        SettledSaved => "{} を保存、レーンを解放",
        SettledSaveFailed => "{} の保存に失敗、レーンを解放",
        Labelled => "{}：{}",
        Exact => "{}（{}）",
        LabelQueue => "キュー",
        LabelProject => "プロジェクト",
        LabelRun => "実行",
        LabelState => "状態",
        LabelOutcome => "結果",
        OpenRecords => "記録を開く…",
        OpenNote => {
            "記録ファイル（.json）を開くかここにドロップすると表示できます。ファイルはこのブラウザの中で読み込まれ、アップロードされません。"
        }
        TabFailed => "（表示できません）",
        Verifying => "このブラウザ上のコアで再生しています：{} / {} ステップが一致…",
        Verified => "このブラウザ上のコアで再生しました：全 {} ステップが一致します",
        VerifiedOne => "このブラウザ上のコアで再生しました：{} ステップが一致します",
        MismatchStep => "ステップ {}（{}）がコアと一致しません：",
        MismatchFinal => "最後のステップ後のレーンがコアと一致しません：",
        SavedVsCore => "保存された応答は {}、コアの応答は {}",
        LaneSavedVsCore => "レーン {}：保存された状態は {}、コアでは {}",
        ReservationSavedVsCore => "予約 {}：保存された状態は {}、コアでは {}",
        InvalidLine => "この記録は形式の規則に合っていないため、再生していません：",
        Op(op) => match op {
            project_lanes::record::Op::Claim => "取得",
            project_lanes::record::Op::RequestStop => "停止要求",
            project_lanes::record::Op::Release => "解放",
            project_lanes::record::Op::View => "状態確認",
            project_lanes::record::Op::Enqueue => "登録",
            project_lanes::record::Op::Dispatch => "割り当て",
            project_lanes::record::Op::Finish => "作業の終了",
            project_lanes::record::Op::Persist => "保存結果の報告",
            project_lanes::record::Op::Cancel => "取り消し",
            project_lanes::record::Op::Resolve => "解決",
        },
        State(state) => match state {
            LaneState::Running => "実行中",
            LaneState::StopRequested => "停止要求済み",
        },
        Outcome(outcome) => match outcome {
            project_lanes::Outcome::Succeeded => "成功",
            project_lanes::Outcome::Failed => "失敗",
            project_lanes::Outcome::Cancelled => "取り消し",
            project_lanes::Outcome::NeedsReview => "要確認",
        },
        LaneError(error) => match error {
            project_lanes::LaneError::InvalidLabel => {
                "プロジェクトまたは実行のラベルが規則に合いません。半角英数字と「.」「_」「-」からなる1〜80文字で、先頭は半角英数字である必要があります。"
            }
            project_lanes::LaneError::ProjectBusy => {
                "このプロジェクトのレーンは別の実行が保持しています。キューには入らず、次の対応は呼び出し側が決めます。"
            }
            project_lanes::LaneError::InvalidLease => {
                "渡された値はレーンが発行したリースではありません。"
            }
            project_lanes::LaneError::LeaseNotCurrent => {
                "このリースはもうレーンを保持していません（解放済みか、別の実行がプロジェクトを取得し直しています）。何も変更されていません。"
            }
            project_lanes::LaneError::InvalidOutcome => {
                "結果は succeeded・failed・cancelled・needs_review のいずれかでなければなりません。この要求は受け付けられず、レーンは使用中のままです。"
            }
        },
        Dispatch(error) => match error {
            DispatchError::Lane(e) => ja(LaneError(e)),
            DispatchError::UnknownQueue => "この名前のキューはありません。",
            DispatchError::UnknownReservation => "この ID の予約はありません。",
            DispatchError::NotQueued => {
                "取り消せるのは待機中の予約だけです。この予約にはすでにレーンが割り当てられています。"
            }
            DispatchError::NotDispatched => "作業を終了できるのは割り当て済みの予約だけです。",
            DispatchError::NotPersisting => {
                "保存結果を報告できるのは最終状態を保存中の予約だけです。重複した報告や遅れた報告では何も変わりません。"
            }
            DispatchError::NotUnresolved => "解決できるのは未解決の予約だけです。",
        },
        Reservation(state) => match state {
            ReservationState::Queued => "待機中",
            ReservationState::Dispatched => "割り当て済み",
            ReservationState::Persisting => "保存中",
            ReservationState::Done => "完了",
            ReservationState::Cancelled => "取り消し済み",
            ReservationState::Unresolved => "未解決",
            ReservationState::Resolved => "解決済み",
        },
        Viewer(error) => match error {
            ViewerError::IndexUnavailable => "記録の一覧を読み込めませんでした。",
            ViewerError::RecordUnavailable => "この記録のファイルを読み込めませんでした。",
            ViewerError::InvalidJson => "ファイルが正しい JSON ではありません。",
            ViewerError::UnknownFormat => "project-lanes の記録ファイルではありません。",
            ViewerError::UnsupportedVersion => {
                "このビューアでは読めない形式バージョンのファイルです。"
            }
            ViewerError::HashMismatch => {
                "ファイルの SHA-256 が一覧の値と一致しないため、表示していません。"
            }
            ViewerError::InvalidRecord => "記録の形式に合っていません。",
            ViewerError::RecordTooLarge => "記録ファイルが大きすぎるため表示できません。",
            ViewerError::UnknownRecord => "この ID の記録は一覧にありません。",
            ViewerError::InvalidIndex => "記録の一覧が所定の形式に合っていません。",
            ViewerError::EmptyIndex => "記録の一覧に記録がありません。",
            ViewerError::IndexTooLarge => "記録の一覧のファイルが大きすぎるため読み込めません。",
            ViewerError::DuplicateRecord => "この ID の記録はすでに表示されています。",
            ViewerError::ReplayMismatch => "保存された記録がコアと一致しません。",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_exists_in_both_languages() {
        let all = all_messages();
        assert_eq!(all.len(), 54 + 10 + 2 + 4 + 5 + 6 + 7 + 14);
        for msg in all {
            let (en, ja) = (text(Lang::En, msg), text(Lang::Ja, msg));
            assert!(!en.trim().is_empty() && !ja.trim().is_empty(), "{msg:?}");
            assert_ne!(en, ja, "{msg:?} is not translated");
            // Japanese text is written in Japanese: it has kana or kanji, except the two
            // templates of punctuation alone (`{}：{}`, `{}（{}）`).
            assert!(
                matches!(msg, Msg::Labelled | Msg::Exact)
                    || ja.chars().any(|c| ('\u{3040}'..='\u{30ff}').contains(&c)
                        || ('\u{4e00}'..='\u{9fff}').contains(&c)),
                "{msg:?}: {ja}"
            );
            assert_eq!(
                en.matches("{}").count(),
                ja.matches("{}").count(),
                "{msg:?}"
            );
        }
    }

    #[test]
    fn label_colons_follow_each_language() {
        // Japanese text uses the full-width colon, like the timeline's legend (レーン：).
        assert_eq!(
            fill(text(Lang::Ja, Msg::QueuesLabel), "a, b"),
            "キュー：a, b"
        );
        assert_eq!(
            fill(text(Lang::En, Msg::QueuesLabel), "a, b"),
            "Queues: a, b"
        );
    }

    #[test]
    fn counts_are_grouped_by_three_digits() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(1_000), "1,000");
        assert_eq!(group(10_000), "10,000");
        assert_eq!(group(1_234_567), "1,234,567");
    }

    #[test]
    fn fill_replaces_the_first_placeholder_only() {
        assert_eq!(fill("Step {}", "3"), "Step 3");
        assert_eq!(fill("{} をダウンロード", "a.json"), "a.json をダウンロード");
        assert_eq!(fill("no placeholder", "x"), "no placeholder");
        assert_eq!(fill("{} and {}", "a"), "a and {}");
    }

    #[test]
    fn fill_all_fills_in_order_and_never_inside_values() {
        assert_eq!(
            fill_all("Step {} ({})", &["4", "release"]),
            "Step 4 (release)"
        );
        assert_eq!(fill_all("{} / {}", &["{}", "x"]), "{} / x");
        assert_eq!(fill_all("{} and {}", &["a"]), "a and {}");
    }

    #[test]
    fn languages_come_from_exact_tags_or_browser_preferences() {
        assert_eq!(Lang::from_tag("ja"), Some(Lang::Ja));
        assert_eq!(Lang::from_tag("JA"), None);
        assert_eq!(Lang::from_preference("ja-JP"), Some(Lang::Ja));
        assert_eq!(Lang::from_preference("en_GB"), Some(Lang::En));
        assert_eq!(Lang::from_preference("fr-FR"), None);
    }

    #[test]
    fn viewer_error_codes_are_distinct_from_lane_codes() {
        for v in ViewerError::ALL {
            assert!(LaneError::from_code(v.code()).is_none());
        }
    }
}
