//! The keyword options every entry point takes, as the library's [`Options`].

use deltafold::{Dialect, Options};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `dialect`, `lenient`, `think_tags` and the limits, as given from Python: the library's
/// options; an unknown dialect name is a `ValueError` naming the known ones.
pub fn options(
    dialect: Option<&str>,
    lenient: bool,
    think_tags: bool,
    max_message_bytes: Option<usize>,
    max_event_bytes: Option<usize>,
) -> PyResult<Options> {
    let mut options = Options::new().lenient(lenient).think_tags(think_tags);
    if let Some(name) = dialect {
        let dialect: Dialect =
            name.parse()
                .map_err(|error: deltafold::dialect::ParseDialectError| {
                    PyValueError::new_err(error.to_string())
                })?;
        options = options.dialect(dialect);
    }
    if let Some(bytes) = max_message_bytes {
        options = options.max_message_bytes(bytes);
    }
    if let Some(bytes) = max_event_bytes {
        options = options.max_event_bytes(bytes);
    }
    Ok(options)
}
