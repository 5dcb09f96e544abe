//! Typed value parsers for clap: each turns a flag's text into its type or says why not, and
//! [`invalid_value_message`] words clap's error like [`Error::InvalidFlag`](crate::errors::Error),
//! naming the flag and quoting the value.

use std::time::Duration;

/// A whole number of at least `MIN`.
pub(crate) fn count<const MIN: usize>(s: &str) -> Result<usize, String> {
    let n: usize = s.trim().parse().map_err(|_| "expected a whole number".to_owned())?;
    if n < MIN {
        return Err(format!("must be at least {MIN}"));
    }
    Ok(n)
}

/// A positive number of seconds, fractions allowed.
pub(crate) fn secs(s: &str) -> Result<Duration, String> {
    seconds(s, false)
}

/// A number of seconds, 0 included (0 turns a default off).
pub(crate) fn secs_or_zero(s: &str) -> Result<Duration, String> {
    seconds(s, true)
}

fn seconds(s: &str, zero: bool) -> Result<Duration, String> {
    let v: f64 = s.trim().parse().map_err(|_| "expected a number of seconds".to_owned())?;
    if !(v.is_finite() && (v > 0.0 || zero && v == 0.0) && v < 1e12) {
        let what = if zero { "0 or a positive" } else { "a positive" };
        return Err(format!("must be {what} number of seconds"));
    }
    Ok(Duration::from_secs_f64(v))
}

/// A seed: any `u64`.
pub(crate) fn seed(s: &str) -> Result<u64, String> {
    s.trim().parse().map_err(|_| "expected a whole number from 0 to 2^64-1".to_owned())
}

fn percent(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .trim_end_matches('%')
        .parse()
        .map_err(|_| "expected a percentage such as 2 or 0.5".to_owned())?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err("expected a finite percentage".to_owned())
    }
}

/// A percentage from 0 (inclusive) to 100 (exclusive), such as `2`, `2%` or `0.5`, as a fraction.
pub(crate) fn fraction(s: &str) -> Result<f64, String> {
    let v = percent(s)?;
    if !(0.0..100.0).contains(&v) {
        return Err("must be from 0 to 100 (exclusive)".to_owned());
    }
    Ok(v / 100.0)
}

/// A percentage strictly between 0 and 100, as a fraction.
pub(crate) fn positive_fraction(s: &str) -> Result<f64, String> {
    let v = percent(s)?;
    if !(v > 0.0 && v < 100.0) {
        return Err("must be between 0 and 100 (exclusive)".to_owned());
    }
    Ok(v / 100.0)
}

/// `NAME=VALUE`, with a non-empty name.
#[cfg(feature = "cli")]
pub(crate) fn env_pair(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err("expected NAME=VALUE".to_owned()),
    }
}

/// For a value a parser above rejected: `invalid value "V" for '--flag': reason`, the wording of
/// every other bad-input error. `None` for other clap errors (they keep clap's own text).
pub(crate) fn invalid_value_message(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let (Some(ContextValue::String(arg)), Some(ContextValue::String(value))) =
        (e.get(ContextKind::InvalidArg), e.get(ContextKind::InvalidValue))
    else {
        return None;
    };
    // clap names the argument with its value name (`--repeat <N>`); the flag is the first word.
    let flag = arg.split([' ', '=']).next().unwrap_or(arg);
    let reason = std::error::Error::source(e)?.to_string();
    Some(format!("invalid value {value:?} for '{flag}': {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_enforce_their_minimum() {
        assert_eq!(count::<1>("3"), Ok(3));
        assert_eq!(count::<0>("0"), Ok(0));
        assert_eq!(count::<1>("0"), Err("must be at least 1".to_owned()));
        assert_eq!(count::<2>("-1"), Err("expected a whole number".to_owned()));
    }

    #[test]
    fn seconds_are_positive_and_finite() {
        assert_eq!(secs("0.5"), Ok(Duration::from_millis(500)));
        for bad in ["0", "-1", "inf", "NaN", "soon", "1e300"] {
            assert!(secs(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn percentages_become_fractions_within_their_range() {
        assert_eq!(fraction("2%"), Ok(0.02));
        assert_eq!(fraction("0"), Ok(0.0));
        assert!(fraction("100").is_err());
        assert!(positive_fraction("0").is_err());
        assert_eq!(positive_fraction("0.5"), Ok(0.005));
        assert!(positive_fraction("200").is_err());
    }

    #[test]
    fn a_rejected_value_is_reported_with_the_flag_and_the_value() {
        use clap::{Arg, Command};
        let cmd = Command::new("t").arg(Arg::new("repeat").long("repeat").value_name("N").value_parser(count::<1>));
        let e = cmd.try_get_matches_from(["t", "--repeat", "0"]).unwrap_err();
        assert_eq!(
            invalid_value_message(&e).as_deref(),
            Some("invalid value \"0\" for '--repeat': must be at least 1")
        );
        let cmd = Command::new("t").arg(Arg::new("x").long("x"));
        let e = cmd.try_get_matches_from(["t", "--nope"]).unwrap_err();
        assert_eq!(invalid_value_message(&e), None, "other clap errors keep clap's text");
    }
}
