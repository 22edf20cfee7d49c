//! The keyword options every entry point takes, as the library's [`Options`].

use deltafold::{Dialect, Options};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// `dialect`, `lenient`, `think_tags` and the limits, as given from Python.
pub struct PyOptions<'a> {
    pub dialect: Option<&'a str>,
    pub lenient: bool,
    pub think_tags: bool,
    pub max_message_bytes: Option<usize>,
    pub max_event_bytes: Option<usize>,
}

impl PyOptions<'_> {
    /// The library's options; an unknown dialect name is a `ValueError` naming the known ones.
    pub fn build(&self) -> PyResult<Options> {
        let mut options = Options::new()
            .lenient(self.lenient)
            .think_tags(self.think_tags);
        if let Some(name) = self.dialect {
            let dialect: Dialect =
                name.parse()
                    .map_err(|error: deltafold::dialect::ParseDialectError| {
                        PyValueError::new_err(error.to_string())
                    })?;
            options = options.dialect(dialect);
        }
        if let Some(bytes) = self.max_message_bytes {
            options = options.max_message_bytes(bytes);
        }
        if let Some(bytes) = self.max_event_bytes {
            options = options.max_event_bytes(bytes);
        }
        Ok(options)
    }
}
