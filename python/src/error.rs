//! `deltafold.Error`: every failure of a stream, with its kind, where it happened and what was
//! assembled before it.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

use crate::completion::PyCompletion;

create_exception!(
    deltafold,
    Error,
    PyException,
    "A stream that could not be assembled.\n\n\
     `kind` says why (`\"truncated\"`, `\"provider\"`, `\"malformed\"`, `\"invalid_utf8\"`, \
     `\"limit_exceeded\"`…), `partial` is a `Completion` with what arrived before the failure \
     (or None) and `location` is `(event_number, byte_offset)` (or None)."
);

/// The library's error as a `deltafold.Error`, its partial result moved into it.
pub fn to_py_err(py: Python<'_>, error: deltafold::Error) -> PyErr {
    let kind = error.kind().as_str();
    let location = error.location().map(|at| (at.event, at.offset));
    let message = error.to_string();
    let partial = error.into_partial().map(PyCompletion::from);
    let err = Error::new_err(message);
    let value = err.value(py);
    let set = || -> PyResult<()> {
        value.setattr("kind", kind)?;
        value.setattr("location", location)?;
        value.setattr("partial", partial)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(failed) => failed,
    }
}
