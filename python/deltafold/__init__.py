"""deltafold: fold the streamed answer of a chat model into complete, typed messages.

Feed it the raw bytes of a streamed response -- OpenAI Chat Completions and its compatibles,
Anthropic Messages, OpenAI Responses, Gemini, Ollama, AWS Bedrock, Cohere; the dialect is
detected from the first payload -- and get LangChain's ``AIMessage`` dict back, with live events
on the way. The assembly runs in Rust, in time linear in the stream.

    import deltafold, httpx

    with httpx.stream("POST", url, json=request, headers=headers) as response:
        events = deltafold.stream(response.iter_bytes())
        for event in events:
            if event["type"] == "text_delta":
                print(event["text"], end="", flush=True)
    message = events.completion.message()       # LangChain's AIMessage dict
"""

from __future__ import annotations

from typing import Any, AsyncIterable, AsyncIterator, Dict, Iterable, Iterator, List, Optional

from ._deltafold import Assembler, Completion, Error, assemble

__all__ = ["Assembler", "Completion", "Error", "assemble", "stream", "astream", "Stream", "AsyncStream"]


class Stream:
    """The events of a byte stream, as it is read; ``completion`` once it is exhausted.

    Made by :func:`stream`. Each event is a dict equal to the CLI's ``--events`` line for it
    (``partial`` aside). A stream that fails raises :class:`Error` after the events that came
    before the failure.
    """

    completion: Optional[Completion]
    """The assembled result, set once the iterator is exhausted (None until then)."""

    def __init__(self, chunks: Iterable[bytes], assembler: Assembler) -> None:
        self.completion = None
        self._events = self._run(iter(chunks), assembler)

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return self

    def __next__(self) -> Dict[str, Any]:
        return next(self._events)

    def _run(self, chunks: Iterator[bytes], assembler: Assembler) -> Iterator[Dict[str, Any]]:
        for chunk in chunks:
            yield from assembler.push(chunk)
        yield from assembler.close()
        self.completion = assembler.finish()


class AsyncStream:
    """The async counterpart of :class:`Stream`, made by :func:`astream`."""

    completion: Optional[Completion]
    """The assembled result, set once the iterator is exhausted (None until then)."""

    def __init__(self, chunks: AsyncIterable[bytes], assembler: Assembler) -> None:
        self.completion = None
        self._chunks = chunks.__aiter__()
        self._assembler = assembler
        self._ready: List[Dict[str, Any]] = []
        self._position = 0
        self._closed = False

    def __aiter__(self) -> AsyncIterator[Dict[str, Any]]:
        return self

    async def __anext__(self) -> Dict[str, Any]:
        while self._position == len(self._ready):
            if self._closed:
                if self.completion is None:
                    self.completion = self._assembler.finish()
                raise StopAsyncIteration
            try:
                chunk = await self._chunks.__anext__()
            except StopAsyncIteration:
                self._closed = True
                self._ready, self._position = self._assembler.close(), 0
            else:
                self._ready, self._position = self._assembler.push(chunk), 0
        event = self._ready[self._position]
        self._position += 1
        return event


def stream(chunks: Iterable[bytes], **options: Any) -> Stream:
    """Assembles a stream read as an iterable of bytes (``httpx.Response.iter_bytes()``, the
    OpenAI SDK's raw ``response.iter_bytes()``…), yielding its events; the result is on
    ``.completion`` once the iterator is exhausted. ``options`` are :class:`Assembler`'s
    (``dialect``, ``lenient``, ``think_tags``, ``max_message_bytes``, ``max_event_bytes``)."""
    return Stream(chunks, Assembler(**options))


def astream(chunks: AsyncIterable[bytes], **options: Any) -> AsyncStream:
    """As :func:`stream`, for an async iterable of bytes (``httpx.Response.aiter_bytes()``, the
    async OpenAI client's raw ``response.iter_bytes()``): ``async for event in astream(…)``."""
    return AsyncStream(chunks, Assembler(**options))
