//! The reproduce command line: a command's arguments with the seed pinned ([`with_seed`]), and
//! the one shell rendering every report shows ([`shell_line`]).

/// `args` with every `--seed S` and `--seed=S` removed and `--seed seed` appended, so running it
/// again gives the same order. `args[0]` (the program) is kept as it is.
pub(crate) fn with_seed(args: impl IntoIterator<Item = String>, seed: u64) -> Vec<String> {
    let mut args: Vec<String> = args.into_iter().collect();
    let mut i = 1;
    while i < args.len() {
        if args[i] == "--seed" {
            args.drain(i..(i + 2).min(args.len()));
        } else if args[i].starts_with("--seed=") {
            args.remove(i);
        } else {
            i += 1;
        }
    }
    args.extend(["--seed".to_owned(), seed.to_string()]);
    args
}

/// This process's command line with the seed pinned.
pub(crate) fn this_command(seed: u64) -> Vec<String> {
    with_seed(std::env::args(), seed)
}

/// The command as one shell line: an argument holding anything beyond `[A-Za-z0-9_./:=,+-]`
/// (or empty) is single-quoted, with `'` written as `'\''`.
pub(crate) fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "_./:=,+-".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn the_seed_is_replaced_not_duplicated() {
        let got = with_seed(strings(&["bin", "--seed", "1", "run", "--seed=2", "a", "--seed", "3"]), 9);
        assert_eq!(got, strings(&["bin", "run", "a", "--seed", "9"]));
        assert_eq!(
            with_seed(strings(&["bin", "detect"]), 4),
            strings(&["bin", "detect", "--seed", "4"])
        );
        // A dangling `--seed` (no value) is dropped too.
        assert_eq!(with_seed(strings(&["bin", "--seed"]), 5), strings(&["bin", "--seed", "5"]));
    }

    #[test]
    fn a_filter_named_like_the_flag_value_is_kept() {
        // Only the value right after `--seed` goes; an equal-looking filter elsewhere stays.
        let got = with_seed(strings(&["bin", "7", "--seed", "7"]), 8);
        assert_eq!(got, strings(&["bin", "7", "--seed", "8"]));
    }

    #[test]
    fn odd_arguments_are_quoted_so_the_shell_reads_them_back() {
        let args = strings(&["run", "--seed", "7", "a b", "it's", "", "$HOME", "x;rm", "--out=/tmp/r-1,2"]);
        assert_eq!(
            shell_line(&args),
            r#"run --seed 7 'a b' 'it'\''s' '' '$HOME' 'x;rm' --out=/tmp/r-1,2"#
        );
    }

    #[test]
    fn the_shell_reads_the_line_back_as_the_same_arguments() {
        let args = strings(&["printf", "%s\\n", "a b", "it's", "", "$HOME", "\"q\"", "x;y", "*"]);
        let out = std::process::Command::new("sh").arg("-c").arg(shell_line(&args)).output().unwrap();
        let got: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().split('\n').collect();
        assert_eq!(got[..got.len() - 1], args[2..].iter().map(String::as_str).collect::<Vec<_>>()[..]);
    }
}
