//! Link-time registration: `scenario!` and `scenarios!` submit a [`Registration`]; [`registered`]
//! collects them. No central list to edit.

use super::Scenario;
use crate::errors::Error;

/// One registration: a function producing scenarios, called once at discovery.
pub struct Registration(fn() -> Vec<Scenario>);

impl Registration {
    /// Wrap a scenario-producing function; used by the registration macros.
    pub const fn new(f: fn() -> Vec<Scenario>) -> Self {
        Registration(f)
    }
}

inventory::collect!(Registration);

/// Every scenario registered in this binary, sorted by name. Two with the same name are an
/// [`Error::DuplicateScenario`] naming where each was built: which one a filter or a detect
/// verdict meant would otherwise be a guess.
pub(crate) fn registered() -> Result<Vec<Scenario>, Error> {
    let all: Vec<Scenario> = inventory::iter::<Registration>.into_iter().flat_map(|r| (r.0)()).collect();
    unique_by_name(all)
}

fn unique_by_name(mut all: Vec<Scenario>) -> Result<Vec<Scenario>, Error> {
    all.sort_by(|a, b| a.name.cmp(&b.name));
    match all.windows(2).find(|w| w[0].name == w[1].name) {
        Some(w) => Err(Error::DuplicateScenario {
            name: w[0].name.clone(),
            first: w[0].source.to_string(),
            second: w[1].source.to_string(),
        }),
        None => Ok(all),
    }
}

/// Register one scenario: `harness::scenario!(Scenario::check("name", f));`
#[macro_export]
macro_rules! scenario {
    ($scenario:expr $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::__private::Registration::new(|| ::std::vec![$scenario])
        }
    };
}

/// Register many scenarios from one function: `harness::scenarios!(|| vec![...]);`
#[macro_export]
macro_rules! scenarios {
    ($f:expr $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::__private::Registration::new(|| ::std::iter::IntoIterator::into_iter(($f)()).collect())
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_name_names_both_places() {
        let a = Scenario::check("x", || ());
        let b = Scenario::check("x", || ());
        let (la, lb) = (a.source.line, b.source.line);
        assert_ne!(la, lb);
        let Err(err) = unique_by_name(vec![Scenario::check("y", || ()), a, b]) else {
            panic!("a repeated name was accepted");
        };
        let err = err.to_string();
        assert!(err.contains(&format!("registry.rs:{la}")), "{err}");
        assert!(err.contains(&format!("registry.rs:{lb}")), "{err}");
        assert!(err.contains("\"x\""), "{err}");
    }

    #[test]
    fn distinct_names_come_back_sorted() {
        let Ok(all) = unique_by_name(vec![Scenario::check("b", || ()), Scenario::check("a", || ())]) else {
            panic!("distinct names were refused");
        };
        assert_eq!(all.iter().map(|s| s.name()).collect::<Vec<_>>(), ["a", "b"]);
    }
}
