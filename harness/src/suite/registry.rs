//! Link-time registration: `scenario!` and `scenarios!` submit a [`Registration`]; [`registered`]
//! collects them. No central list to edit.

use super::Scenario;

/// One registration: a function producing scenarios, called once at discovery.
pub struct Registration(fn() -> Vec<Scenario>);

impl Registration {
    /// Wrap a scenario-producing function; used by the registration macros.
    pub const fn new(f: fn() -> Vec<Scenario>) -> Self {
        Registration(f)
    }
}

inventory::collect!(Registration);

/// Every scenario registered in this binary, sorted by name.
pub fn registered() -> Vec<Scenario> {
    let mut all: Vec<Scenario> = inventory::iter::<Registration>.into_iter().flat_map(|r| (r.0)()).collect();
    all.sort_by(|a, b| a.name.cmp(&b.name));
    all
}

/// Register one scenario: `harness::scenario!(Scenario::check("name", f));`
#[macro_export]
macro_rules! scenario {
    ($scenario:expr $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::suite::Registration::new(|| ::std::vec![$scenario])
        }
    };
}

/// Register many scenarios from one function: `harness::scenarios!(|| vec![...]);`
#[macro_export]
macro_rules! scenarios {
    ($f:expr $(,)?) => {
        $crate::__private::inventory::submit! {
            $crate::suite::Registration::new(|| ::std::iter::IntoIterator::into_iter(($f)()).collect())
        }
    };
}
