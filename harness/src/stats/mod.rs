//! Statistics over per-process values: intervals, outliers, tests. (Filled in by the stats work.)
