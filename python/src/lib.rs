//! The Python package `deltafold`'s compiled part, `deltafold._deltafold`: the assembler, the
//! completion and the error, on the library's public API. `stream` and `astream`, pure Python,
//! sit on top in `deltafold/__init__.py`.
//!
//! Events and messages become Python objects through their serde form, the one the CLI writes
//! (`Event`'s for `--events`, `wire::langchain::ai_message_dict` for `--json`), so the package
//! and the CLI cannot disagree.

use pyo3::prelude::*;

mod assembler;
mod completion;
mod error;
mod options;
mod python_value;

/// The module: `deltafold._deltafold`, re-exported by `deltafold`.
#[pymodule]
fn _deltafold(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add_class::<assembler::PyAssembler>()?;
    module.add_class::<completion::PyCompletion>()?;
    module.add("Error", py.get_type::<error::Error>())?;
    module.add_function(wrap_pyfunction!(assembler::assemble, module)?)?;
    Ok(())
}
