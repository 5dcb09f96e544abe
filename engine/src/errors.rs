//! Error types of the engine, one enum per module: [`ConfigError`], [`KernelError`], [`SamplingError`], [`KvCacheError`], [`CudaError`].

use thiserror::Error;

/// A runtime-config knob (an `ENGINE_*` environment variable) has a value the engine does not accept.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// The variable is set to something outside its accepted values.
    #[error("{var}={value:?} is not valid: expected {accepted}")]
    InvalidValue {
        /// The environment variable, e.g. `ENGINE_EP`.
        var: &'static str,
        /// The value as found in the environment.
        value: String,
        /// Human description of the accepted values.
        accepted: &'static str,
    },
}

/// A frozen knob whose environment variable changed after the config was frozen.
///
/// Debug builds panic with this message; see [`crate::config::runtime_config`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error(
    "{var} changed after the runtime config was frozen: frozen {}, now {}. \
     The config is read once per process; run this phase in a process of its own (harness env matrix)",
    show(.frozen), show(.now)
)]
pub struct ConfigChanged {
    /// The environment variable that changed.
    pub var: &'static str,
    /// Its value when the config was frozen (`None`: unset).
    pub frozen: Option<String>,
    /// Its value now (`None`: unset).
    pub now: Option<String>,
}

fn show(value: &Option<String>) -> String {
    match value {
        Some(v) => format!("{v:?}"),
        None => "unset".to_owned(),
    }
}

/// A CPU kernel was called with inconsistent shapes or arguments.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KernelError {
    /// A buffer's length does not match the shape given with it.
    #[error("{what} has length {actual}, expected {expected}")]
    LengthMismatch {
        /// Which buffer, e.g. `matmul b (k x n)`.
        what: &'static str,
        /// Length implied by the shape.
        expected: usize,
        /// Length passed in.
        actual: usize,
    },
    /// A gather index points past the end of the table.
    #[error("gather index {index} at position {position} is out of range for a table of {rows} rows")]
    IndexOutOfRange {
        /// Position of the bad index in the index list.
        position: usize,
        /// The bad index.
        index: usize,
        /// Rows in the table.
        rows: usize,
    },
    /// A thread count of zero was passed.
    #[error("threads = {threads} is not valid: expected a positive thread count")]
    InvalidThreads {
        /// The thread count passed in.
        threads: usize,
    },
    /// A reduction over zero elements has no mean.
    #[error("{what} is empty: the mean of zero elements is undefined")]
    Empty {
        /// Which extent is zero, e.g. `reduce_mean_rows cols`.
        what: &'static str,
    },
}

/// A sampler or logits processor got a bad parameter or unusable logits.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum SamplingError {
    /// A processor parameter is outside its valid range.
    #[error("{name} = {value} is not valid: expected {accepted}")]
    InvalidParameter {
        /// The parameter, e.g. `top_p`.
        name: &'static str,
        /// The value passed in.
        value: f64,
        /// Human description of the valid range.
        accepted: &'static str,
    },
    /// The logits vector is empty.
    #[error("logits is empty: nothing to sample from")]
    EmptyLogits,
    /// Every logit is -inf or NaN after processing, so no token can be drawn.
    #[error("logits has no finite value among {len} entries: every token was filtered out")]
    NoFiniteLogits {
        /// Length of the logits vector.
        len: usize,
    },
}

/// The paged KV-cache allocator refused an operation; its state is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KvCacheError {
    /// A [`crate::kv_cache::PageConfig`] field is zero.
    #[error("kv cache {field} = {value} is not valid: expected a positive number")]
    InvalidConfig {
        /// The field, e.g. `tokens_per_page`.
        field: &'static str,
        /// The value passed in.
        value: usize,
    },
    /// Not enough free pages for the request.
    #[error("kv cache pool exhausted: {requested} pages requested, {free} free of {total}")]
    PoolExhausted {
        /// Pages the operation needed.
        requested: usize,
        /// Pages free at the time.
        free: usize,
        /// Pages in the pool.
        total: usize,
    },
    /// The sequence id is not live: never allocated, or already freed (a double free).
    #[error("kv cache sequence {seq} is not allocated (never allocated or already freed)")]
    UnknownSequence {
        /// The sequence id passed in.
        seq: u64,
    },
    /// A token position past the sequence's length.
    #[error("kv cache position {pos} is out of range for sequence {seq} of {len} tokens")]
    PositionOutOfRange {
        /// The sequence id.
        seq: u64,
        /// The position asked for.
        pos: usize,
        /// Tokens in the sequence.
        len: usize,
    },
}

/// A CUDA operation failed, or CUDA is not there to run it. See [`crate::cuda`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CudaError {
    /// No usable driver, device or NVRTC on this machine; the reason says which.
    #[error("CUDA is unavailable: {0}")]
    Unavailable(crate::cuda::Unavailable),
    /// A driver call returned an error code.
    #[error("{call} failed: {source}")]
    Driver {
        /// The driver entry point or cudarc function, e.g. `cuMemCreate`.
        call: &'static str,
        /// The driver's error.
        source: cudarc::driver::DriverError,
    },
    /// NVRTC could not compile the engine's kernels; the log is NVRTC's.
    #[error("NVRTC compile of the engine kernels for {arch} failed: {log}")]
    Compile {
        /// The target passed to NVRTC, e.g. `sm_90`.
        arch: String,
        /// NVRTC's message and log.
        log: String,
    },
    /// A host slice and offset reach past the end of a device buffer.
    #[error("{what}: words {offset}..{end} are out of range for a buffer of {len} words")]
    OutOfRange {
        /// The operation, e.g. `TestStream::read`.
        what: &'static str,
        /// First word.
        offset: usize,
        /// One past the last word.
        end: usize,
        /// Words in the buffer.
        len: usize,
    },
    /// The KV cache was asked to hold more tokens than its reserved address range.
    #[error("device kv cache: {requested} tokens requested, the reserved range holds {max_tokens}")]
    KvReservationExceeded {
        /// Tokens asked for.
        requested: usize,
        /// Tokens the reservation holds.
        max_tokens: usize,
    },
    /// A device KV cache parameter is zero.
    #[error("device kv cache {field} = {value} is not valid: expected a positive number")]
    InvalidKvConfig {
        /// The field, e.g. `stride_bytes`.
        field: &'static str,
        /// The value passed in.
        value: usize,
    },
    /// Stream capture ended without producing a graph.
    #[error("stream capture of the decode step produced no graph")]
    EmptyCapture,
}

impl CudaError {
    /// Wraps a driver error with the call that returned it.
    pub fn driver(call: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> CudaError {
        move |source| CudaError::Driver { call, source }
    }
}
