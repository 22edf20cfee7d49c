"""Every fixture and real recording gives the messages the CLI's `--json` prints and the events
its `--events` prints: assembled whole, pushed whole, pushed a byte at a time, and streamed."""

from __future__ import annotations

from pathlib import Path

import pytest

import deltafold
from conftest import cli_events, cli_messages, our_messages, run_cli, stream_id, streams

STREAMS = streams()


def replay(data: bytes, step: int):
    """Pushes `data` in pieces of `step` bytes, then closes and finishes: the events until the
    stream ended or failed, the completion and the error."""
    assembler = deltafold.Assembler()
    events = []
    try:
        for start in range(0, len(data), step):
            events += assembler.push(data[start : start + step])
        events += assembler.close()
        return events, assembler.finish(), None
    except deltafold.Error as error:
        return events, None, error


def check_outcome(path: Path, completion, error) -> None:
    """The completion, or the error's partial, is what the CLI printed; it failed when the CLI
    did, and with the same error."""
    cli = run_cli(path, "--json")
    if cli.failed:
        assert error is not None, f"the CLI failed: {cli.stderr}"
        assert completion is None
        assert f"deltafold: {error}".split("\n")[0][:50] in cli.stderr
        partial = error.partial
        if partial is not None and not partial.messages():
            partial = None  # the CLI prints a partial only when it holds a choice
        assert our_messages(partial) == cli_messages(path)
        if partial is not None:
            assert not partial.complete
    else:
        assert error is None, f"the CLI succeeded; we raised {error!r}"
        assert our_messages(completion) == cli_messages(path)


def test_there_are_streams_to_replay():
    assert len([path for path in STREAMS if "fixtures" in path.parts]) > 50


@pytest.mark.parametrize("path", STREAMS, ids=stream_id)
def test_assemble_whole_equals_cli_json(path: Path):
    data = path.read_bytes()
    try:
        completion, error = deltafold.assemble(data), None
    except deltafold.Error as raised:
        completion, error = None, raised
    check_outcome(path, completion, error)


@pytest.mark.parametrize("path", STREAMS, ids=stream_id)
def test_assemble_from_chunks_equals_cli_json(path: Path):
    data = path.read_bytes()
    chunks = [data[start : start + 100] for start in range(0, len(data), 100)]
    try:
        completion, error = deltafold.assemble(iter(chunks)), None
    except deltafold.Error as raised:
        completion, error = None, raised
    check_outcome(path, completion, error)


@pytest.mark.parametrize("step", [None, 1], ids=["whole", "byte-at-a-time"])
@pytest.mark.parametrize("path", STREAMS, ids=stream_id)
def test_pushed_events_equal_cli_events(path: Path, step):
    data = path.read_bytes()
    events, completion, error = replay(data, step or max(len(data), 1))
    assert events == cli_events(path)
    check_outcome(path, completion, error)


@pytest.mark.parametrize("path", STREAMS, ids=stream_id)
def test_stream_yields_cli_events_then_completion(path: Path):
    data = path.read_bytes()
    chunks = (data[start : start + 37] for start in range(0, len(data), 37))
    stream = deltafold.stream(chunks)
    events = []
    try:
        for event in stream:
            events.append(event)
        error = None
    except deltafold.Error as raised:
        error = raised
    assert events == cli_events(path)
    check_outcome(path, stream.completion, error)
