//! The options of the browser tasks (`browser`, `smoke`, `screenshots`, `bench`), in any order.

use crate::engines::Engine;
use crate::util::Result;

/// The options of the browser tasks, in any order.
#[derive(Default, Debug)]
pub struct BrowserArgs<'a> {
    pub engine: Option<Vec<Engine>>,
    pub repeat: Option<usize>,
    pub interactive: Option<&'a str>,
    pub filter: Option<&'a str>,
}

pub fn browser_args<'a>(args: &[&'a str], usage: &str) -> Result<BrowserArgs<'a>> {
    let mut parsed = BrowserArgs::default();
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        let mut value = |flag: &str| {
            rest.next()
                .copied()
                .ok_or_else(|| format!("{flag} needs a value; use: {usage}"))
        };
        match *arg {
            "--engine" => parsed.engine = Some(Engine::parse(value("--engine")?)?),
            "--repeat" => {
                let n = value("--repeat")?;
                parsed.repeat =
                    Some(n.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                        format!("--repeat needs a whole number from 1 up, not `{n}`")
                    })?);
            }
            "--interactive" => parsed.interactive = Some(value("--interactive")?),
            filter if !filter.starts_with('-') && parsed.filter.is_none() => {
                parsed.filter = Some(filter)
            }
            _ => {
                return Err(format!("cannot read `{}`; use: {usage}", args.join(" ")).into());
            }
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_come_in_any_order_with_one_filter() {
        let args = browser_args(&["viewer", "--repeat", "3", "--engine", "webkit"], "u").unwrap();
        assert_eq!(args.engine, Some(vec![Engine::WebKit]));
        assert_eq!(args.repeat, Some(3));
        assert_eq!(args.filter, Some("viewer"));
        assert_eq!(browser_args(&[], "u").unwrap().engine, None);
    }

    #[test]
    fn bad_options_are_refused_with_the_usage() {
        for bad in [
            &["--repeat", "0"][..],
            &["--repeat", "x"],
            &["--engine"],
            &["--engine", "safari"],
            &["a", "b"],
            &["--fast"],
        ] {
            assert!(browser_args(bad, "USAGE").is_err(), "{bad:?}");
        }
        let error = browser_args(&["a", "b"], "USAGE").unwrap_err().to_string();
        assert!(error.contains("USAGE"), "{error}");
    }
}
