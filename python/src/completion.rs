//! `deltafold.Completion`: what a stream assembled into, a message per choice.

use deltafold::message::AiMessage;
use deltafold::Completion;
use pyo3::exceptions::{PyImportError, PyIndexError};
use pyo3::prelude::*;
use pyo3::types::PyList;

use crate::python_value::message_dict;

/// What a stream assembled into: one message per choice, and whether the stream was complete.
///
/// `message(choice)` is LangChain's `AIMessage` dict, equal to the CLI's `--json` output;
/// `to_langchain(choice)` builds the `langchain_core.messages.AIMessage` itself.
#[pyclass(name = "Completion", module = "deltafold", frozen)]
pub struct PyCompletion {
    completion: Completion,
}

impl From<Completion> for PyCompletion {
    fn from(completion: Completion) -> Self {
        PyCompletion { completion }
    }
}

impl PyCompletion {
    /// The message of the choice with that index. A completion without any choice has the
    /// empty message as its choice 0, as the CLI prints it.
    fn choice(&self, choice: u32) -> PyResult<AiMessage> {
        let found = self
            .completion
            .choices
            .iter()
            .find(|candidate| candidate.index == choice);
        match found {
            Some(found) => Ok(found.message.clone()),
            None if choice == 0 && self.completion.choices.is_empty() => Ok(AiMessage::default()),
            None => Err(PyIndexError::new_err(format!(
                "the completion has no choice {choice}"
            ))),
        }
    }
}

#[pymethods]
impl PyCompletion {
    /// The message of choice `choice` (the provider's choice index) as LangChain's `AIMessage`
    /// dict, with `response_metadata.finish_kind`: equal to the CLI's `--json` object.
    #[pyo3(signature = (choice = 0))]
    fn message<'py>(&self, py: Python<'py>, choice: u32) -> PyResult<Bound<'py, PyAny>> {
        message_dict(py, &self.choice(choice)?)
    }

    /// Every choice's message dict, in choice order.
    fn messages<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let dicts = self
            .completion
            .messages()
            .map(|message| message_dict(py, message))
            .collect::<PyResult<Vec<_>>>()?;
        PyList::new(py, dicts)
    }

    /// False when the stream did not end cleanly (lenient mode, or an error's partial); each
    /// message then says why in `response_metadata["incomplete"]`.
    #[getter]
    fn complete(&self) -> bool {
        self.completion.complete
    }

    /// The message of choice `choice` as a `langchain_core.messages.AIMessage`.
    ///
    /// Raises ImportError when langchain-core is not installed.
    #[pyo3(signature = (choice = 0))]
    fn to_langchain<'py>(&self, py: Python<'py>, choice: u32) -> PyResult<Bound<'py, PyAny>> {
        let messages = py.import("langchain_core.messages").map_err(|error| {
            PyImportError::new_err(format!(
                "Completion.to_langchain needs langchain-core (pip install langchain-core): {error}"
            ))
        })?;
        let dict = self.message(py, choice)?;
        messages
            .getattr("AIMessage")?
            .call_method1("model_validate", (dict,))
    }

    fn __repr__(&self) -> String {
        let texts: Vec<usize> = self
            .completion
            .messages()
            .map(|message| message.text().len())
            .collect();
        format!(
            "Completion(choices={}, complete={}, text_bytes={texts:?})",
            self.completion.choices.len(),
            if self.completion.complete {
                "True"
            } else {
                "False"
            }
        )
    }
}
