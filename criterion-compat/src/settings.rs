//! criterion's setting types: [`Throughput`] (which becomes a harness rate metric) and the ones
//! accepted for source compatibility and otherwise ignored ([`SamplingMode`],
//! [`PlottingBackend`], [`PlotConfiguration`], [`AxisScale`], [`Baseline`]).

/// The work one iteration does; the measurement then also reports a rate.
///
/// | criterion | harness metric | unit |
/// |---|---|---|
/// | `Bytes(n)` | `gbytes_per_s` | GB/s (10^9 bytes per second) |
/// | `BytesDecimal(n)` | `gbytes_per_s` | GB/s (the same: harness rates are decimal) |
/// | `Elements(n)` | `melem_per_s` | Melem/s (10^6 elements per second) |
///
/// criterion 0.7's `Bits` is not offered: a bit count does not fit the harness's byte rate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Throughput {
    /// Bytes processed per iteration.
    Bytes(u64),
    /// Bytes processed per iteration, shown in decimal units (the harness always does).
    BytesDecimal(u64),
    /// Elements processed per iteration.
    Elements(u64),
}

impl Throughput {
    pub(crate) fn to_harness(&self) -> harness::Throughput {
        match *self {
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) => harness::Throughput::Bytes(n),
            Throughput::Elements(n) => harness::Throughput::Elements(n),
        }
    }
}

/// criterion's sampling plan. Ignored: the harness times `--iterations` samples per process,
/// each a batch of calls lasting at least 20 us.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum SamplingMode {
    /// criterion picks.
    #[default]
    Auto,
    /// Linearly growing iteration counts.
    Linear,
    /// The same iteration count in every sample.
    Flat,
}

/// Which library criterion draws plots with. Ignored: the harness writes its own `index.html`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlottingBackend {
    /// gnuplot.
    Gnuplot,
    /// plotters.
    Plotters,
    /// No plots.
    None,
}

/// Axis scale of criterion's summary plots. Ignored.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum AxisScale {
    /// Linear axes.
    #[default]
    Linear,
    /// Logarithmic axes.
    Logarithmic,
}

/// criterion's per-group plot settings. Ignored.
#[derive(Debug, Default, Clone)]
pub struct PlotConfiguration {
    summary_scale: AxisScale,
}

impl PlotConfiguration {
    /// Set the summary plots' axis scale (ignored).
    pub fn summary_scale(mut self, new_scale: AxisScale) -> PlotConfiguration {
        self.summary_scale = new_scale;
        self
    }
}

/// How criterion treats a saved baseline. Ignored: `compare` and `history` take its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Baseline {
    /// Compare, ignoring a missing baseline.
    CompareLenient,
    /// Compare, failing on a missing baseline.
    CompareStrict,
    /// Save.
    Save,
    /// Neither.
    Discard,
}
