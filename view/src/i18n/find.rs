//! The find box's messages, in English and Japanese: the box, the line that counts its
//! matches, and why a query was not taken (one message per code of
//! [`QueryError`](crate::find::QueryError)).

use super::catalog::catalog;

catalog! {
    /// The find box's messages.
    pub enum FindMsg {
        /// The find box's accessible name.
        Label {
            en: "Find steps",
            ja: "ステップを検索",
        }
        /// The text shown in the empty box.
        Placeholder {
            en: "Find: a run, project:docs, is:refused…",
            ja: "検索：実行ラベル、project:docs、is:refused…",
        }
        /// The previous-match button's accessible name.
        Previous {
            en: "Previous match",
            ja: "前の該当ステップ",
        }
        /// The next-match button's accessible name.
        Next {
            en: "Next match",
            ja: "次の該当ステップ",
        }
        /// What the box takes and its keys, for assistive technologies.
        Hint {
            en: "Type words a step must all match: project:, run:, op:, code:, actor:, since: and until: with a value, is:refused, is:recovery, or any part of a project, run or caller. Enter goes to the next match, Shift+Enter to the previous.",
            ja: "ステップが満たす語をすべて入力します。使える語は、値を続けた project:・run:・op:・code:・actor:・since:・until:、is:refused・is:recovery、またはプロジェクト・実行・呼び出し元の名前の一部です。Enter で次の該当ステップへ、Shift+Enter で前へ移ります。",
        }
        /// `{0}`: how many steps match (more than one, or none current).
        Count {
            en: "{0} matches",
            ja: "該当 {0} 件",
        }
        /// One step matches; `{0}`: 1.
        CountOne {
            en: "{0} match",
            ja: "該当 {0} 件",
        }
        /// The current step is a match; `{0}`: which, `{1}`: how many.
        Ordinal {
            en: "Match {0} of {1}",
            ja: "該当 {1} 件中 {0} 件目",
        }
        /// No step matches.
        None {
            en: "No step matches",
            ja: "該当するステップはありません",
        }
        /// `UNKNOWN_KEY`; `{0}`: the word.
        UnknownKey {
            en: "{0}: not a key; keys are project:, run:, op:, code:, actor:, since:, until: and is:",
            ja: "{0}：使えないキーです。使えるキー：project:・run:・op:・code:・actor:・since:・until:・is:",
        }
        /// `EMPTY_VALUE`; `{0}`: the word.
        EmptyValue {
            en: "{0}: give a value after the colon",
            ja: "{0}：コロンの後に値を入れてください",
        }
        /// `UNKNOWN_OP`; `{0}`: the word.
        UnknownOp {
            en: "{0}: not an operation of a record",
            ja: "{0}：記録の操作名ではありません",
        }
        /// `BAD_TIME`; `{0}`: the word.
        BadTime {
            en: "{0}: give a time in UTC like 2026-05-01T03:12:45.123Z",
            ja: "{0}：2026-05-01T03:12:45.123Z のような UTC の時刻を入れてください",
        }
        /// `UNKNOWN_KIND`; `{0}`: the word.
        UnknownKind {
            en: "{0}: is: takes refused or recovery",
            ja: "{0}：「is:」に続けられるのは refused と recovery です",
        }
        /// `QUERY_TOO_LONG`; `{0}`: the longest query, in bytes.
        TooLong {
            en: "The query is longer than {0} bytes",
            ja: "検索語が {0} バイトを超えています",
        }
    }
}
