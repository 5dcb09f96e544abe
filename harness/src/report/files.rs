//! The one way an output file is written: whole, atomically (a temp file in the same directory,
//! then a rename, so a reader or a kill never sees half a file), with errors naming the file.

use std::path::Path;

use serde::Serialize;

use crate::errors::Error;

/// An I/O error saying what was being done (`writing results.json`, ...).
pub(crate) fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> Error {
    let what = what.into();
    move |source| Error::Io { what, source }
}

/// Write `bytes` to `path` atomically.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    let name = path.file_name().map_or_else(|| "out".into(), |n| n.to_string_lossy().into_owned());
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    std::fs::write(&tmp, bytes).map_err(io_err(format!("writing {}", tmp.display())))?;
    std::fs::rename(&tmp, path).map_err(io_err(format!("renaming {} to {}", tmp.display(), path.display())))
}

/// Write `value` as pretty JSON (with a final newline) to `path` atomically.
pub fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), Error> {
    let mut text = serde_json::to_string_pretty(value).expect("records serialize");
    text.push('\n');
    write_atomic(path, text.as_bytes())
}

/// Write `rows` as CSV (a header from the first row's field names) to `path` atomically.
pub fn write_csv_rows<R: Serialize>(path: &Path, rows: impl IntoIterator<Item = R>) -> Result<(), Error> {
    let err = |e: csv::Error| Error::Io {
        what: format!("writing {}", path.display()),
        source: e.into(),
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    for row in rows {
        w.serialize(row).map_err(err)?;
    }
    let bytes = w.into_inner().map_err(|e| err(e.into_error().into()))?;
    write_atomic(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.json");
        write_json(&p, &vec![1, 2]).unwrap();
        write_json(&p, &vec![3]).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "[\n  3\n]\n");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["x.json"]);
    }

    #[test]
    fn an_unwritable_place_is_an_error_naming_the_file() {
        let e = write_json(Path::new("/nonexistent-dir/y.json"), &1).unwrap_err().to_string();
        assert!(e.contains("y.json"), "{e}");
    }
}
