//! Rust values to Python objects through their serde form: events and message dicts.

use deltafold::assemble::Event;
use deltafold::message::AiMessage;
use deltafold::wire::langchain::ai_message_dict;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// An event as a dict: the CLI's `--events` line for it, without `partial`.
pub fn event_dict<'py>(py: Python<'py>, event: &Event<'_>) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, event).map_err(value_error)
}

/// A message as LangChain's `AIMessage` dict: the CLI's `--json` object for it.
pub fn message_dict<'py>(py: Python<'py>, message: &AiMessage) -> PyResult<Bound<'py, PyAny>> {
    pythonize::pythonize(py, &ai_message_dict(message)).map_err(value_error)
}

/// A value serde could not write as Python objects (not expected: events and messages are
/// plain JSON data).
fn value_error(error: pythonize::PythonizeError) -> PyErr {
    PyValueError::new_err(error.to_string())
}
