//! The domain's words in both languages: the operations, the lane and reservation states, the
//! outcomes, and what every error code means (the core's and the viewer's own). Each kind is
//! matched exhaustively in both languages, so a new operation or code does not compile without
//! its words; [`Term::all`] lists every one for the completeness tests.

use project_lanes::dispatch::{DispatchError, ReservationState};
use project_lanes::record::Op;
use project_lanes::{LaneError, LaneState, Outcome};

use super::{Lang, Message};
use crate::error::ViewerError;

/// A word of the domain: what an operation, a state, an outcome or an error code is called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// A record's operation (`claim`, `dispatch`, …).
    Op(Op),
    /// A held lane's state.
    State(LaneState),
    /// A run's outcome.
    Outcome(Outcome),
    /// An error code of the lanes.
    LaneError(LaneError),
    /// An error code of the dispatcher.
    Dispatch(DispatchError),
    /// A reservation's state.
    Reservation(ReservationState),
    /// An error code of the viewer's own.
    Viewer(ViewerError),
}

impl Term {
    /// Every term, from the kinds' own lists.
    pub fn all() -> Vec<Term> {
        let mut all: Vec<Term> = Op::ALL.map(Term::Op).to_vec();
        all.extend(LANE_STATES.map(Term::State));
        all.extend(Outcome::ALL.map(Term::Outcome));
        all.extend(LaneError::ALL.map(Term::LaneError));
        all.extend(DispatchError::OWN.map(Term::Dispatch));
        all.extend(ReservationState::ALL.map(Term::Reservation));
        all.extend(ViewerError::ALL.map(Term::Viewer));
        all
    }
}

/// Every state a held lane can be in. The core keeps no list of them: the match below does not
/// compile without a new state, which belongs in this list too.
const LANE_STATES: [LaneState; 2] = {
    const fn listed(state: LaneState) -> usize {
        match state {
            LaneState::Running => 0,
            LaneState::StopRequested => 1,
        }
    }
    let all = [LaneState::Running, LaneState::StopRequested];
    assert!(listed(all[0]) == 0 && listed(all[1]) == 1);
    all
};

impl Message for Term {
    fn text(self, lang: Lang) -> &'static str {
        match lang {
            Lang::En => en(self),
            Lang::Ja => ja(self),
        }
    }
}

fn en(term: Term) -> &'static str {
    match term {
        Term::Op(op) => match op {
            Op::Claim => "claim",
            Op::RequestStop => "request stop",
            Op::Release => "release",
            Op::View => "view",
            Op::Enqueue => "enqueue",
            Op::Dispatch => "dispatch",
            Op::Finish => "work returned",
            Op::Persist => "save reported",
            Op::Cancel => "cancel",
            Op::Resolve => "resolve",
        },
        Term::State(state) => match state {
            LaneState::Running => "running",
            LaneState::StopRequested => "stop requested",
        },
        Term::Outcome(outcome) => match outcome {
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Cancelled => "cancelled",
            Outcome::NeedsReview => "needs review",
        },
        Term::LaneError(error) => match error {
            LaneError::InvalidLabel => {
                "A project or run label breaks the rule: 1 to 80 ASCII letters, digits, '.', '_' or '-', starting with a letter or digit."
            }
            LaneError::ProjectBusy => {
                "Another run holds this project's lane. Nothing was queued; the caller decides what to do next."
            }
            LaneError::InvalidLease => "The value given is not a lease issued by the lanes.",
            LaneError::LeaseNotCurrent => {
                "This lease no longer holds its project's lane (it was released, or the project was claimed again), so nothing changed."
            }
            LaneError::InvalidOutcome => {
                "The outcome must be succeeded, failed, cancelled or needs_review. It never reached the lane, which stays occupied."
            }
        },
        Term::Dispatch(error) => match error {
            DispatchError::Lane(e) => en(Term::LaneError(e)),
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
        Term::Reservation(state) => match state {
            ReservationState::Queued => "waiting",
            ReservationState::Dispatched => "dispatched",
            ReservationState::Persisting => "saving",
            ReservationState::Done => "done",
            ReservationState::Cancelled => "cancelled",
            ReservationState::Unresolved => "unresolved",
            ReservationState::Resolved => "resolved",
        },
        Term::Viewer(error) => match error {
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

fn ja(term: Term) -> &'static str {
    match term {
        Term::Op(op) => match op {
            Op::Claim => "取得",
            Op::RequestStop => "停止要求",
            Op::Release => "解放",
            Op::View => "状態確認",
            Op::Enqueue => "登録",
            Op::Dispatch => "割り当て",
            Op::Finish => "作業の終了",
            Op::Persist => "保存結果の報告",
            Op::Cancel => "取り消し",
            Op::Resolve => "解決",
        },
        Term::State(state) => match state {
            LaneState::Running => "実行中",
            LaneState::StopRequested => "停止要求済み",
        },
        Term::Outcome(outcome) => match outcome {
            Outcome::Succeeded => "成功",
            Outcome::Failed => "失敗",
            Outcome::Cancelled => "取り消し",
            Outcome::NeedsReview => "要確認",
        },
        Term::LaneError(error) => match error {
            LaneError::InvalidLabel => {
                "プロジェクトまたは実行のラベルが規則に合いません。半角英数字と「.」「_」「-」からなる1〜80文字で、先頭は半角英数字である必要があります。"
            }
            LaneError::ProjectBusy => {
                "このプロジェクトのレーンは別の実行が保持しています。キューには入らず、次の対応は呼び出し側が決めます。"
            }
            LaneError::InvalidLease => "渡された値はレーンが発行したリースではありません。",
            LaneError::LeaseNotCurrent => {
                "このリースはもうレーンを保持していません（解放済みか、別の実行がプロジェクトを取得し直しています）。何も変更されていません。"
            }
            LaneError::InvalidOutcome => {
                "結果は succeeded・failed・cancelled・needs_review のいずれかでなければなりません。この要求は受け付けられず、レーンは使用中のままです。"
            }
        },
        Term::Dispatch(error) => match error {
            DispatchError::Lane(e) => ja(Term::LaneError(e)),
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
        Term::Reservation(state) => match state {
            ReservationState::Queued => "待機中",
            ReservationState::Dispatched => "割り当て済み",
            ReservationState::Persisting => "保存中",
            ReservationState::Done => "完了",
            ReservationState::Cancelled => "取り消し済み",
            ReservationState::Unresolved => "未解決",
            ReservationState::Resolved => "解決済み",
        },
        Term::Viewer(error) => match error {
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
