//! Connection strings, in libpq's two forms — a URL (`postgresql://app@db/app?sslmode=require`)
//! or keywords and values (`host=db dbname=app sslmode=require`) — split into the TLS options
//! this crate handles itself ([`TlsParams`]) and the rest, written back in the same form for
//! `tokio-postgres` to read.
//!
//! Errors never quote the string: it can hold a password.

use percent_encoding::percent_decode_str;

use crate::PgError;

/// The TLS options of a connection string, decoded; the last of each one wins, as in libpq.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct TlsParams {
    pub(crate) sslmode: Option<String>,
    pub(crate) sslrootcert: Option<String>,
    pub(crate) sslcert: Option<String>,
    pub(crate) sslkey: Option<String>,
}

impl TlsParams {
    /// Takes `value` if `key` is one of the TLS options; gives it back otherwise.
    fn take(&mut self, key: &str, value: String) -> Option<String> {
        let slot = match key {
            "sslmode" => &mut self.sslmode,
            "sslrootcert" => &mut self.sslrootcert,
            "sslcert" => &mut self.sslcert,
            "sslkey" => &mut self.sslkey,
            _ => return Some(value),
        };
        *slot = Some(value);
        None
    }

    fn is_tls(key: &str) -> bool {
        matches!(key, "sslmode" | "sslrootcert" | "sslcert" | "sslkey")
    }
}

/// A connection string without its TLS options, and those options.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Split {
    /// The rest, in the form it came in.
    pub(crate) rest: String,
    pub(crate) tls: TlsParams,
}

/// Splits a URL (`postgres://` or `postgresql://`) or a key-value string; `CONFIG` if it is
/// malformed.
pub(crate) fn split(conninfo: &str) -> Result<Split, PgError> {
    if conninfo.starts_with("postgres://") || conninfo.starts_with("postgresql://") {
        split_url(conninfo)
    } else {
        split_keywords(conninfo)
    }
}

/// The query's TLS parameters out of a URL; the rest of it is kept as written. Its credentials
/// end at the first `@` and its query starts at the next `?`, as `tokio-postgres` reads them.
fn split_url(url: &str) -> Result<Split, PgError> {
    let after_credentials = url.find('@').map_or(0, |at| at + 1);
    let Some(question) = url[after_credentials..].find('?') else {
        return Ok(Split {
            rest: url.to_owned(),
            tls: TlsParams::default(),
        });
    };
    let (base, query) = url.split_at(after_credentials + question);
    let mut tls = TlsParams::default();
    let mut kept = Vec::new();
    for (n, piece) in query[1..].split('&').enumerate() {
        if piece.is_empty() {
            continue;
        }
        let Some((key, value)) = piece.split_once('=') else {
            return Err(PgError::Config(format!(
                "malformed connection URL: query parameter {} has no `=` (each one is \
                 name=value, joined by `&`)",
                n + 1
            )));
        };
        let key = decode(key, "a query parameter's name")?;
        if TlsParams::is_tls(&key) {
            let value = decode(value, &format!("the value of {key}"))?;
            tls.take(&key, value);
        } else {
            kept.push(piece);
        }
    }
    let rest = if kept.is_empty() {
        base.to_owned()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok(Split { rest, tls })
}

/// A URL's percent-encoded text, decoded: `CONFIG` unless it is UTF-8.
fn decode(text: &str, what: &str) -> Result<String, PgError> {
    percent_decode_str(text)
        .decode_utf8()
        .map(|t| t.into_owned())
        .map_err(|_| {
            PgError::Config(format!(
                "malformed connection URL: {what} is not UTF-8 once percent-decoded"
            ))
        })
}

/// The TLS keywords out of a key-value string; the rest written back with every value quoted.
fn split_keywords(text: &str) -> Result<Split, PgError> {
    let mut tls = TlsParams::default();
    let mut rest = String::new();
    for (key, value) in keywords(text)? {
        if let Some(value) = tls.take(key, value) {
            if !rest.is_empty() {
                rest.push(' ');
            }
            rest.push_str(key);
            rest.push_str("='");
            for c in value.chars() {
                if c == '\'' || c == '\\' {
                    rest.push('\\');
                }
                rest.push(c);
            }
            rest.push('\'');
        }
    }
    Ok(Split { rest, tls })
}

/// libpq's `keyword = value` pairs: spaces around `=` allowed; a value is a word or quoted in
/// `'…'`, and `\` takes the next character as it is in either.
fn keywords(text: &str) -> Result<Vec<(&str, String)>, PgError> {
    let malformed = |why: String| PgError::Config(format!("malformed connection string: {why}"));
    let mut pairs = Vec::new();
    let mut chars = text.char_indices().peekable();
    let skip_spaces = |chars: &mut std::iter::Peekable<std::str::CharIndices<'_>>| {
        while chars.next_if(|(_, c)| c.is_whitespace()).is_some() {}
    };
    loop {
        skip_spaces(&mut chars);
        let Some(&(start, _)) = chars.peek() else {
            return Ok(pairs);
        };
        while chars
            .next_if(|&(_, c)| !c.is_whitespace() && c != '=')
            .is_some()
        {}
        let end = chars.peek().map_or(text.len(), |&(i, _)| i);
        let key = &text[start..end];
        skip_spaces(&mut chars);
        if key.is_empty() || chars.next_if(|&(_, c)| c == '=').is_none() {
            return Err(malformed(format!(
                "the word at byte {start} is not followed by `=` (each option is key=value; \
                 a value with spaces is quoted: key='a b')"
            )));
        }
        skip_spaces(&mut chars);
        let mut value = String::new();
        if chars.next_if(|&(_, c)| c == '\'').is_some() {
            loop {
                match chars.next() {
                    Some((_, '\'')) => break,
                    Some((_, '\\')) => value.extend(chars.next().map(|(_, c)| c)),
                    Some((_, c)) => value.push(c),
                    None => {
                        return Err(malformed(format!(
                            "the quoted value of {key} has no closing `'`"
                        )));
                    }
                }
            }
        } else {
            while let Some((_, c)) = chars.next_if(|(_, c)| !c.is_whitespace()) {
                if c == '\\' {
                    value.extend(chars.next().map(|(_, c)| c));
                } else {
                    value.push(c);
                }
            }
        }
        pairs.push((key, value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls(mode: &str, root: Option<&str>) -> TlsParams {
        TlsParams {
            sslmode: Some(mode.to_owned()),
            sslrootcert: root.map(str::to_owned),
            ..TlsParams::default()
        }
    }

    #[test]
    fn a_url_loses_its_tls_parameters_and_keeps_the_rest_as_written() {
        let split = split(
            "postgresql://app:p%40ss@db.example:6432/app?application_name=x&sslmode=verify-full\
             &sslrootcert=%2Fetc%2Fca%20bundle.pem&connect_timeout=5",
        )
        .unwrap();
        assert_eq!(
            split.rest,
            "postgresql://app:p%40ss@db.example:6432/app?application_name=x&connect_timeout=5"
        );
        assert_eq!(split.tls, tls("verify-full", Some("/etc/ca bundle.pem")));
    }

    #[test]
    fn a_url_with_only_tls_parameters_loses_its_question_mark() {
        let split = split("postgres://db/app?sslmode=require&sslcert=c.pem&sslkey=k.pem").unwrap();
        assert_eq!(split.rest, "postgres://db/app");
        assert_eq!(split.tls.sslcert.as_deref(), Some("c.pem"));
        assert_eq!(split.tls.sslkey.as_deref(), Some("k.pem"));
        let plain = split_url("postgresql://db/app").unwrap();
        assert_eq!(plain.rest, "postgresql://db/app");
        assert_eq!(plain.tls, TlsParams::default());
    }

    #[test]
    fn the_last_of_an_option_wins() {
        let url = split("postgresql://db/app?sslmode=disable&sslmode=require").unwrap();
        assert_eq!(url.tls.sslmode.as_deref(), Some("require"));
        let kv = split("sslmode=disable host=db sslmode=verify-ca").unwrap();
        assert_eq!(kv.tls.sslmode.as_deref(), Some("verify-ca"));
    }

    #[test]
    fn a_question_mark_in_the_password_is_not_the_query() {
        let split = split("postgresql://app:a?b@db/app?sslmode=require").unwrap();
        assert_eq!(split.rest, "postgresql://app:a?b@db/app");
        assert_eq!(split.tls.sslmode.as_deref(), Some("require"));
    }

    #[test]
    fn key_values_are_written_back_quoted_so_tokio_postgres_reads_the_same() {
        let text =
            r"host = /run/postgresql  user=app password='it\'s \\ ok' sslmode=require dbname=a\ b";
        let split = split(text).unwrap();
        assert_eq!(
            split.rest,
            r"host='/run/postgresql' user='app' password='it\'s \\ ok' dbname='a b'"
        );
        assert_eq!(split.tls, tls("require", None));
        let config: tokio_postgres::Config = split.rest.parse().unwrap();
        assert_eq!(config.get_password(), Some(&b"it's \\ ok"[..]));
        assert_eq!(config.get_dbname(), Some("a b"));
        assert_eq!(config.get_user(), Some("app"));
    }

    #[test]
    fn an_empty_value_stays_empty() {
        let split = split("sslrootcert='' host=db password=").unwrap();
        assert_eq!(split.rest, "host='db' password=''");
        assert_eq!(split.tls.sslrootcert.as_deref(), Some(""));
        // After `=`, spaces are skipped: this password is `host=db`, as in libpq.
        assert_eq!(
            split_keywords("password= host=db").unwrap().rest,
            "password='host=db'"
        );
        assert_eq!(split_keywords("").unwrap().rest, "");
    }

    #[test]
    fn malformed_strings_are_config_errors_that_quote_nothing() {
        for (text, says) in [
            (
                "host=db secret-word",
                "the word at byte 8 is not followed by `=`",
            ),
            ("host=db =x", "the word at byte 8 is not followed by `=`"),
            (
                "password='secret",
                "the quoted value of password has no closing `'`",
            ),
            (
                "postgresql://db/app?sslmode=require&secret",
                "query parameter 2 has no `=`",
            ),
            (
                "postgresql://db/app?sslrootcert=%FF%FE",
                "the value of sslrootcert is not UTF-8",
            ),
        ] {
            let error = split(text).unwrap_err();
            let shown = error.to_string();
            assert_eq!(error.code(), "CONFIG", "{shown}");
            assert!(shown.contains(says), "{text}: {shown}");
            assert!(!shown.contains("secret"), "{shown}");
        }
    }
}
