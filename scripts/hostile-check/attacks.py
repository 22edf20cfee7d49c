#!/usr/bin/env python3
"""Issue 25's outside check: 25 generated attacks on the built CLI as a black box.

    attacks.py [--cli target/release/deltafold] [--only NAME[,NAME...]] [--runs 3]

Every attack writes its own hostile input at two sizes, N and 2N (the generators are written
here from the issue's text and the providers' documented stream shapes; nothing is imported from
the repository), runs the CLI on each as a fresh child process and reads that child's rusage with
`os.wait4`: peak resident memory (`ru_maxrss`) and CPU time (user + system, never wall-clock).
The judges, for every attack and every way of running it (its variants):

- memory: peak RSS <= 8 x input + 64 MiB, at both sizes;
- time: CPU(2N) <= 3 x CPU(N), each the least of `--runs` runs;
- output: bytes(2N) <= 2.5 x bytes(N);
- exact: the attack's own check on the output (numbers as sent, every call and its arguments,
  the text); a terminal attack runs the CLI under a pseudo-terminal and no raw bidirectional,
  invisible-format or control character may reach it (escaped forms are fine);
- a typed limit error (exit non-zero, an error line naming the limit) holds when memory and time
  hold; any other non-zero exit fails, and exit 0 with a changed value fails.

Prints one row per attack and variant, then the reasons of every failure; exits 1 when any
attack fails. Python 3.11, standard library only.
"""

from __future__ import annotations

import argparse
import fcntl
import http.server
import json
import os
import pty
import re
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
import tty
import unicodedata
import zlib
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Callable

MIB = 1 << 20
MEMORY_FACTOR = 8
MEMORY_CONSTANT = 64 * MIB
CPU_FACTOR = 3.0
OUTPUT_FACTOR = 2.5
# A run of this much CPU time or more is measured once; shorter ones up to --runs times.
QUIET_CPU = 0.3


# ---------------------------------------------------------------------------------------------
# Stream shapes, written from the providers' documentation.


def dumps(value) -> str:
    """Compact JSON; characters past ASCII are written raw (the hostile ones too)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def sse(payloads, done: bool = True) -> bytes:
    body = "".join(f"data: {p if isinstance(p, str) else dumps(p)}\n\n" for p in payloads)
    if done:
        body += "data: [DONE]\n\n"
    return body.encode()


def named_sse(events) -> bytes:
    """An event stream with `event:` names (Anthropic, Responses)."""
    return "".join(f"event: {name}\ndata: {dumps(data)}\n\n" for name, data in events).encode()


def chat_chunk(choices, model="gpt-hostile", **top) -> dict:
    chunk = {"id": "chatcmpl-hostile", "object": "chat.completion.chunk", "created": 1767000000,
             "model": model, "choices": choices}
    chunk.update(top)
    return chunk


def chat_choice(delta, index=0, finish=None, **extra) -> dict:
    choice = {"index": index, "delta": delta, "finish_reason": finish}
    choice.update(extra)
    return choice


def call_start(index, call_id, name, arguments="") -> dict:
    return {"index": index, "id": call_id, "type": "function",
            "function": {"name": name, "arguments": arguments}}


def call_piece(index, arguments) -> dict:
    return {"index": index, "function": {"arguments": arguments}}


def one_call_stream(arguments: str, pieces_of: int = 100, name="lookup", call_id="call_1",
                    model="gpt-hostile", finish="tool_calls") -> bytes:
    chunks = [chat_chunk([chat_choice({"role": "assistant",
                                       "tool_calls": [call_start(0, call_id, name)]})], model)]
    for at in range(0, len(arguments), pieces_of):
        chunks.append(chat_chunk([chat_choice({"tool_calls": [call_piece(0, arguments[at:at + pieces_of])]})], model))
    chunks.append(chat_chunk([chat_choice({}, finish=finish)], model))
    return sse(chunks)


def bedrock_frame(event_type: str, payload: dict) -> bytes:
    """One message of AWS's binary event stream: prelude, CRC, string headers, payload, CRC."""
    headers = b""
    for name, value in ((":event-type", event_type), (":content-type", "application/json"),
                        (":message-type", "event")):
        headers += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(value)) + value.encode()
    body = dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


# ---------------------------------------------------------------------------------------------
# Reading the CLI's output.


def json_lines(data: bytes) -> list:
    return [json.loads(line, parse_float=Decimal) for line in data.splitlines() if line.strip()]


def sse_data(data: bytes) -> list:
    """The JSON payloads of the `data:` lines the CLI wrote (`--to`)."""
    values = []
    for line in data.decode().splitlines():
        if line.startswith("data:"):
            text = line[5:].strip()
            if text and text != "[DONE]":
                values.append(json.loads(text, parse_float=Decimal))
    return values


def messages(data: bytes) -> list:
    value = json.loads(data, parse_float=Decimal)
    return value if isinstance(value, list) else [value]


def text_of(message: dict) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or [] if block.get("type") == "text")


def reasoning_of(message: dict) -> str:
    found = (message.get("additional_kwargs") or {}).get("reasoning_content")
    if found:
        return found
    return "".join(block.get("reasoning", "") for block in message.get("content_blocks") or []
                   if block.get("type") == "reasoning")


def strings_in(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, member in value.items():
            yield key
            yield from strings_in(member)
    elif isinstance(value, list):
        for member in value:
            yield from strings_in(member)


# Characters that must never reach a terminal raw: C0 and C1 controls but the line end, every
# format character (bidirectional embeddings, overrides and isolates, zero-width characters, the
# byte order mark…), the line and paragraph separators.
def raw_format_characters(text: str) -> list[str]:
    found = set()
    for char in text:
        if char == "\n":
            continue
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            found.add(f"U+{ord(char):04X}")
    return sorted(found)


# ---------------------------------------------------------------------------------------------
# Running the CLI.


@dataclass
class Run:
    rc: int
    rss: int
    cpu: float
    stdout: bytes
    stderr: bytes
    input_bytes: int


@dataclass
class Variant:
    """One way of running an attack's input: the CLI's arguments, whether on a terminal."""
    label: str
    argv: list[str]
    terminal: bool = False


@dataclass
class Attack:
    name: str
    what: str
    build: Callable[[int], bytes]
    size: int
    variants: list[Variant]
    check: Callable[[Run, int, Variant], str | None]
    serve: str | None = None  # "trickle" or "gzip": the input is served over HTTP
    errors_expected: bool = False


# `ru_maxrss` of a process is carried over an exec from the memory it had before: a child forked
# (or vforked) from this script would report this script's own peak, which grows with the bodies
# it holds. So every run goes through a small fresh launcher, which forks the CLI from its own
# few MiB, waits for it with wait4 and reports the grandchild's rusage on a pipe. The alarm set
# before the exec survives it and ends a CLI that hangs.
LAUNCHER = """
import os, signal, sys
report, timeout, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
pid = os.fork()
if pid == 0:
    os.close(report)
    signal.alarm(timeout)
    os.execv(argv[0], argv)
_, status, usage = os.wait4(pid, 0)
os.write(report, b"%d %d %.6f" % (os.waitstatus_to_exitcode(status), usage.ru_maxrss * 1024,
                                  usage.ru_utime + usage.ru_stime))
"""


def spawn(cli: str, argv: list[str], terminal: bool, timeout: int) -> Run:
    env = dict(os.environ, COLUMNS="120", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    report_read, report_write = os.pipe()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        command = [sys.executable, "-S", "-c", LAUNCHER, str(report_write), str(timeout), cli, *argv]
        if terminal:
            master, slave = pty.openpty()
            tty.setraw(slave)  # no line-end translation: every byte is the CLI's own
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 120, 0, 0))
            launcher = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=slave, stderr=err,
                                        env=env, pass_fds=(report_write,))
            os.close(slave)
            os.close(report_write)
            while True:
                try:
                    piece = os.read(master, 1 << 16)
                except OSError:  # EIO: every writer of the terminal has closed it
                    break
                if not piece:
                    break
                out.write(piece)
            os.close(master)
        else:
            launcher = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                        env=env, pass_fds=(report_write,))
            os.close(report_write)
        with os.fdopen(report_read, "rb") as report:
            fields = report.read().split()
        launcher.wait()
        if len(fields) != 3:
            raise RuntimeError(f"the launcher reported nothing (exit {launcher.returncode})")
        out.seek(0)
        err.seek(0)
        return Run(int(fields[0]), int(fields[1]), float(fields[2]), out.read(), err.read(), 0)


class Server:
    """A local HTTP server on 127.0.0.1, port 0, serving one body: in small chunks with pauses
    (`trickle`) or gzip-compressed in one piece (`gzip`)."""

    def __init__(self, body: bytes, mode: str):
        self.body = body
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                if mode == "gzip":
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(outer.body)))
                    self.end_headers()
                    self.wfile.write(outer.body)
                    return
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                try:
                    for n, at in enumerate(range(0, len(outer.body), 61)):
                        piece = outer.body[at:at + 61]
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        if n % 32 == 31:
                            time.sleep(0.0005)
                    self.wfile.write(b"0\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_POST = do_GET

        class Quiet(http.server.ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # the CLI hangs up once it has refused the body: that is its answer

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1/chat/completions"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def run_once(cli: str, attack: Attack, variant: Variant, body: bytes, path: Path) -> Run:
    if attack.serve:
        server = Server(body, attack.serve)
        try:
            run = spawn(cli, ["--url", server.url, *variant.argv], variant.terminal, 120)
        finally:
            server.close()
        run.input_bytes = len(body)
        return run
    run = spawn(cli, [*variant.argv, str(path)], variant.terminal, 120)
    run.input_bytes = len(body)
    return run


# ---------------------------------------------------------------------------------------------
# Checks shared by several attacks.


def limit_or(check):
    """A typed limit error holds (its memory and time are judged apart); any other non-zero exit
    does not; exit 0 goes to the attack's own check."""

    def judged(run: Run, k: int, variant: Variant):
        if run.rc != 0:
            error = run.stderr.decode(errors="replace").strip().splitlines()
            if run.rc == 1 and error and "limit" in run.stderr.decode(errors="replace").lower():
                return None
            return f"exit {run.rc}: {error[-1][:200] if error else 'no error line'}"
        try:
            return check(run, k, variant)
        except Exception as problem:  # an output the check cannot read is a failure too
            return f"output unreadable: {type(problem).__name__}: {str(problem)[:200]}"

    return judged


def expect_error(needle: str):
    def judged(run: Run, k: int, variant: Variant):
        text = run.stderr.decode(errors="replace")
        if run.rc == 0:
            return "exit 0 where a limit error was due"
        if needle not in text.lower():
            return f"exit {run.rc} without naming {needle!r}: {text.strip()[:200]}"
        return None

    return judged


def no_raw_format(run: Run) -> str | None:
    found = raw_format_characters(run.stdout.decode(errors="replace"))
    return f"raw on the terminal: {', '.join(found[:12])}" if found else None


# ---------------------------------------------------------------------------------------------
# 1. --events on one call's arguments in many fragments.


def fragments_arguments(k: int) -> str:
    return dumps({"rows": [f"r{i:07d}-" + "x" * 80 for i in range(k)]})


def check_fragments(run: Run, k: int, variant: Variant):
    expected = json.loads(fragments_arguments(k))
    finished = [e for e in json_lines(run.stdout) if e.get("type") == "tool_call_finished"]
    if len(finished) != 1:
        return f"{len(finished)} tool_call_finished events, 1 expected"
    return refused(finished[0]["call"]) or (
        None if find_args(finished[0]) == expected else "the finished call's arguments differ from those sent")


def refused(call: dict) -> str | None:
    """A valid call sent that came out as an invalid one, with the reason given."""
    if call.get("type") == "invalid_tool_call":
        return f"exit 0, the call came out invalid: {call.get('error')}"
    return None


def find_args(event: dict):
    for key in ("args", "arguments"):
        if key in event:
            return event[key]
    for member in event.values():
        if isinstance(member, dict):
            found = find_args(member)
            if found is not None:
                return found
    return None


# ---------------------------------------------------------------------------------------------
# 2. Two calls with 64 KiB names and ids, alternating one-byte fragments, on the live display.


def long_names_stream(k: int) -> bytes:
    name = ["n" * 65536, "m" * 65536]
    ids = ["a" * 65536, "b" * 65536]
    chunks = [chat_chunk([chat_choice({"role": "assistant", "tool_calls": [
        call_start(0, ids[0], name[0], "{\"v\":\""), call_start(1, ids[1], name[1], "{\"v\":\"")]})])]
    for i in range(k):
        chunks.append(chat_chunk([chat_choice({"tool_calls": [call_piece(i % 2, "xy"[i % 2])]})]))
    chunks.append(chat_chunk([chat_choice({"tool_calls": [call_piece(0, "\"}"), call_piece(1, "\"}")]})]))
    chunks.append(chat_chunk([chat_choice({}, finish="tool_calls")]))
    return sse(chunks)


def check_long_names(run: Run, k: int, variant: Variant):
    problem = no_raw_format(run)
    if problem:
        return problem
    text = run.stdout.decode(errors="replace")
    # the headers show a bounded name and id; the summary at the end names each call once
    if text.count("n" * 65536) > 1 or text.count("a" * 65536) > 1:
        return "a 64 KiB name or id shown more than once"
    if text.count("x") < k // 2 or text.count("y") < k // 2:
        return "argument fragments missing from the display"
    return None


# ---------------------------------------------------------------------------------------------
# 3-8. Re-encoding many items into every target.

CALLS = 1024  # the default max_tool_calls


def many_items_stream(k: int) -> bytes:
    """1,024 calls whose arguments grow in k rounds, each fragment of every call in turn, and
    reasoning and text taking turns a few bytes at a time between the rounds."""
    chunks = [chat_chunk([chat_choice({"role": "assistant", "content": ""})])]
    for c in range(CALLS):
        chunks.append(chat_chunk([chat_choice({"tool_calls": [call_start(c, f"call_{c}", f"tool_{c % 7}", "{\"s\":\"")]})]))
    for r in range(k):
        for c in range(CALLS):
            chunks.append(chat_chunk([chat_choice({"tool_calls": [call_piece(c, f"{r:x}.")]})]))
        for t in range(64):
            chunks.append(chat_chunk([chat_choice({"reasoning_content": f"r{t}"})]))
            chunks.append(chat_chunk([chat_choice({"content": f"t{t}"})]))
    for c in range(CALLS):
        chunks.append(chat_chunk([chat_choice({"tool_calls": [call_piece(c, "\"}")]})]))
    chunks.append(chat_chunk([chat_choice({}, finish="tool_calls")]))
    chunks.append(chat_chunk([], usage={"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}))
    return sse(chunks)


def many_items_expected(k: int):
    arguments = {"s": "".join(f"{r:x}." for r in range(k))}
    text = "".join(f"t{t}" for t in range(64)) * k
    reasoning = "".join(f"r{t}" for t in range(64)) * k
    return arguments, text, reasoning


def check_round_trip(cli: str):
    """Read the re-encoded stream back with the CLI itself (`--json`) and compare every call,
    the text and the reasoning with what was sent; the UI protocols, which no dialect reads, by
    their own deltas."""

    def check(run: Run, k: int, variant: Variant):
        arguments, text, reasoning = many_items_expected(k)
        target = variant.argv[-1]
        if target in ("vercel-ui", "ag-ui"):
            return check_ui(run, target, arguments, text, reasoning)
        with tempfile.NamedTemporaryFile(suffix=".sse") as again:
            again.write(run.stdout)
            again.flush()
            back = subprocess.run([cli, "--json", again.name], capture_output=True)
        if back.returncode != 0:
            return f"the re-encoded stream does not read back: {back.stderr.decode()[:200]}"
        message = messages(back.stdout)[0]
        calls = message.get("tool_calls") or []
        if len(calls) != CALLS or any(call["args"] != arguments for call in calls):
            return f"{len(calls)} calls read back ({sum(c['args'] == arguments for c in calls)} exact), {CALLS} sent"
        if text_of(message) != text:
            return f"text read back differs ({len(text_of(message))} of {len(text)} characters)"
        if target != "openai" and reasoning_of(message) != reasoning:
            return f"reasoning read back differs ({len(reasoning_of(message))} of {len(reasoning)})"
        return None

    return check


def check_ui(run: Run, target: str, arguments, text, reasoning):
    events = sse_data(run.stdout)
    got_text, got_reasoning, args_by_call = [], [], {}
    for event in events:
        kind = event.get("type")
        if target == "vercel-ui":
            if kind == "text-delta":
                got_text.append(event["delta"])
            elif kind == "reasoning-delta":
                got_reasoning.append(event["delta"])
            elif kind == "tool-input-available":
                args_by_call[event["toolCallId"]] = event["input"]
        else:
            if kind == "TEXT_MESSAGE_CONTENT":
                got_text.append(event["delta"])
            elif kind in ("THINKING_TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
                got_reasoning.append(event["delta"])
            elif kind == "TOOL_CALL_ARGS":
                args_by_call[event["toolCallId"]] = args_by_call.get(event["toolCallId"], "") + event["delta"]
    if target == "ag-ui":
        args_by_call = {key: json.loads(value) for key, value in args_by_call.items()}
    if "".join(got_text) != text:
        return f"text differs ({len(''.join(got_text))} of {len(text)} characters)"
    if "".join(got_reasoning) != reasoning:
        return f"reasoning differs ({len(''.join(got_reasoning))} of {len(reasoning)} characters)"
    exact = sum(value == arguments for value in args_by_call.values())
    if len(args_by_call) != CALLS or exact != CALLS:
        return f"{len(args_by_call)} calls ({exact} exact), {CALLS} sent"
    return None


# ---------------------------------------------------------------------------------------------
# 9. Integers beyond 64 bits in tool arguments.

BIG = ["100000000000000000000000000000", "18446744073709551617", "-9223372036854775809",
       "1.000000000000000000001", "-0.0", "1e400"]


def big_numbers_arguments(k: int) -> str:
    return "{\"n\":[" + ",".join(BIG[i % len(BIG)] for i in range(k)) + "],\"last\":" + BIG[0] + "}"


def same_number(text: str, sent: str) -> bool:
    """The same number, digit for digit: compared as decimals by their total order, which tells
    `1.0` from `1`, `-0.0` from `0.0` and every rounding apart. Only the spelling of an exponent
    may differ (`1e400` and `1e+400`, `1E5` and `1e+5` are one decimal, as to every JSON reader)."""
    return Decimal(text).compare_total(Decimal(sent)) == 0


def exact_numbers(value) -> str | None:
    """The arguments' numbers, read as their texts (`parse_int` and `parse_float` give the text),
    against those sent."""
    numbers = value.get("n") if isinstance(value, dict) else None
    if not isinstance(numbers, list):
        return "no arguments list"
    for i, number in enumerate(numbers):
        if not same_number(str(number), BIG[i % len(BIG)]):
            return f"number {i} is {number}, {BIG[i % len(BIG)]} was sent"
    if not same_number(str(value.get("last")), BIG[0]):
        return f"the last number is {value.get('last')}"
    return None


def check_big_numbers(run: Run, k: int, variant: Variant):
    exact_floats = {"parse_float": str, "parse_int": str, "parse_constant": str}
    if variant.terminal:
        problem = no_raw_format(run)
        if problem:
            return problem
        text = run.stdout.decode(errors="replace")
        # the display wraps long arguments: the numbers are looked for with the wrapping undone
        flat = re.sub(r"\s+", "", text)
        for number in BIG:
            if flat.count(number) < k // len(BIG):
                return f"{number} shown {flat.count(number)} times, sent {k // len(BIG)}"
        if "e+29" in flat or "1.8446744073709552e" in flat:
            return "a rounded float shown"
        return None
    if variant.label == "events":
        events = [json.loads(line, **exact_floats) for line in run.stdout.splitlines() if line.strip()]
        finished = [e for e in events if e.get("type") == "tool_call_finished"]
        if len(finished) != 1:
            return f"{len(finished)} tool_call_finished events"
        return refused(finished[0]["call"]) or exact_numbers(find_args(finished[0]))
    message = json.loads(run.stdout, **exact_floats)
    calls = message.get("tool_calls") or []
    invalid = message.get("invalid_tool_calls") or []
    if invalid:
        return refused(dict(invalid[0], type="invalid_tool_call"))
    if len(calls) != 1:
        return f"{len(calls)} tool calls, 1 sent"
    return exact_numbers(calls[0]["args"])


# ---------------------------------------------------------------------------------------------
# 10-12. Format characters in the tool name, id, model and finish reason, on a terminal.

# Bidirectional embeddings, overrides and isolates; zero-width and other format characters;
# line and paragraph separators; the byte order mark; C0 (JSON escapes them: they arrive
# escaped) and C1 controls, DEL, and an escape sequence that would clear the screen.
HOSTILE = ("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200b\u200c\u200d\u200e\u200f"
           "\u2028\u2029\ufeff\u061c\u2060\u00ad\x00\x07\x08\x0b\x0c\r\x7f\x85\x9b\x1b[2J\x1b]0;pwned\x07")
# In prose, zero-width joiners and non-joiners may stay raw (emoji and scripts need them): the
# text carries the rest.
HOSTILE_PROSE = HOSTILE.replace("\u200c", "").replace("\u200d", "")


def spoof_stream(k: int) -> bytes:
    model = f"gpt-4o{HOSTILE}"
    chunks = [chat_chunk([chat_choice({"role": "assistant", "content": f"say {HOSTILE_PROSE} no"})], model)]
    for c in range(k):
        name = f"delete_{HOSTILE}\u202eeliforp_teg{c}"
        chunks.append(chat_chunk([chat_choice({"tool_calls": [
            call_start(c, f"call_{HOSTILE}{c}", name, "{\"path\":\"/tmp/\u202ex" + HOSTILE_PROSE.replace("\x00", "") + "\"}")]})], model))
    chunks.append(chat_chunk([chat_choice({}, finish=f"tool_calls{HOSTILE}")], model,
                             usage={"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}))
    return sse(chunks)


def check_spoof(run: Run, k: int, variant: Variant):
    if variant.label == "display-colour":
        # the CLI's own styles are SGR sequences; the input sends no SGR, only other escapes
        run = Run(run.rc, run.rss, run.cpu, re.sub(rb"\x1b\[[0-9;]*m", b"", run.stdout), run.stderr, run.input_bytes)
    problem = no_raw_format(run)
    if problem:
        return problem
    if variant.label.startswith("display"):
        text = run.stdout.decode(errors="replace")
        if "\\u{202e}" not in text and "\\u202e" not in text.lower():
            return "the override is not shown escaped"
        return None
    # --to / --json-as / --json on a terminal: escaped, the same values
    if "--to" in variant.argv:
        values = sse_data(run.stdout)
    else:
        values = [json.loads(run.stdout)]
    strings = set()
    for value in values:
        strings.update(strings_in(value))
    joined = "\n".join(strings)
    wanted = f"delete_{HOSTILE}\u202eeliforp_teg{k - 1}"
    if wanted not in joined:
        return "the last tool name is not in the output as sent (escaped JSON read back)"
    return None


# ---------------------------------------------------------------------------------------------
# 13-14. 128 choices x many `{}` calls.


def many_choices_stream(k: int) -> bytes:
    chunks = []
    for choice in range(128):
        for at in range(0, k, 64):
            calls = [call_start(i, f"c{choice}_{i}", "f", "{}") for i in range(at, min(k, at + 64))]
            chunks.append(chat_chunk([chat_choice({"tool_calls": calls}, index=choice)]))
    for choice in range(128):
        chunks.append(chat_chunk([chat_choice({}, index=choice, finish="tool_calls")]))
    return sse(chunks)


def check_many_choices(run: Run, k: int, variant: Variant):
    if variant.label == "events":
        finished = 0
        for line in run.stdout.splitlines():
            if b"tool_call_finished" in line:
                event = json.loads(line)
                if event.get("type") == "tool_call_finished":
                    if find_args(event) != {}:
                        return f"a call finished with {find_args(event)!s:.100}"
                    finished += 1
        return None if finished == 128 * k else f"{finished} calls finished, {128 * k} sent"
    found = messages(run.stdout)
    if len(found) != 128:
        return f"{len(found)} messages, 128 choices sent"
    for n, message in enumerate(found):
        calls = message.get("tool_calls") or []
        if len(calls) != k or any(call["args"] != {} for call in calls):
            return f"choice {n}: {len(calls)} calls, {k} sent"
    return None


# ---------------------------------------------------------------------------------------------
# 15-17. One huge event of tiny values.


def dense_array(k: int) -> str:
    return "[" + ",".join(["{}"] * k) + "]"


def dense_top_field(k: int) -> bytes:
    chunk = dumps(chat_chunk([chat_choice({"role": "assistant", "content": "hi"})]))
    return sse([chunk[:-1] + ",\"x_dense\":" + dense_array(k) + "}",
                chat_chunk([chat_choice({}, finish="stop")])])


def dense_choice_field(k: int) -> bytes:
    head = dumps(chat_chunk([chat_choice({"role": "assistant", "content": "hi"})]))
    # the choice is the last member of the chunk: put the field before its closing brace
    at = head.rindex("}]")
    return sse([head[:at] + ",\"x_dense\":" + dense_array(k) + head[at:],
                chat_chunk([chat_choice({}, finish="stop")])])


def dense_gemini_args(k: int) -> bytes:
    args = "{\"v\":" + dense_array(k) + "}"
    return sse(["{\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\",\"args\":" + args +
                "}}],\"role\":\"model\"},\"finishReason\":\"STOP\",\"index\":0}],\"modelVersion\":\"gemini-hostile\"}"],
               done=False)


def check_dense(where: str):
    def check(run: Run, k: int, variant: Variant):
        message = json.loads(run.stdout)
        if text_of(message) != ("" if where == "args" else "hi"):
            return "the text changed"
        if where == "args":
            calls = message.get("tool_calls") or []
            invalid = message.get("invalid_tool_calls") or []
            if calls:
                return None if calls[0]["args"] == {"v": [{}] * k} else "the arguments changed"
            if invalid and json.loads(invalid[0]["args"]) == {"v": [{}] * k}:
                return None
            return "the arguments are neither a call nor an invalid call with their text"
        # the field is kept: as values, or as its JSON text in a string
        for value in strings_in_values(message.get("response_metadata") or {}, "x_dense"):
            if value == [{}] * k or (isinstance(value, str) and json.loads(value) == [{}] * k):
                return None
        return "x_dense is not kept whole in response_metadata"

    return check


def strings_in_values(value, key):
    if isinstance(value, dict):
        for name, member in value.items():
            if name == key:
                yield member
            yield from strings_in_values(member, key)
    elif isinstance(value, list):
        for member in value:
            yield from strings_in_values(member, key)


# ---------------------------------------------------------------------------------------------
# 18. Anthropic deltas alternating between two blocks, a byte at a time.


def anthropic_alternating(k: int) -> bytes:
    events = [("message_start", {"type": "message_start", "message": {
        "id": "msg_hostile", "type": "message", "role": "assistant", "model": "claude-hostile",
        "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1}}})]
    for index in (0, 1):
        events.append(("content_block_start", {"type": "content_block_start", "index": index,
                                               "content_block": {"type": "text", "text": ""}}))
    for i in range(k):
        events.append(("content_block_delta", {"type": "content_block_delta", "index": i % 2,
                                               "delta": {"type": "text_delta", "text": "AB"[i % 2]}}))
    for index in (0, 1):
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                                     "usage": {"output_tokens": k}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return named_sse(events)


def check_alternating(run: Run, k: int, variant: Variant):
    if variant.label == "json":
        text = text_of(json.loads(run.stdout))
        expected = "A" * ((k + 1) // 2) + "B" * (k // 2)
        return None if text == expected else f"text of {len(text)} characters, {k} sent"
    text = "".join(e.get("delta", "") for e in sse_data(run.stdout) if e.get("type") == "response.output_text.delta")
    if sorted(text) != sorted("AB" * (k // 2) + "A" * (k % 2)):
        return f"{len(text)} characters re-encoded, {k} sent"
    return None


# ---------------------------------------------------------------------------------------------
# 19. OpenAI Responses with many output items.


def responses_items(k: int) -> bytes:
    events = [("response.created", {"type": "response.created", "sequence_number": 0, "response": {
        "id": "resp_hostile", "object": "response", "created_at": 1767000000, "status": "in_progress",
        "model": "gpt-hostile", "output": [], "usage": None}})]
    seq = 1
    for item in range(k):
        if item % 2:
            head = {"id": f"msg_{item}", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
            events.append(("response.output_item.added", {"type": "response.output_item.added", "sequence_number": seq, "output_index": item, "item": head}))
            events.append(("response.content_part.added", {"type": "response.content_part.added", "sequence_number": seq + 1, "item_id": f"msg_{item}",
                                                           "output_index": item, "content_index": 0, "part": {"type": "output_text", "text": "", "annotations": []}}))
            events.append(("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": seq + 2, "item_id": f"msg_{item}",
                                                          "output_index": item, "content_index": 0, "delta": f"m{item}"}))
            done = dict(head, status="completed", content=[{"type": "output_text", "text": f"m{item}", "annotations": []}])
        else:
            head = {"id": f"rs_{item}", "type": "reasoning", "summary": []}
            events.append(("response.output_item.added", {"type": "response.output_item.added", "sequence_number": seq, "output_index": item, "item": head}))
            events.append(("response.reasoning_summary_text.delta", {"type": "response.reasoning_summary_text.delta", "sequence_number": seq + 1,
                                                                     "item_id": f"rs_{item}", "output_index": item, "summary_index": 0, "delta": f"r{item}"}))
            done = dict(head, summary=[{"type": "summary_text", "text": f"r{item}"}])
        events.append(("response.output_item.done", {"type": "response.output_item.done", "sequence_number": seq + 3, "output_index": item, "item": done}))
        seq += 4
    events.append(("response.completed", {"type": "response.completed", "sequence_number": seq, "response": {
        "id": "resp_hostile", "object": "response", "created_at": 1767000000, "status": "completed", "model": "gpt-hostile",
        "usage": {"input_tokens": 3, "output_tokens": k, "total_tokens": k + 3}}}))
    return named_sse(events)


def check_responses_items(run: Run, k: int, variant: Variant):
    text = "".join(f"m{i}" for i in range(1, k, 2))
    if variant.label == "json":
        got = text_of(json.loads(run.stdout))
        return None if got == text else f"text of {len(got)} characters, {len(text)} sent"
    events = sse_data(run.stdout)
    got = "".join(e.get("delta", "") for e in events if e.get("type") == "response.output_text.delta")
    if got != text:
        return f"re-encoded text of {len(got)} characters, {len(text)} sent"
    completed = [e for e in events if e.get("type") == "response.completed"]
    if len(completed) != 1 or len(completed[0]["response"]["output"]) != k:
        return f"response.completed lists {len(completed[0]['response']['output']) if completed else 0} items, {k} sent"
    return None


# ---------------------------------------------------------------------------------------------
# 20. Bedrock's binary event stream: text blocks and tool input fragments.


def bedrock_stream(k: int) -> bytes:
    frames = [bedrock_frame("messageStart", {"role": "assistant"})]
    for i in range(k):
        frames.append(bedrock_frame("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": f"w{i % 10}"}}))
    frames.append(bedrock_frame("contentBlockStop", {"contentBlockIndex": 0}))
    frames.append(bedrock_frame("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {"name": "get", "toolUseId": "tooluse_1"}}}))
    arguments = bedrock_arguments(k)
    for at in range(0, len(arguments), 5):
        frames.append(bedrock_frame("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": arguments[at:at + 5]}}}))
    frames.append(bedrock_frame("contentBlockStop", {"contentBlockIndex": 1}))
    frames.append(bedrock_frame("messageStop", {"stopReason": "tool_use"}))
    frames.append(bedrock_frame("metadata", {"usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}, "metrics": {"latencyMs": 1}}))
    return b"".join(frames)


def bedrock_arguments(k: int) -> str:
    return "{\"ids\":[" + ",".join(str(10**20 + i) for i in range(k // 4)) + "]}"


def check_bedrock(run: Run, k: int, variant: Variant):
    message = json.loads(run.stdout)
    text = "".join(f"w{i % 10}" for i in range(k))
    if text_of(message) != text:
        return f"text of {len(text_of(message))} characters, {len(text)} sent"
    calls = message.get("tool_calls") or []
    invalid = message.get("invalid_tool_calls") or []
    if invalid:
        return refused(dict(invalid[0], type="invalid_tool_call"))
    if len(calls) != 1 or calls[0]["args"] != json.loads(bedrock_arguments(k)):
        return "the tool input changed"
    return None


# ---------------------------------------------------------------------------------------------
# 21. Ollama's newline-delimited JSON.


def ollama_stream(k: int) -> bytes:
    lines = []
    for i in range(k):
        message = {"role": "assistant", "content": f"o{i % 10}"}
        if i % 8 == 0 and i // 8 < CALLS:
            message["tool_calls"] = [{"function": {"index": i // 8, "name": "t", "arguments": {"n": 10**25 + i, "i": i}}}]
        lines.append(dumps({"model": "qwen-hostile", "created_at": "2026-01-01T00:00:00Z", "message": message, "done": False}))
    lines.append(dumps({"model": "qwen-hostile", "created_at": "2026-01-01T00:00:01Z",
                        "message": {"role": "assistant", "content": ""}, "done_reason": "stop", "done": True,
                        "prompt_eval_count": 1, "eval_count": k}))
    return ("\n".join(lines) + "\n").encode()


def check_ollama(run: Run, k: int, variant: Variant):
    message = json.loads(run.stdout)
    text = "".join(f"o{i % 10}" for i in range(k))
    if text_of(message) != text:
        return f"text of {len(text_of(message))} characters, {len(text)} sent"
    calls = message.get("tool_calls") or []
    sent = [i for i in range(0, k, 8) if i // 8 < CALLS]
    if len(calls) != len(sent) or any(c["args"] != {"n": 10**25 + i, "i": i} for c, i in zip(calls, sent)):
        return f"{len(calls)} calls, {len(sent)} sent, or their arguments changed"
    return None


# ---------------------------------------------------------------------------------------------
# 22. Tool arguments nested deep.


def deep_arguments(k: int) -> str:
    return "{\"a\":" + "[" * k + "]" * k + "}"


def check_deep(run: Run, k: int, variant: Variant):
    raw = deep_arguments(k)
    if variant.label == "events":
        finished = [e for e in json_lines_shallow(run.stdout) if e.get("type") == "tool_call_finished"]
        return None if len(finished) == 1 else f"{len(finished)} tool_call_finished events"
    message = json.loads(run.stdout)
    invalid = message.get("invalid_tool_calls") or []
    if len(invalid) != 1 or invalid[0].get("args") != raw:
        return "the call is not an invalid call keeping its text as sent"
    return None


def json_lines_shallow(data: bytes) -> list:
    """Events of a deep stream: lines Python's parser cannot nest into are read for their type."""
    events = []
    for line in data.splitlines():
        try:
            events.append(json.loads(line))
        except RecursionError:
            kind = re.search(rb'"type":"([a-z_]+)"', line)
            events.append({"type": kind.group(1).decode() if kind else None})
    return events


# ---------------------------------------------------------------------------------------------
# 23. A usage object with new keys in every event.


def usage_keys(k: int) -> bytes:
    chunks = [chat_chunk([chat_choice({"role": "assistant", "content": "u"})])]
    for i in range(k):
        usage = {"prompt_tokens": 1, "completion_tokens": i, "total_tokens": i + 1}
        usage.update({f"k{i}_{j}": j for j in range(16)})
        chunks.append(chat_chunk([chat_choice({"content": "."})], usage=usage))
    chunks.append(chat_chunk([chat_choice({}, finish="stop")]))
    return sse(chunks)


def check_usage_keys(run: Run, k: int, variant: Variant):
    if variant.label == "events":
        return None if b"\"type\":\"usage\"" in run.stdout or b"usage" in run.stdout else "no usage event"
    message = json.loads(run.stdout)
    if text_of(message) != "u" + "." * k:
        return "the text changed"
    found = [m for m in strings_in_values(message.get("response_metadata") or {}, f"k{k - 1}_15")]
    if found != [15]:
        return f"the last event's keys are not kept ({found[:3]})"
    return None


# ---------------------------------------------------------------------------------------------
# 24-25. Over HTTP: a stream trickled in small chunks, and a gzip body that never ends its line.


def trickle_stream(k: int) -> bytes:
    chunks = [chat_chunk([chat_choice({"role": "assistant", "content": ""})])]
    chunks += [chat_chunk([chat_choice({"content": f"{i % 10}"})]) for i in range(k)]
    chunks.append(chat_chunk([chat_choice({}, finish="stop")]))
    return sse(chunks)


def check_trickle(run: Run, k: int, variant: Variant):
    text = text_of(json.loads(run.stdout))
    expected = "".join(f"{i % 10}" for i in range(k))
    return None if text == expected else f"text of {len(text)} characters, {len(expected)} sent"


def gzip_endless_line(k: int) -> bytes:
    """A gzip body whose one data line never ends: k MiB once decompressed."""
    head = b"data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
    block = b"a" * MIB
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [compressor.compress(head)]
    parts += [compressor.compress(block) for _ in range(k)]
    parts.append(compressor.flush())
    return b"".join(parts)


# ---------------------------------------------------------------------------------------------
# The 25 attacks.


def attacks(cli: str) -> list[Attack]:
    targets = ["openai", "anthropic", "openai-responses", "gemini", "vercel-ui", "ag-ui"]
    found = [
        Attack("events-fragments", "one call's arguments in k fragments of 100 bytes, --events",
               lambda k: one_call_stream(fragments_arguments(k)), 8000,
               [Variant("events", ["--events"])], limit_or(check_fragments)),
        Attack("display-long-names", "two calls, 64 KiB names and ids, k one-byte fragments in turn, live display",
               long_names_stream, 20000,
               [Variant("display", ["--color", "never"], terminal=True)], limit_or(check_long_names)),
    ]
    for target in targets:
        found.append(Attack(f"to-{target}", f"1,024 calls x k rounds of fragments, reasoning and text in turns, --to {target}",
                            many_items_stream, 24,
                            [Variant(target, ["--to", target])], limit_or(check_round_trip(cli))))
    found += [
        Attack("big-integers", "10^29, 2^64+1, -2^63-1, 1.000000000000000000001, -0.0, 1e400 in k numbers of one call",
               # small enough that the arguments are parsed at 2N too: past about 2,700 short
               # values a call is refused as too dense (what bedrock-binary shows)
               lambda k: one_call_stream(big_numbers_arguments(k), pieces_of=37), 1200,
               [Variant("json", ["--json"]), Variant("events", ["--events"]),
                Variant("display", ["--color", "never"], terminal=True)], limit_or(check_big_numbers)),
        Attack("spoof-display", "format characters in k tool names and ids, the model, the finish reason, live display",
               spoof_stream, 512,
               [Variant("display", ["--color", "never"], terminal=True),
                Variant("display-colour", ["--color", "always"], terminal=True)], limit_or(check_spoof)),
        Attack("spoof-to", "the same, --to every target on a terminal", spoof_stream, 512,
               [Variant(t, ["--to", t], terminal=True) for t in targets], limit_or(check_spoof)),
        Attack("spoof-json-as", "the same, --json-as every target and --json on a terminal", spoof_stream, 512,
               [Variant(t, ["--json-as", t], terminal=True) for t in targets] +
               [Variant("json", ["--json"], terminal=True)], limit_or(check_spoof)),
        Attack("choices-calls-json", "128 choices x k {} calls, 64 a chunk, --json", many_choices_stream, 256,
               [Variant("json", ["--json"])], limit_or(check_many_choices)),
        Attack("choices-calls-events", "128 choices x k {} calls, 64 a chunk, --events", many_choices_stream, 256,
               [Variant("events", ["--events"])], limit_or(check_many_choices)),
        Attack("dense-top-field", "one event of k {} in an unknown top-level field", dense_top_field, 1 << 20,
               [Variant("json", ["--json"])], limit_or(check_dense("top"))),
        Attack("dense-choice-field", "one event of k {} in a choice's unknown field", dense_choice_field, 1 << 20,
               [Variant("json", ["--json"])], limit_or(check_dense("choice"))),
        Attack("dense-gemini-args", "one event of k {} in Gemini functionCall.args", dense_gemini_args, 1 << 20,
               [Variant("json", ["--json"]), Variant("openai-responses", ["--to", "openai-responses"])],
               limit_or(lambda run, k, v: check_dense("args")(run, k, v) if v.label == "json" else None)),
        Attack("anthropic-alternating", "Anthropic text deltas alternating between two blocks, a byte each",
               anthropic_alternating, 100000,
               [Variant("json", ["--json"]), Variant("responses", ["--to", "openai-responses"])], limit_or(check_alternating)),
        Attack("responses-items", "OpenAI Responses, k output items (reasoning and message in turn)", responses_items, 20000,
               [Variant("json", ["--json"]), Variant("responses", ["--to", "openai-responses"])], limit_or(check_responses_items)),
        Attack("bedrock-binary", "Bedrock event stream: k text deltas, a tool input in 5-byte fragments", bedrock_stream, 40000,
               [Variant("json", ["--json"])], limit_or(check_bedrock)),
        Attack("ollama-ndjson", "Ollama NDJSON: k lines, a call with 10^25 every 8", ollama_stream, 40000,
               [Variant("json", ["--json"])], limit_or(check_ollama)),
        Attack("deep-arguments", "tool arguments nested k deep, in 100-byte fragments", lambda k: one_call_stream(deep_arguments(k)), 200000,
               [Variant("json", ["--json"]), Variant("events", ["--events"])], limit_or(check_deep)),
        Attack("usage-keys", "16 new usage keys in each of k chunks", usage_keys, 48000,
               [Variant("json", ["--json"]), Variant("events", ["--events"])], limit_or(check_usage_keys)),
        Attack("url-trickle", "HTTP: k one-character deltas in 61-byte chunks with pauses", trickle_stream, 20000,
               [Variant("json", ["--json"])], limit_or(check_trickle), serve="trickle"),
        Attack("url-gzip-endless-line", "HTTP: a gzip body, one data line of k MiB that never ends", gzip_endless_line, 64,
               [Variant("json", ["--json"])], expect_error("limit"), serve="gzip", errors_expected=True),
    ]
    return found


# ---------------------------------------------------------------------------------------------


@dataclass
class Row:
    attack: str
    variant: str
    inputs: list[int] = field(default_factory=list)
    rss: list[int] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    out: list[int] = field(default_factory=list)
    rcs: list[int] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def judge(self):
        for size, (rss, given) in enumerate(zip(self.rss, self.inputs)):
            bound = MEMORY_FACTOR * given + MEMORY_CONSTANT
            if rss > bound:
                self.problems.append(f"{'N' if size == 0 else '2N'}: peak {rss / MIB:.1f} MiB > 8 x {given / MIB:.2f} MiB + 64 MiB")
        if self.cpu[1] > CPU_FACTOR * self.cpu[0]:
            self.problems.append(f"CPU {self.cpu[0]:.3f} s -> {self.cpu[1]:.3f} s on doubled input (> {CPU_FACTOR} x)")
        if self.out[1] > OUTPUT_FACTOR * max(self.out[0], 1):
            self.problems.append(f"output {self.out[0]} -> {self.out[1]} bytes on doubled input (> {OUTPUT_FACTOR} x)")

    def cells(self):
        bound = max(r / (MEMORY_FACTOR * i + MEMORY_CONSTANT) for r, i in zip(self.rss, self.inputs))
        return [f"{self.attack} [{self.variant}]", f"{self.inputs[0] / MIB:.2f}/{self.inputs[1] / MIB:.2f}",
                f"{self.rss[0] / MIB:.1f}/{self.rss[1] / MIB:.1f}", f"{bound:.2f}", f"{self.cpu[0]:.3f}/{self.cpu[1]:.3f}",
                f"{self.cpu[1] / max(self.cpu[0], 1e-6):.2f}", f"{self.out[1] / max(self.out[0], 1):.2f}",
                "/".join(map(str, self.rcs)), "holds" if not self.problems else "FAILS"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", default="target/release/deltafold")
    parser.add_argument("--only", help="attack names, comma-separated")
    parser.add_argument("--runs", type=int, default=3,
                        help=f"runs per size while a run takes under {QUIET_CPU} s of CPU; the least CPU time is kept")
    options = parser.parse_args()
    cli = str(Path(options.cli).resolve())
    chosen = attacks(cli)
    if options.only:
        names = options.only.split(",")
        chosen = [a for a in chosen if a.name in names]
    rows = []
    header = ["attack [variant]", "input MiB N/2N", "peak MiB N/2N", "of bound", "CPU s N/2N", "CPU x", "out x", "exit", "verdict"]
    print(" | ".join(header), flush=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="hostile-") as folder:
        for attack in chosen:
            bodies = []
            for size in (attack.size, 2 * attack.size):
                body = attack.build(size)
                path = Path(folder) / f"{attack.name}-{size}"
                path.write_bytes(body)
                bodies.append((size, body, path))
            for variant in attack.variants:
                row = Row(attack.name, variant.label)
                runs = []
                for size, body, path in bodies:
                    runs.append([run_once(cli, attack, variant, body, path)])
                    # short runs are noisy: the least CPU time of several is kept
                    while len(runs[-1]) < options.runs and min(r.cpu for r in runs[-1]) < QUIET_CPU:
                        runs[-1].append(run_once(cli, attack, variant, body, path))
                if min(r.cpu for r in runs[1]) > CPU_FACTOR * min(r.cpu for r in runs[0]):
                    # a time past the judge is measured again, --runs times at both sizes, before
                    # it is believed (the least of each is kept)
                    for (size, body, path), measured in zip(bodies, runs):
                        while len(measured) < options.runs:
                            measured.append(run_once(cli, attack, variant, body, path))
                for (size, body, path), measured in zip(bodies, runs):
                    first = measured[0]
                    row.inputs.append(first.input_bytes)
                    row.rss.append(max(r.rss for r in measured))
                    row.cpu.append(min(r.cpu for r in measured))
                    row.out.append(max(len(r.stdout) for r in measured))
                    row.rcs.append(first.rc)
                    problem = attack.check(first, size, variant)
                    if problem:
                        row.problems.append(f"{'N' if size == attack.size else '2N'}: {problem}")
                row.judge()
                rows.append(row)
                print(" | ".join(row.cells()), flush=True)
    failed = [row for row in rows if row.problems]
    print(f"\n{len(chosen)} attacks, {len(rows)} runs of them, {len(failed)} failing "
          f"({time.monotonic() - started:.0f} s)")
    for row in failed:
        for problem in row.problems:
            print(f"  {row.attack} [{row.variant}]: {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
