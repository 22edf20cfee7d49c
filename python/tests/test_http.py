"""A real HTTP exchange: a server on 127.0.0.1 (port 0) streams a recorded answer in small
writes, and httpx and the OpenAI SDK's raw streaming response feed it to deltafold, sync and
async. The result equals the CLI's for the same file."""

from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import httpx
import openai
import pytest

import deltafold
from conftest import FIXTURES, cli_events, cli_messages

STREAM = FIXTURES / "openai" / "parallel_tool_calls.sse"


class Handler(BaseHTTPRequestHandler):
    """Answers every POST with the stream, chunked, 50 bytes per write."""

    body = b""
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for start in range(0, len(self.body), 50):
            piece = self.body[start : start + 50]
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def log_message(self, *args) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    Handler.body = STREAM.read_bytes()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()
    thread.join()


REQUEST = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Weather and time in Paris?"}]}


def check(events, completion) -> None:
    assert events == cli_events(STREAM)
    assert [completion.message()] == cli_messages(STREAM)
    assert completion.complete
    names = [call["name"] for call in completion.message()["tool_calls"]]
    assert names == ["get_weather", "get_time"]


def test_httpx_iter_bytes(server: str):
    with httpx.stream("POST", f"{server}/v1/chat/completions", json={**REQUEST, "stream": True}) as response:
        stream = deltafold.stream(response.iter_bytes())
        events = list(stream)
    check(events, stream.completion)


def test_httpx_aiter_bytes(server: str):
    async def run():
        async with httpx.AsyncClient() as client:
            async with client.stream("POST", f"{server}/v1/chat/completions", json=REQUEST) as response:
                stream = deltafold.astream(response.aiter_bytes())
                events = [event async for event in stream]
        return events, stream.completion

    check(*asyncio.run(run()))


def test_openai_sdk_raw_streaming_response(server: str):
    client = openai.OpenAI(base_url=f"{server}/v1", api_key="sk-test", max_retries=0)
    with client.chat.completions.with_streaming_response.create(**REQUEST, stream=True) as response:
        stream = deltafold.stream(response.iter_bytes())
        events = list(stream)
    check(events, stream.completion)


def test_async_openai_sdk_raw_streaming_response(server: str):
    async def run():
        client = openai.AsyncOpenAI(base_url=f"{server}/v1", api_key="sk-test", max_retries=0)
        async with client.chat.completions.with_streaming_response.create(**REQUEST, stream=True) as response:
            stream = deltafold.astream(response.iter_bytes())
            events = [event async for event in stream]
        await client.close()
        return events, stream.completion

    check(*asyncio.run(run()))


def test_assemble_takes_the_response_iterator(server: str):
    with httpx.stream("POST", f"{server}/v1/chat/completions", json=REQUEST) as response:
        completion = deltafold.assemble(response.iter_bytes())
    assert [completion.message()] == cli_messages(STREAM)
