#!/usr/bin/env python3
"""deltafold's Python package against the Python assemblers, on one long stream, in one run.

Times, in this process, on the same file (by default the 7 MB `issue3-full` stream that
`cargo bench --bench write_streams` writes, the one of benches/README.md's Python table):
  * deltafold.assemble(bytes): the whole stream in one call, then the message dict;
  * deltafold.Assembler.push per SSE event (one chunk per event, as a server flushes them),
    every event returned as a dict, then finish() and the message dict: the streaming path;
  * the OpenAI SDK's ChatCompletionStreamState (handle_chunk per chunk), on chunks already
    parsed and built as ChatCompletionChunk objects, as benches/peers/peer.py times it; and the
    same from the bytes (SSE lines split, json.loads, the chunk objects built, then handled);
  * LangChain's AIMessageChunk sum `full = full + chunk` on chunks already converted by
    langchain-openai, and the one batch addition `chunks[0] + chunks[1:]` for reference.

Ratios are peer time ÷ deltafold time (the push path, the slower of deltafold's two).

    pip install ./python openai langchain-openai
    cargo bench --bench write_streams        # writes target/bench-streams/issue3-full.sse
    python3 python/bench/bench.py [FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benches" / "peers"))

import peer  # noqa: E402  (benches/peers/peer.py: the peers as the Rust benches time them)

import deltafold  # noqa: E402


def sse_events(data: bytes) -> list:
    """The stream cut after each blank line: one chunk per event."""
    return [event + b"\n\n" for event in data.split(b"\n\n") if event]


def deltafold_assemble(data: bytes):
    return deltafold.assemble(data).message()


def deltafold_push(chunks: list):
    assembler = deltafold.Assembler()
    count = 0
    for chunk in chunks:
        count += len(assembler.push(chunk))
    count += len(assembler.close())
    return assembler.finish().message(), count


def openai_from_bytes(data: bytes):
    """The SDK's path from the bytes: SSE lines, json.loads, ChatCompletionChunk, the state."""
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    state = ChatCompletionStreamState()
    for line in data.decode().splitlines():
        if not line.startswith("data:"):
            continue
        payload = line[5:].strip()
        if payload == "[DONE]":
            break
        chunk = construct_type(type_=ChatCompletionChunk, value=json.loads(payload))
        for _event in state.handle_chunk(chunk):
            pass
    return state.get_final_completion()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "file", nargs="?", default=str(ROOT / "target" / "bench-streams" / "issue3-full.sse")
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of deltafold (median)")
    args = parser.parse_args()

    import langchain_core
    import openai

    data = Path(args.file).read_bytes()
    chunks = sse_events(data)
    payloads = peer.payloads(args.file)
    print(
        f"{Path(args.file).name}: {len(data) / 1e6:.2f} MB, {len(payloads)} chunks; "
        f"openai {openai.__version__}, langchain-core {langchain_core.__version__}, "
        f"Python {sys.version.split()[0]}"
    )

    whole, message = peer.timed(lambda: deltafold_assemble(data), args.repeat)
    pushed, (pushed_message, events) = peer.timed(lambda: deltafold_push(chunks), args.repeat)
    assert pushed_message == message
    sdk_state, sdk_summary = peer.openai_sdk(payloads, 1)
    sdk_bytes, completion = peer.timed(lambda: openai_from_bytes(data), 1)
    converted = peer.langchain_chunks(payloads)
    langchain_sum, langchain_summary = peer.langchain_sequential(converted, 1)
    langchain_batch, _ = peer.langchain_batch(converted, 1)

    text = message["content"] if isinstance(message["content"], str) else None
    assert sdk_summary["text"] == len(text or ""), (sdk_summary, len(text or ""))
    assert langchain_summary["text"] == len(text or "")
    assert completion.choices[0].message.content == text

    rows = [
        ("deltafold.assemble(bytes)", whole),
        (f"deltafold Assembler.push per event ({events} event dicts)", pushed),
        ("OpenAI SDK ChatCompletionStreamState (chunks pre-built)", sdk_state),
        ("OpenAI SDK from the bytes (SSE, json.loads, chunk objects, state)", sdk_bytes),
        ("LangChain `full = full + chunk` (chunks pre-converted)", langchain_sum),
        ("LangChain batch `chunks[0] + chunks[1:]`", langchain_batch),
    ]
    print()
    print("| contestant | time | ÷ deltafold push | ÷ deltafold assemble |")
    print("|---|---|---|---|")
    for name, seconds in rows:
        print(
            f"| {name} | {peer.show(seconds)} | {peer.ratio(seconds, pushed)} "
            f"| {peer.ratio(seconds, whole)} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
