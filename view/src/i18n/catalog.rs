//! `catalog!`: a message enum and its text in both languages, written once per message.
//!
//! ```ignore
//! catalog! {
//!     /// The viewer's messages.
//!     pub enum Msg {
//!         /// Shown while records load.
//!         Loading {
//!             en: "Loading records…",
//!             ja: "記録を読み込んでいます…",
//!         }
//!     }
//! }
//! ```
//!
//! The enum, its list of every message (`ALL`, which the completeness tests walk) and its
//! [`Message::text`](super::Message::text) are generated from the same entries, so a message
//! cannot lack a translation or escape the tests. Placeholders are numbered (`{0}`, `{1}`, …;
//! see [`fill`](super::fill)) because the two languages put values in different orders.

macro_rules! catalog {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $variant:ident { en: $en:literal, ja: $ja:literal $(,)? }
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl $name {
            /// Every message, in the order written.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
        }

        impl $crate::i18n::Message for $name {
            fn text(self, lang: $crate::i18n::Lang) -> &'static str {
                match lang {
                    $crate::i18n::Lang::En => match self { $($name::$variant => $en,)* },
                    $crate::i18n::Lang::Ja => match self { $($name::$variant => $ja,)* },
                }
            }
        }
    };
}

pub(crate) use catalog;
