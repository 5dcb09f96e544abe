//! The child side: run the requested scenarios in order in this process and append one result
//! line per scenario, flushed before the next one starts.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use super::protocol::{ChildRecord, ChildRequest, ChildStatus};
use crate::counters::{CountRequest, Counting};
use crate::model::EnvChange;
use crate::suite::{BenchEnd, Bencher, Body, SkipSignal, Variant};

/// Where the last panic happened, recorded by the hook; the payload carries the message.
static PANIC_LOCATION: Mutex<Option<String>> = Mutex::new(None);

/// Run a child request to completion. Returns the process exit code.
pub(crate) fn run_child(request_json: &str, variants: &[Variant]) -> i32 {
    let request: ChildRequest = match serde_json::from_str(request_json) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("harness child: malformed request: {e}");
            return 2;
        }
    };
    install_panic_hook();
    let mut out = match OpenOptions::new().create(true).append(true).open(&request.result_path) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("harness child: cannot open result file {}: {e}", request.result_path.display());
            return 2;
        }
    };
    // Exit 1 when a scenario failed, so a request run by hand (a reproduce line) reports it;
    // the parent reads outcomes from the result file, never from this code.
    let mut failed = false;
    for name in &request.scenarios {
        let record = match variants.iter().find(|v| &v.full_name == name) {
            Some(v) => run_one(v, &request),
            None => ChildRecord {
                name: name.clone(),
                status: ChildStatus::Failed {
                    message: format!("no scenario named {name:?} in this binary"),
                },
                metrics: Vec::new(),
                env_changes: Vec::new(),
            },
        };
        failed |= matches!(record.status, ChildStatus::Failed { .. });
        let mut line = serde_json::to_string(&record).expect("records serialize");
        line.push('\n');
        // One write per record: a reader never sees half a line from a completed scenario.
        if out.write_all(line.as_bytes()).and_then(|_| out.flush()).is_err() {
            return 3;
        }
    }
    i32::from(failed)
}

fn run_one(variant: &Variant, request: &ChildRequest) -> ChildRecord {
    mark_interposer(&variant.full_name);
    let before = snapshot();
    let s = &variant.scenario;
    let result = panic::catch_unwind(AssertUnwindSafe(|| match &s.body {
        Body::Check(f) => f().map(|()| BenchEnd::Metrics(Vec::new())),
        Body::Measure(f) => {
            // A Callgrind or allocation-counting process counts as many calls as the parent
            // asked: the scenario's own iterations and warm-up are for wall time.
            let (iterations, warmup) = match &request.counters {
                Some(CountRequest::Callgrind { .. } | CountRequest::Allocs) => (request.iterations, request.warmup),
                _ => (s.iterations.unwrap_or(request.iterations), s.warmup.unwrap_or(request.warmup)),
            };
            crate::suite::allocator::settle(request.layout);
            let mut b = Bencher::new(iterations, warmup).with_gpu(request.gpu.unwrap_or_default());
            if let Some(count) = &request.counters {
                b = b.counting(Counting::new(count)?);
            }
            f(&mut b);
            Ok(b.finish())
        }
    }));
    let (status, metrics) = match result {
        Ok(Ok(BenchEnd::Metrics(metrics))) => (ChildStatus::Passed, metrics),
        Ok(Ok(BenchEnd::Failed(message)) | Err(message)) => (ChildStatus::Failed { message }, Vec::new()),
        Ok(Ok(BenchEnd::Uncounted(reason))) => (ChildStatus::Skipped { reason }, Vec::new()),
        Err(payload) => (status_from_panic(payload), Vec::new()),
    };
    ChildRecord {
        name: variant.full_name.clone(),
        status,
        metrics,
        env_changes: diff(&before, &snapshot()),
    }
}

/// Tell `libharness_interpose`, when detect preloaded it, that `name` starts now: its records
/// up to the next mark belong to this scenario.
fn mark_interposer(name: &str) {
    static MARK: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    // SAFETY: dlsym with a NUL-terminated name; null when the library is not loaded.
    let addr = *MARK.get_or_init(|| unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"harness_interpose_mark".as_ptr()) } as usize);
    if addr == 0 {
        return;
    }
    // SAFETY: the library exports `harness_interpose_mark(const char *)`.
    let mark: unsafe extern "C" fn(*const std::ffi::c_char) = unsafe { std::mem::transmute(addr) };
    if let Ok(name) = std::ffi::CString::new(name) {
        // SAFETY: a NUL-terminated string that outlives the call.
        unsafe { mark(name.as_ptr()) };
    }
}

fn status_from_panic(payload: Box<dyn std::any::Any + Send>) -> ChildStatus {
    if let Some(skip) = payload.downcast_ref::<SkipSignal>() {
        return ChildStatus::Skipped { reason: skip.0.clone() };
    }
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "panic with a non-string payload".to_owned());
    let location = PANIC_LOCATION.lock().map(|mut l| l.take()).unwrap_or(None);
    let message = match location {
        Some(loc) => format!("{message} (at {loc})"),
        None => message,
    };
    ChildStatus::Failed { message }
}

fn install_panic_hook() {
    let default = panic::take_hook();
    panic::set_hook(Box::new(move |info| {
        if info.payload().downcast_ref::<SkipSignal>().is_some() {
            return;
        }
        if let (Some(loc), Ok(mut slot)) = (info.location(), PANIC_LOCATION.lock()) {
            *slot = Some(format!("{}:{}:{}", loc.file(), loc.line(), loc.column()));
        }
        default(info);
    }));
}

const CWD_KEY: &str = "<cwd>";

/// Process-wide state a scenario can leak to the next one in a shared process.
fn snapshot() -> BTreeMap<String, String> {
    let mut s: BTreeMap<String, String> = std::env::vars_os()
        .map(|(k, v)| (k.to_string_lossy().into_owned(), v.to_string_lossy().into_owned()))
        .collect();
    if let Ok(cwd) = std::env::current_dir() {
        s.insert(CWD_KEY.to_owned(), cwd.display().to_string());
    }
    s
}

fn diff(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<EnvChange> {
    let keys: std::collections::BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| EnvChange {
            name: k.clone(),
            before: before.get(k).cloned(),
            after: after.get(k).cloned(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_reports_set_changed_and_cleared() {
        let before: BTreeMap<String, String> = [("A", "1"), ("B", "2")].map(|(k, v)| (k.into(), v.into())).into();
        let after: BTreeMap<String, String> = [("A", "1"), ("B", "3"), ("C", "4")].map(|(k, v)| (k.into(), v.into())).into();
        let d = diff(&before, &after);
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[0],
            EnvChange {
                name: "B".into(),
                before: Some("2".into()),
                after: Some("3".into())
            }
        );
        assert_eq!(
            d[1],
            EnvChange {
                name: "C".into(),
                before: None,
                after: Some("4".into())
            }
        );
        let cleared = diff(&after, &before);
        assert!(cleared.iter().any(|c| c.name == "C" && c.after.is_none()));
    }
}
