//! TEMPORARY minimal stand-in until the stats branch merges (same API).
#![allow(missing_docs)]
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
    pub level: f64,
}
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Center {
    GeometricMean,
    ArithmeticMean,
}
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Mild,
    Severe,
}
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outlier {
    pub index: usize,
    pub value: f64,
    pub severity: Severity,
}
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VarianceSplit {
    pub between: f64,
    pub within: f64,
    pub between_share: f64,
}
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub mean: f64,
    pub median: f64,
    pub std_dev: f64,
    pub cv: f64,
    pub min: f64,
    pub max: f64,
    pub center: Center,
    pub center_value: f64,
    pub ci: Option<Interval>,
    pub exact: bool,
    pub rel_half_width: Option<f64>,
    pub median_ci: Option<Interval>,
    pub outliers: Vec<Outlier>,
    pub variance_split: Option<VarianceSplit>,
    pub lag1_autocorr: Option<f64>,
    pub unstable: bool,
}
#[derive(Debug)]
pub struct StatsError(pub String);
pub fn summarize(v: &[f64], _within: Option<&[Vec<f64>]>, positive: bool, level: f64) -> Result<Summary, StatsError> {
    if v.is_empty() {
        return Err(StatsError("empty".into()));
    }
    let n = v.len();
    let nf = n as f64;
    let mean = v.iter().sum::<f64>() / nf;
    let var = if n > 1 {
        v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (nf - 1.0)
    } else {
        0.0
    };
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let median = s[n / 2];
    let geo = positive && v.iter().all(|x| *x > 0.0);
    let (center, cv_) = if geo {
        (Center::GeometricMean, (v.iter().map(|x| x.ln()).sum::<f64>() / nf).exp())
    } else {
        (Center::ArithmeticMean, mean)
    };
    let exact = var == 0.0;
    let ci = if n > 1 && !exact {
        use statrs::distribution::{ContinuousCDF, StudentsT};
        let t = StudentsT::new(0.0, 1.0, nf - 1.0).unwrap().inverse_cdf(0.5 + level / 2.0);
        if geo {
            let l: Vec<f64> = v.iter().map(|x| x.ln()).collect();
            let m = l.iter().sum::<f64>() / nf;
            let sd = (l.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (nf - 1.0)).sqrt();
            Some(Interval {
                low: (m - t * sd / nf.sqrt()).exp(),
                high: (m + t * sd / nf.sqrt()).exp(),
                level,
            })
        } else {
            let h = t * var.sqrt() / nf.sqrt();
            Some(Interval {
                low: mean - h,
                high: mean + h,
                level,
            })
        }
    } else {
        None
    };
    let rel = ci.as_ref().map(|c| (c.high - c.low) / 2.0 / cv_.abs());
    Ok(Summary {
        n,
        mean,
        median,
        std_dev: var.sqrt(),
        cv: var.sqrt() / mean.abs(),
        min: s[0],
        max: s[n - 1],
        center,
        center_value: cv_,
        ci,
        exact,
        rel_half_width: rel,
        median_ci: None,
        outliers: vec![],
        variance_split: None,
        lag1_autocorr: None,
        unstable: false,
    })
}
