#!/usr/bin/env python3
"""Side-by-side timing of the Python assemblers on deltafold's generated streams.

Times, on the same files:
  * the OpenAI SDK's ChatCompletionStreamState (handle_chunk per chunk, then
    get_final_completion), chunks already parsed and built as ChatCompletionChunk objects;
  * LangChain's AIMessageChunk addition, chunks already converted by langchain-openai, in the
    documented `full = full + chunk` pattern (and, for reference, the one batch addition
    `chunks[0] + chunks[1:]` that langchain-core's generate_from_stream does);
  * deltafold as a whole process (read the file, assemble, print the message as JSON), with
    hyperfine when it is installed, else a loop of runs.

The peers' numbers are for assembly alone: reading, SSE splitting, json.loads and building the
chunk objects happen before the clock starts, which favours them.

Setup and run (from the repository root):
    pip install openai langchain-openai
    cargo bench --bench write_streams                  # writes target/bench-streams/*.sse
    cargo build --release --example assemble_file
    python3 benches/peers/peer.py target/bench-streams/issue3-*.sse \\
        --deltafold target/release/examples/assemble_file

Sequential LangChain addition is quadratic and takes minutes on the full 7 MB stream; it is
skipped above --langchain-max-mb (default 2) unless that is raised.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def payloads(path: str) -> list[dict]:
    """The JSON payloads of an SSE file (single-line `data:` events, as generated)."""
    chunks = []
    with open(path, encoding="utf-8") as stream:
        for line in stream:
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                break
            chunks.append(json.loads(data))
    return chunks


def timed(run, repeat: int) -> tuple[float, object]:
    """Median seconds of `repeat` runs, and the last result."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def openai_sdk(chunks: list[dict], repeat: int) -> tuple[float, dict]:
    from openai._models import construct_type
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    built = [construct_type(type_=ChatCompletionChunk, value=chunk) for chunk in chunks]

    def run():
        state = ChatCompletionStreamState()
        for chunk in built:
            for _event in state.handle_chunk(chunk):
                pass
        return state.get_final_completion()

    seconds, completion = timed(run, repeat)
    message = completion.choices[0].message
    summary = {
        "text": len(message.content or ""),
        "tool_calls": [len(call.function.arguments) for call in message.tool_calls or []],
    }
    return seconds, summary


def langchain_chunks(chunks: list[dict]):
    from langchain_core.messages import AIMessageChunk
    from langchain_openai import ChatOpenAI

    model = ChatOpenAI(model="gpt-4o", api_key="sk-not-used")
    converted = []
    for chunk in chunks:
        generation = model._convert_chunk_to_generation_chunk(chunk, AIMessageChunk, {})
        if generation is not None:
            converted.append(generation.message)
    return converted


def langchain_sequential(converted, repeat: int) -> tuple[float, dict]:
    def run():
        full = None
        for chunk in converted:
            full = chunk if full is None else full + chunk
        return full

    seconds, full = timed(run, repeat)
    return seconds, langchain_summary(full)


def langchain_batch(converted, repeat: int) -> tuple[float, dict]:
    seconds, full = timed(lambda: converted[0] + converted[1:], repeat)
    return seconds, langchain_summary(full)


def langchain_summary(message) -> dict:
    return {
        "text": len(message.content) if isinstance(message.content, str) else None,
        "tool_calls": [len(json.dumps(call["args"])) for call in message.tool_calls],
    }


def deltafold_process(command: list[str], path: str, runs: int) -> tuple[float, str]:
    """Median wall time of the whole deltafold process on `path`, output discarded."""
    if shutil.which("hyperfine"):
        with tempfile.NamedTemporaryFile(suffix=".json") as export:
            quoted = " ".join([*command, path])
            subprocess.run(
                [
                    "hyperfine", "--warmup", "3", "--runs", str(runs), "-N",
                    "--export-json", export.name, "--output", "null", quoted,
                ],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            result = json.load(open(export.name))["results"][0]
        return result["median"], "hyperfine"
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*command, path], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times), "loop"


def show(seconds: float | None) -> str:
    if seconds is None:
        return "skipped"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def ratio(peer: float | None, ours: float | None) -> str:
    if peer is None or ours is None:
        return "—"
    times = peer / ours
    return f"{times:.1f}×" if times < 10 else f"{times:,.0f}×"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="generated .sse files")
    parser.add_argument(
        "--deltafold",
        help="command that assembles a file given as its last argument, "
        "e.g. 'target/release/examples/assemble_file' or 'target/release/deltafold --json'",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per peer (median)")
    parser.add_argument(
        "--langchain-max-mb",
        type=float,
        default=2.0,
        help="skip sequential LangChain addition on larger files (it is quadratic)",
    )
    args = parser.parse_args()

    import langchain_core
    import openai

    print(
        f"openai {openai.__version__}, langchain-core {langchain_core.__version__}, "
        f"Python {sys.version.split()[0]}\n"
    )
    print(
        "| stream | size | chunks | deltafold, whole process | OpenAI SDK `ChatCompletionStreamState` "
        "| ÷ deltafold | LangChain `full + chunk` | ÷ deltafold | LangChain batch `chunks[0] + chunks[1:]` "
        "| ÷ deltafold |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for path in args.files:
        size_mb = os.path.getsize(path) / 1e6
        chunks = payloads(path)
        ours = None
        if args.deltafold:
            ours, _how = deltafold_process(args.deltafold.split(), path, runs=20)
        repeat_slow = 1 if size_mb > 1 else args.repeat
        openai_seconds, openai_summary = openai_sdk(chunks, repeat_slow)
        converted = langchain_chunks(chunks)
        sequential = None
        if size_mb <= args.langchain_max_mb:
            sequential, sequential_summary = langchain_sequential(converted, repeat_slow)
            assert sequential_summary == langchain_summary(converted[0] + converted[1:])
        batch, batch_summary = langchain_batch(converted, repeat_slow)
        assert batch_summary["text"] == openai_summary["text"], (batch_summary, openai_summary)
        print(
            f"| {os.path.basename(path)} | {size_mb:.2f} MB | {len(chunks)} | {show(ours)} "
            f"| {show(openai_seconds)} | {ratio(openai_seconds, ours)} "
            f"| {show(sequential)} | {ratio(sequential, ours)} "
            f"| {show(batch)} | {ratio(batch, ours)} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
