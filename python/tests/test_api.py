"""The rest of the API: the message so far, reuse, threads, the GIL, memory, LangChain."""

from __future__ import annotations

import gc
import sys
import threading

import pytest

import deltafold
from conftest import FIXTURES, REAL_SSE, cli_messages

PARALLEL = FIXTURES / "openai" / "parallel_tool_calls.sse"


def text_stream(deltas: int, word: str = "token ") -> bytes:
    """A chat-completion stream of `deltas` text deltas."""
    chunk = ('data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"%s"}}]}\n\n' % word).encode()
    end = b'data: {"id":"c","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    return chunk * deltas + end


def test_message_so_far_while_streaming():
    data = PARALLEL.read_bytes()
    assembler = deltafold.Assembler()
    assert assembler.message() is None
    half = data[: len(data) // 2]
    assembler.push(half)
    so_far = assembler.message()
    assert so_far is not None and so_far["type"] == "ai"
    assert so_far["tool_calls"] or so_far["invalid_tool_calls"] or so_far["content"] == ""
    assembler.push(data[len(data) // 2 :])
    assert assembler.message() == cli_messages(PARALLEL)[0]
    completion = assembler.finish()
    assert [completion.message()] == cli_messages(PARALLEL)


def test_message_so_far_at_the_end_equals_the_result():
    data = text_stream(3)
    assembler = deltafold.Assembler()
    assembler.push(data)
    so_far = assembler.message()
    assert so_far == assembler.finish().message()


def test_finish_closes_and_the_assembler_is_reused():
    data = PARALLEL.read_bytes()
    assembler = deltafold.Assembler()
    for _ in range(3):
        assembler.push(data)
        assert [assembler.finish().message()] == cli_messages(PARALLEL)


def test_two_threads_assembling_at_once_are_both_correct():
    streams = {"a": text_stream(20_000, "alpha "), "b": text_stream(20_000, "beta ")}
    results = {}

    def work(name: str) -> None:
        assembler = deltafold.Assembler()
        data = streams[name]
        texts = []
        for start in range(0, len(data), 64 * 1024):
            for event in assembler.push(data[start : start + 64 * 1024]):
                if event["type"] == "text_delta":
                    texts.append(event["text"])
        assembler.close()
        results[name] = ("".join(texts), assembler.finish().message()["content"])

    threads = [threading.Thread(target=work, args=(name,)) for name in streams]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results["a"] == ("alpha " * 20_000,) * 2
    assert results["b"] == ("beta " * 20_000,) * 2


def test_one_assembler_shared_by_two_threads_stays_consistent():
    data = text_stream(4_000)
    pieces = [data[start : start + 10_000] for start in range(0, len(data), 10_000)]
    assembler = deltafold.Assembler()
    lock = threading.Lock()
    order = iter(pieces)
    events = []

    def work() -> None:
        while True:
            with lock:  # the pieces in order; the pushes themselves race with message()
                piece = next(order, None)
                if piece is None:
                    return
                events.extend(assembler.push(piece))
            assembler.message()

    threads = [threading.Thread(target=work) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert "".join(e["text"] for e in events if e["type"] == "text_delta") == "token " * 4_000
    assert assembler.finish().message()["content"] == "token " * 4_000


def test_the_gil_is_released_while_a_large_chunk_is_assembled():
    """Another thread runs Python code during one large push. The switch interval is made
    long, so that without the release the other thread would not run until the push returned
    (and then it would find the push done)."""
    data = text_stream(300_000)
    started = threading.Event()
    done = False
    ran_during_push = 0

    def count() -> None:
        nonlocal ran_during_push
        started.wait()
        while not done:
            ran_during_push += 1

    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.5)
    try:
        counter = threading.Thread(target=count)
        counter.start()
        assembler = deltafold.Assembler()
        started.set()
        assembler.push(data)
        done = True
        counter.join()
    finally:
        sys.setswitchinterval(interval)
    assert ran_during_push > 0
    assert assembler.finish().message()["content"] == "token " * 300_000


def resident_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_no_memory_growth_over_repeated_use():
    data = (REAL_SSE / "openai__logprobs_text_tool_call__1.sse").read_bytes() if REAL_SSE.is_dir() else PARALLEL.read_bytes() * 1
    assembler = deltafold.Assembler()

    def once() -> None:
        deltafold.assemble(data).messages()
        for start in range(0, len(data), 4096):
            assembler.push(data[start : start + 4096])
        assembler.close()
        assembler.finish().message()
        try:
            deltafold.assemble(data[: len(data) // 2])
        except deltafold.Error as error:
            error.partial

    for _ in range(50):
        once()
    gc.collect()
    objects, before = len(gc.get_objects()), resident_bytes()
    for _ in range(500):
        once()
    gc.collect()
    grown = resident_bytes() - before
    # 500 rounds hold 1,500 completions' worth of messages if anything leaked: tens of MB.
    assert grown < 4 * 1024 * 1024, f"resident memory grew by {grown} bytes"
    assert len(gc.get_objects()) - objects < 100


def test_to_langchain_builds_langchain_s_ai_message():
    from langchain_core.messages import AIMessage, AIMessageChunk

    completion = deltafold.assemble(PARALLEL.read_bytes())
    message = completion.to_langchain()
    assert isinstance(message, AIMessage)
    expected = completion.message()
    assert message.id == expected["id"]
    assert message.tool_calls == [
        {"name": "get_weather", "args": {"city": "Paris", "unit": "c"}, "id": "call_A1xr", "type": "tool_call"},
        {"name": "get_time", "args": {"tz": "Europe/Paris"}, "id": "call_B2ys", "type": "tool_call"},
    ]
    assert message.usage_metadata["total_tokens"] == expected["usage_metadata"]["total_tokens"]
    assert message.response_metadata["finish_reason"] == "tool_calls"
    assert message.response_metadata["model_provider"] == "openai"
    # LangChain reads it back as its own: the standard blocks and a round trip through its dict.
    assert [block["type"] for block in message.content_blocks] == ["tool_call", "tool_call"]
    assert AIMessage.model_validate(message.model_dump()) == message
    # And it continues a conversation as LangChain's own chunk sum would have built it.
    assert isinstance(AIMessageChunk(content="", tool_calls=message.tool_calls), AIMessageChunk)


def test_to_langchain_text_and_reasoning():
    data = (FIXTURES / "deepseek" / "reasoning.sse").read_bytes()
    completion = deltafold.assemble(data)
    message = completion.to_langchain()
    dict_ = completion.message()
    assert message.text == dict_["content"] == "2 + 2 = 4."
    assert any(block["type"] == "reasoning" for block in message.content_blocks)


def test_to_langchain_without_langchain_names_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_core.messages", None)
    with pytest.raises(ImportError, match="langchain-core"):
        deltafold.assemble(PARALLEL.read_bytes()).to_langchain()


def test_the_package_is_typed():
    import importlib.resources

    files = importlib.resources.files("deltafold")
    assert files.joinpath("py.typed").is_file()
    assert files.joinpath("_deltafold.pyi").is_file()
    for name in deltafold.__all__:
        assert getattr(deltafold, name).__doc__, name
    for method in ("push", "close", "message", "finish"):
        assert getattr(deltafold.Assembler, method).__doc__
    for method in ("message", "messages", "to_langchain"):
        assert getattr(deltafold.Completion, method).__doc__


def test_each_text_block_ends_once_with_its_choice_and_block():
    data = (FIXTURES / "deepseek" / "reasoning.sse").read_bytes()
    assembler = deltafold.Assembler()
    events = assembler.push(data) + assembler.close()
    types = [event["type"] for event in events]
    ends = [event for event in events if event["type"].endswith("_end")]
    assert ends == [
        {"type": "reasoning_end", "choice": 0, "block": 0},
        {"type": "text_end", "choice": 0, "block": 1},
    ]
    # The reasoning ends before the first text delta; the text before its choice finishes.
    assert types.index("reasoning_end") < types.index("text_delta")
    assert types.index("text_end") < types.index("choice_finished")
    assert list(ends[0]) == ["type", "choice", "block"]


def test_a_finished_call_is_its_content_block_and_argument_deltas_carry_no_partial():
    assembler = deltafold.Assembler()
    events = assembler.push(PARALLEL.read_bytes()) + assembler.close()
    finished = [event["call"] for event in events if event["type"] == "tool_call_finished"]
    assert finished == cli_messages(PARALLEL)[0]["tool_calls"]
    deltas = [event for event in events if event["type"] == "tool_call_arguments_delta"]
    assert deltas and all(sorted(event) == ["choice", "delta", "index", "type"] for event in deltas)
