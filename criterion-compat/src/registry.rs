//! The two passes over a bench file's `criterion_group!` functions, which is how borrowed,
//! non-`'static` benchmark closures become harness scenarios:
//!
//! - listing ([`scenarios`]): every group function runs with no closure called; each
//!   `bench_function` / `bench_with_input` adds its id, and each id becomes a harness
//!   measurement whose body is a run pass;
//! - running ([`run`]): in the measuring process, the group functions run again and only the
//!   closure whose id matches is called, inline, with the harness's `Bencher`; then the pass
//!   unwinds out of the remaining group code.
//!
//! The pass is thread-local state set around the group functions, which is why they must run
//! on the thread that calls them (they always do: criterion's `criterion_group!` is a plain fn).

use std::cell::RefCell;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicBool, Ordering};

use harness::{Scenario, Source};

use crate::bencher::Bencher;
use crate::errors::BenchError;
use crate::measurement::Measurement;
use crate::settings::Throughput;

/// One `criterion_group!` function, named as `criterion_main!` names it.
#[doc(hidden)]
pub struct Group {
    /// The path given to `criterion_main!`.
    pub name: &'static str,
    /// The function `criterion_group!` defined.
    pub run: fn(),
}

/// One benchmark found by the listing pass.
struct Listed {
    id: String,
    source: Source,
    problem: Option<String>,
}

enum Pass {
    /// Not inside `criterion_main!`'s passes: a bench file with its own `main`.
    Outside,
    Listing(Vec<Listed>),
    Running {
        id: String,
        bencher: *mut harness::Bencher,
        reached: bool,
    },
}

thread_local! {
    static PASS: RefCell<Pass> = const { RefCell::new(Pass::Outside) };
}

/// The payload the run pass unwinds with once its benchmark is done.
struct Reached;

/// Restores [`Pass::Outside`] when a pass ends, by return or by unwinding.
struct PassGuard;

impl PassGuard {
    fn set(pass: Pass) -> PassGuard {
        PASS.set(pass);
        PassGuard
    }
}

impl Drop for PassGuard {
    fn drop(&mut self) {
        PASS.set(Pass::Outside);
    }
}

/// A benchmark named `id`, declared at `source` (the user's call): listed, run, or passed over.
pub(crate) fn bench<M: Measurement>(
    id: Result<String, BenchError>,
    throughput: Option<&Throughput>,
    source: &'static Location<'static>,
    f: impl FnOnce(&mut Bencher<'_, M>),
) {
    let bencher = PASS.with_borrow_mut(|pass| match pass {
        Pass::Listing(found) => {
            let (id, problem) = match id {
                Ok(id) => (id, None),
                Err(e) => (problem_name(&e), Some(e.to_string())),
            };
            let source = Source {
                file: source.file(),
                line: source.line(),
            };
            found.push(Listed { id, source, problem });
            None
        }
        Pass::Running {
            id: wanted,
            bencher,
            reached,
        } => {
            let matches = id.as_ref().is_ok_and(|id| id == wanted) && !*reached;
            *reached |= matches;
            matches.then_some(*bencher)
        }
        Pass::Outside => {
            outside_note();
            None
        }
    });
    let Some(bencher) = bencher else { return };
    // SAFETY: `run` made this pointer from the `&mut harness::Bencher` it was given and does not
    // touch that reference until the pass ends; the pass (and so this call) ends before `run`
    // returns, and only this one call, once per pass (`reached`), dereferences it.
    let inner = unsafe { &mut *bencher };
    if let Some(t) = throughput {
        inner.throughput(t.to_harness());
    }
    f(&mut Bencher::new(inner));
    panic::resume_unwind(Box::new(Reached));
}

/// The scenario name of a benchmark whose id is a problem: what the user would look for.
fn problem_name(e: &BenchError) -> String {
    match e {
        BenchError::ParameterOnly { parameter } => parameter.clone(),
        BenchError::EmptyName { group } => format!("{group}/"),
        other => other.to_string(),
    }
}

/// Run a bench file's groups with no closure called, and make each benchmark a scenario.
#[doc(hidden)]
pub fn scenarios(groups: &'static [Group]) -> Vec<Scenario> {
    let mut out = Vec::new();
    for group in groups {
        let guard = PassGuard::set(Pass::Listing(Vec::new()));
        let result = catch_with_location(group.run);
        let listed = match PASS.replace(Pass::Outside) {
            Pass::Listing(found) => found,
            _ => Vec::new(),
        };
        drop(guard);
        for l in listed {
            let scenario = match l.problem {
                None => {
                    let id = l.id.clone();
                    Scenario::measure(l.id, move |b| run(groups, &id, b))
                }
                Some(problem) => {
                    let problem = format!("{problem} (declared at {})", l.source);
                    Scenario::measure(l.id, move |_| fail(&problem))
                }
            };
            out.push(scenario.at(l.source));
        }
        if let Err((message, place)) = result {
            let problem = BenchError::GroupPanicked {
                group: group.name,
                message,
            }
            .to_string();
            let failed = Scenario::measure(group.name, move |_| fail(&problem));
            // Located at the user's panic, not at this line.
            out.push(match place {
                Some(place) => failed.at(place),
                None => failed,
            });
        }
    }
    out
}

/// Call `f`; a panic becomes its message (with where it happened) and that place. The panic
/// hook is swapped for one that only records the place (the listing runs in every process: the
/// failed scenario carries the message, once, where the default hook would print it and a
/// backtrace each time).
fn catch_with_location(f: fn()) -> Result<(), (String, Option<Source>)> {
    thread_local! {
        static PLACE: RefCell<Option<Source>> = const { RefCell::new(None) };
    }
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        if let Some(loc) = info.location() {
            // Leaked once per group that panics while listed, which ends the listing of it.
            let file: &'static str = Box::leak(loc.file().to_owned().into_boxed_str());
            PLACE.set(Some(Source { file, line: loc.line() }));
        }
    }));
    let result = panic::catch_unwind(f);
    panic::set_hook(previous);
    result.map_err(|payload| match PLACE.take() {
        Some(place) => (format!("{} (at {place})", panic_message(&*payload)), Some(place)),
        None => (panic_message(&*payload), None),
    })
}

/// Fail a scenario with `problem`, which already says where: unwinding without the panic hook
/// keeps the harness from appending this line of ours as the place.
fn fail(problem: &str) -> ! {
    panic::resume_unwind(Box::new(problem.to_owned()))
}

/// Whether the listing pass is running: a group with no benchmarks says so then.
pub(crate) fn listing() -> bool {
    PASS.with_borrow(|p| matches!(p, Pass::Listing(_)))
}

/// Run the groups again, calling only `id`'s closure, with the harness's `b`.
fn run(groups: &'static [Group], id: &str, b: &mut harness::Bencher) {
    let _guard = PassGuard::set(Pass::Running {
        id: id.to_owned(),
        bencher: b,
        reached: false,
    });
    for group in groups {
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(group.run))
            && !payload.is::<Reached>()
        {
            panic::resume_unwind(payload);
        }
        // A group that caught our unwind itself still marked the benchmark reached.
        if PASS.with_borrow(|p| matches!(p, Pass::Running { reached: true, .. })) {
            return;
        }
    }
    panic!("{}", BenchError::NotReached { id: id.to_owned() });
}

/// Say once per process that benchmarks run only under `criterion_main!`.
fn outside_note() {
    static SAID: AtomicBool = AtomicBool::new(false);
    if !SAID.swap(true, Ordering::Relaxed) {
        eprintln!(
            "harness-criterion: a benchmark was declared outside criterion_main!, which lists and \
             runs them as harness scenarios; it was not run"
        );
    }
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic with a non-string payload".to_owned())
}
