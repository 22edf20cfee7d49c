"""Errors: typed by kind, located, carrying what arrived; lenient mode; and no exception type
but deltafold.Error on any input."""

from __future__ import annotations

import random

import pytest

import deltafold
from conftest import FIXTURES

TEXT = (
    b'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
    b'data: {"id":"c1","model":"m","choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
CUT = TEXT[: TEXT.index(b"data: {", 10)]


def test_truncated_stream_raises_with_its_partial():
    with pytest.raises(deltafold.Error) as raised:
        deltafold.assemble(CUT)
    error = raised.value
    assert error.kind == "truncated"
    assert error.partial is not None and not error.partial.complete
    message = error.partial.message()
    assert message["content"] == "Hel"
    assert message["response_metadata"]["incomplete"]
    assert isinstance(error.location, tuple) and len(error.location) == 2


def test_lenient_returns_the_cut_stream_incomplete():
    completion = deltafold.assemble(CUT, lenient=True)
    assert not completion.complete
    assert completion.message()["content"] == "Hel"
    assert completion.message()["response_metadata"]["incomplete"].startswith("truncated")


def test_close_reports_the_cut_and_finish_still_answers():
    assembler = deltafold.Assembler()
    events = assembler.push(CUT)
    assert [event["type"] for event in events] == ["started", "text_delta"]
    with pytest.raises(deltafold.Error) as raised:
        assembler.close()
    assert raised.value.kind == "truncated"
    assert raised.value.partial.message()["content"] == "Hel"


def test_provider_error_midstream():
    data = (FIXTURES / "openai" / "error_midstream.sse").read_bytes()
    with pytest.raises(deltafold.Error) as raised:
        deltafold.assemble(data)
    assert raised.value.kind == "provider"
    assert raised.value.partial.message()["content"]


def test_malformed_payload_is_located():
    data = (FIXTURES / "openai" / "malformed.sse").read_bytes()
    with pytest.raises(deltafold.Error) as raised:
        deltafold.assemble(data)
    assert raised.value.kind == "malformed"
    event, offset = raised.value.location
    assert event == 3 and 0 < offset < len(data)
    assert f"event {event}, byte {offset}" in str(raised.value)


def test_invalid_utf8():
    with pytest.raises(deltafold.Error) as raised:
        deltafold.assemble((FIXTURES / "openai" / "latin1_byte.sse").read_bytes())
    assert raised.value.kind == "invalid_utf8"


def test_event_limit():
    big = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 5000 + b'"}}]}\n\n'
    with pytest.raises(deltafold.Error) as raised:
        deltafold.assemble(big + b"data: [DONE]\n\n", max_event_bytes=1024)
    assert raised.value.kind == "limit_exceeded"


def test_message_limit():
    chunk = b'data: {"choices":[{"index":0,"delta":{"content":"' + b"x" * 500 + b'"}}]}\n\n'
    with pytest.raises(deltafold.Error) as raised:
        deltafold.assemble(chunk * 20 + b"data: [DONE]\n\n", max_message_bytes=4096)
    assert raised.value.kind == "limit_exceeded"
    assert raised.value.partial is not None


def test_events_before_an_error_in_the_same_push_come_first():
    data = (FIXTURES / "openai" / "error_midstream.sse").read_bytes()
    assembler = deltafold.Assembler()
    events = assembler.push(data)
    assert events and events[0]["type"] == "started"
    with pytest.raises(deltafold.Error) as raised:
        assembler.close()
    assert raised.value.kind == "provider"


def test_dialect_option_is_checked():
    with pytest.raises(ValueError, match="unknown dialect"):
        deltafold.Assembler(dialect="titan")
    completion = deltafold.assemble(TEXT, dialect="openai")
    assert completion.message()["content"] == "Hello"


def test_caller_errors_are_python_errors():
    with pytest.raises(TypeError):
        deltafold.assemble("data: text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        deltafold.Assembler().push("text")  # type: ignore[arg-type]
    with pytest.raises(IndexError):
        deltafold.assemble(TEXT).message(3)


def test_any_bytes_raise_nothing_but_deltafold_error():
    """Random bytes, and every fixture cut and corrupted at random points."""
    rng = random.Random(28)
    inputs = [bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400))) for _ in range(200)]
    for path in sorted(FIXTURES.rglob("*.sse"))[:40]:
        data = bytearray(path.read_bytes())
        for _ in range(5):
            copy = bytearray(data)
            for _ in range(3):
                copy[rng.randrange(len(copy))] = rng.randrange(256)
            inputs.append(bytes(copy[: rng.randrange(len(copy) + 1)]))
    for data in inputs:
        for lenient in (False, True):
            try:
                completion = deltafold.assemble(data, lenient=lenient)
                completion.messages()
            except deltafold.Error as error:
                assert isinstance(error.kind, str)
                if error.partial is not None:
                    error.partial.messages()
            assembler = deltafold.Assembler(lenient=lenient)
            try:
                for start in range(0, len(data), 7):
                    assembler.push(data[start : start + 7])
                assembler.close()
                assembler.finish()
            except deltafold.Error:
                pass
