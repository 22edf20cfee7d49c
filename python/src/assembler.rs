//! `deltafold.Assembler` (push bytes, get event dicts, finish) and `deltafold.assemble` (bytes
//! in, `Completion` out).
//!
//! The Rust work on a chunk of at least [`DETACH_AT`] bytes runs with the GIL released, so other
//! Python threads run meanwhile; the assembler behind a `Mutex` keeps two threads pushing into
//! one assembler correct (one waits for the other). The lock is never held while waiting for
//! the GIL: a detached push copies its events out, lets go of the lock, then converts them.

use std::sync::{Mutex, MutexGuard, PoisonError};

use deltafold::assemble::Event;
use deltafold::{Assembler, Completion};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyList, PyString};

use crate::completion::PyCompletion;
use crate::error::to_py_err;
use crate::options::options;
use crate::python_value::{event_dict, message_dict};

/// Chunks from this size on are assembled with the GIL released; below it, releasing and
/// taking back the GIL would cost more than the work.
const DETACH_AT: usize = 8 * 1024;

/// Assembles one stream pushed in pieces, as it arrives.
///
/// `push(chunk)` returns the events the chunk completed, each a dict equal to the CLI's
/// `--events` line for it (without `partial`); `close()` ends the input and returns the events
/// only the end completes; `finish()` returns the `Completion`, after which the assembler is
/// ready for a new stream. A failed `push` or `close` raises `deltafold.Error`; when events
/// came before the failure in the same call, they are returned and the error is raised by the
/// next call.
#[pyclass(name = "Assembler", module = "deltafold", frozen)]
pub struct PyAssembler {
    state: Mutex<State>,
}

/// The assembler, and an error that came after events already returned.
struct State {
    assembler: Assembler,
    pending: Option<deltafold::Error>,
}

impl State {
    /// Runs `step` on the assembler and reads every event it completes into `sink`. An error
    /// after some events is kept for the next call, so that those events reach the caller.
    fn run(
        &mut self,
        step: impl FnOnce(&mut Assembler),
        mut sink: impl FnMut(Event<'_>),
    ) -> Result<(), deltafold::Error> {
        if let Some(error) = self.pending.take() {
            return Err(error);
        }
        step(&mut self.assembler);
        let mut any = false;
        loop {
            match self.assembler.next_event() {
                Ok(Some(event)) => {
                    any = true;
                    sink(event);
                }
                Ok(None) => return Ok(()),
                Err(error) if any => {
                    self.pending = Some(error);
                    return Ok(());
                }
                Err(error) => return Err(error),
            }
        }
    }
}

impl PyAssembler {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic cannot leave the assembler half-updated in a way that matters more than the
        // panic itself, which PyO3 already turned into a Python exception.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// `step` and its events as a list of dicts; with the GIL released when `large`.
    fn events<'py>(
        &self,
        py: Python<'py>,
        large: bool,
        step: impl FnOnce(&mut Assembler) + Send,
    ) -> PyResult<Bound<'py, PyList>> {
        if large {
            let mut owned = Vec::new();
            py.detach(|| {
                self.lock()
                    .run(step, |event| owned.push(event.into_owned()))
            })
            .map_err(|error| to_py_err(py, error))?;
            let dicts = owned
                .iter()
                .map(|event| event_dict(py, event))
                .collect::<PyResult<Vec<_>>>()?;
            return PyList::new(py, dicts);
        }
        let mut dicts = Vec::new();
        self.lock()
            .run(step, |event| dicts.push(event_dict(py, &event)))
            .map_err(|error| to_py_err(py, error))?;
        PyList::new(py, dicts.into_iter().collect::<PyResult<Vec<_>>>()?)
    }
}

#[pymethods]
impl PyAssembler {
    /// An assembler for one stream at a time.
    ///
    /// `dialect` names the wire format (`"openai"`, `"anthropic"`, `"openai-responses"`,
    /// `"gemini"`, `"ollama"`, `"bedrock"`, `"cohere"`); None detects it from the first payload.
    /// `lenient` returns a cut stream as an incomplete `Completion` instead of raising;
    /// `think_tags` moves `<think>…</think>` text into reasoning; the limits bound the memory
    /// one message and one event may take.
    #[new]
    #[pyo3(signature = (*, dialect = None, lenient = false, think_tags = false, max_message_bytes = None, max_event_bytes = None))]
    fn new(
        dialect: Option<&str>,
        lenient: bool,
        think_tags: bool,
        max_message_bytes: Option<usize>,
        max_event_bytes: Option<usize>,
    ) -> PyResult<Self> {
        let options = options(
            dialect,
            lenient,
            think_tags,
            max_message_bytes,
            max_event_bytes,
        )?;
        Ok(PyAssembler {
            state: Mutex::new(State {
                assembler: Assembler::with_options(options),
                pending: None,
            }),
        })
    }

    /// Takes the next bytes of the stream; returns the events they completed.
    fn push<'py>(&self, py: Python<'py>, chunk: PyBackedBytes) -> PyResult<Bound<'py, PyList>> {
        self.events(py, chunk.len() >= DETACH_AT, |assembler| {
            assembler.push(&chunk)
        })
    }

    /// Ends the input; returns the events only the end completes (calls that finish at the
    /// end, `choice_finished`, `done`). A stream cut short raises a `"truncated"` error, unless
    /// the assembler is lenient.
    fn close<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.events(py, false, Assembler::end_input)
    }

    /// The message so far of choice `choice` as LangChain's `AIMessage` dict, or None before
    /// the choice began. It copies the message: ask now and then, not after every event.
    #[pyo3(signature = (choice = 0))]
    fn message<'py>(&self, py: Python<'py>, choice: u32) -> PyResult<Option<Bound<'py, PyAny>>> {
        let message = self.lock().assembler.message_so_far(choice);
        message
            .map(|message| message_dict(py, &message))
            .transpose()
    }

    /// Closes the input if that was not done and returns the `Completion`; the assembler is
    /// then ready for another stream.
    fn finish(&self, py: Python<'_>) -> PyResult<PyCompletion> {
        let finished = py.detach(|| {
            let mut state = self.lock();
            match state.pending.take() {
                Some(error) => {
                    state.assembler.reset();
                    Err(error)
                }
                None => state.assembler.finish_and_reset(),
            }
        });
        finished
            .map(PyCompletion::from)
            .map_err(|error| to_py_err(py, error))
    }
}

/// Assembles a whole stream: `data` is bytes or an iterable of bytes (chunks as read).
#[pyfunction]
#[pyo3(signature = (data, *, dialect = None, lenient = false, think_tags = false, max_message_bytes = None, max_event_bytes = None))]
pub fn assemble(
    py: Python<'_>,
    data: &Bound<'_, PyAny>,
    dialect: Option<&str>,
    lenient: bool,
    think_tags: bool,
    max_message_bytes: Option<usize>,
    max_event_bytes: Option<usize>,
) -> PyResult<PyCompletion> {
    let options = options(
        dialect,
        lenient,
        think_tags,
        max_message_bytes,
        max_event_bytes,
    )?;
    if data.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(
            "assemble() takes bytes or an iterable of bytes, not str",
        ));
    }
    let completion: Result<Completion, deltafold::Error> =
        if let Ok(bytes) = data.extract::<PyBackedBytes>() {
            py.detach(|| deltafold::assemble(&bytes, options))
        } else {
            let mut assembler = Assembler::with_options(options);
            for chunk in data.try_iter()? {
                let chunk: PyBackedBytes = chunk?.extract()?;
                let fed = if chunk.len() >= DETACH_AT {
                    py.detach(|| assembler.feed(&chunk))
                } else {
                    assembler.feed(&chunk)
                };
                if let Err(error) = fed {
                    return Err(to_py_err(py, error));
                }
            }
            py.detach(|| assembler.finish())
        };
    completion
        .map(PyCompletion::from)
        .map_err(|error| to_py_err(py, error))
}
