//! Processes side by side: [`Slots`], the command-wide limit on processes running at once (one
//! per core, shared by every target), and [`Prober::run_pool`], which runs a queue of [`Task`]s
//! up to the prober's workers at a time. Every process is prepared, announced and taken back on
//! the prober's thread (so the event seam sees one event at a time); only the child process and
//! the wait run on a worker thread. A [`Plan`] hears each finished task and may add more.

use std::collections::VecDeque;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};

use super::probe::{Observation, Prepared, Prober, Purpose};
use crate::errors::Error;
use crate::model::EvidenceKind;

/// Process slots: at most this many processes of the command run at once.
#[derive(Debug)]
pub struct Slots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// One held slot, given back when dropped.
pub struct Slot(Arc<Slots>);

impl Slots {
    /// `n` slots (at least one).
    pub fn new(n: usize) -> Self {
        Slots {
            free: Mutex::new(n.max(1)),
            freed: Condvar::new(),
        }
    }

    /// Wait for a free slot and hold it.
    pub fn acquire(self: &Arc<Self>) -> Slot {
        let mut free = self.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        *free -= 1;
        Slot(Arc::clone(self))
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(std::sync::PoisonError::into_inner) += 1;
        self.0.freed.notify_one();
    }
}

/// One process to run: these names, in this order (or under this libtest seed).
#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    /// The scenarios, in the order asked for.
    pub names: Vec<String>,
    /// The libtest shuffle seed, for targets that do not honour order.
    pub seed: Option<u64>,
    /// What kind of run, for evidence.
    pub kind: EvidenceKind,
    /// What it is spent on.
    pub purpose: Purpose,
    /// The plan's own label (which schedule a shared process belongs to).
    pub tag: usize,
}

/// Whether a task starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// Now.
    Now,
    /// Never: it is dropped.
    Skip,
    /// Once a running process has finished (now, if none is running).
    Later,
}

/// What runs next: told of each finished task, asked for more when nothing is left.
pub trait Plan {
    /// Change a task just before it starts (e.g. leave out a scenario found hanging since it was
    /// queued), or hold it back.
    fn adjust(&mut self, task: &mut Task) -> Start;
    /// A task finished with these observations; the tasks returned run before the rest.
    fn done(&mut self, task: Task, observations: Vec<Observation>) -> Vec<Task>;
    /// Nothing is queued or running: more tasks, or none to end.
    fn idle(&mut self) -> Vec<Task>;
}

impl Prober<'_> {
    /// Run `queue` (and whatever `plan` adds) with up to the prober's workers side by side.
    /// Returns the tasks left unstarted because `--budget` was spent.
    pub fn run_pool(&mut self, queue: Vec<Task>, plan: &mut dyn Plan) -> Result<Vec<Task>, Error> {
        let mut queue: VecDeque<Task> = queue.into();
        let mut left = Vec::new();
        let target = self.target();
        let (tx, rx) = mpsc::channel();
        let mut failure: Option<Error> = None;
        std::thread::scope(|scope| {
            let mut in_flight = 0usize;
            loop {
                while in_flight < self.workers && failure.is_none() {
                    let Some(mut task) = queue.pop_front() else { break };
                    if self.spent() {
                        left.push(task);
                        left.extend(queue.drain(..));
                        break;
                    }
                    match plan.adjust(&mut task) {
                        Start::Skip => continue,
                        Start::Later if in_flight > 0 => {
                            queue.push_front(task);
                            break;
                        }
                        Start::Later | Start::Now => {}
                    }
                    let slot = Arc::clone(&self.slots).acquire();
                    match self.prepare(&task.names, task.seed, task.kind, task.purpose) {
                        Ok(Prepared { launch, meta }) => {
                            in_flight += 1;
                            let tx = tx.clone();
                            scope.spawn(move || {
                                let records = Prober::execute(target, launch, meta.seed());
                                drop(slot);
                                let _ = tx.send((task, meta, records));
                            });
                        }
                        Err(e) => failure = Some(e),
                    }
                }
                if in_flight == 0 {
                    if failure.is_some() || self.spent() {
                        left.extend(queue.drain(..));
                        break;
                    }
                    if queue.is_empty() {
                        queue.extend(plan.idle());
                        if queue.is_empty() {
                            break;
                        }
                    }
                    continue;
                }
                let (task, meta, records) = rx.recv().expect("a worker sends before it ends");
                in_flight -= 1;
                if failure.is_some() {
                    continue;
                }
                match self.finish(meta, records) {
                    Ok(obs) => {
                        for t in plan.done(task, obs).into_iter().rev() {
                            queue.push_front(t);
                        }
                    }
                    Err(e) => failure = Some(e),
                }
            }
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(left),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn slots_bound_what_holds_them_at_once() {
        let slots = Arc::new(Slots::new(2));
        let held = Arc::new(Mutex::new((0usize, 0usize))); // (now, most)
        std::thread::scope(|s| {
            for _ in 0..6 {
                let (slots, held) = (Arc::clone(&slots), Arc::clone(&held));
                s.spawn(move || {
                    let _slot = slots.acquire();
                    {
                        let mut h = held.lock().unwrap();
                        h.0 += 1;
                        h.1 = h.1.max(h.0);
                    }
                    std::thread::sleep(Duration::from_millis(5));
                    held.lock().unwrap().0 -= 1;
                });
            }
        });
        let (now, most) = *held.lock().unwrap();
        assert_eq!(now, 0);
        assert!((1..=2).contains(&most), "{most}");
    }
}
