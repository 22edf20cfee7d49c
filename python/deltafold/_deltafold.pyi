"""Stubs of the compiled module (re-exported by ``deltafold``)."""

from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

Event = Dict[str, Any]
"""An event: ``{"type": "text_delta", "choice": 0, "text": "…"}`` and so on, as the CLI's
``--events`` writes it (``partial`` aside). A text, reasoning or refusal block ends with
``{"type": "text_end", "choice": 0, "block": 1}`` (``reasoning_end``, ``refusal_end``; ``block``:
its position in the message's content) before the next block's events and its choice's
``choice_finished``; ``tool_call_finished``'s ``call`` is a ``tool_call`` or an
``invalid_tool_call`` content block."""

MessageDict = Dict[str, Any]
"""LangChain's ``AIMessage`` dict, with ``response_metadata["finish_kind"]``."""

class Error(Exception):
    """A stream that could not be assembled."""

    kind: str
    """Why: ``"truncated"``, ``"provider"``, ``"malformed"``, ``"invalid_utf8"``,
    ``"limit_exceeded"``, ``"transport"``, ``"status"``, ``"idle_timeout"``,
    ``"deadline_exceeded"`` or ``"other"``."""
    partial: Optional[Completion]
    """What arrived before the failure, each message marked incomplete; None if nothing."""
    location: Optional[Tuple[int, int]]
    """``(event_number, byte_offset)`` where it happened, or None."""

class Completion:
    """What a stream assembled into: one message per choice."""

    @property
    def complete(self) -> bool:
        """False when the stream did not end cleanly; messages then say why in
        ``response_metadata["incomplete"]``."""
    def message(self, choice: int = 0) -> MessageDict:
        """The message of choice ``choice`` as LangChain's ``AIMessage`` dict: the CLI's
        ``--json`` object. IndexError when there is no such choice."""
    def messages(self) -> List[MessageDict]:
        """Every choice's message dict, in choice order."""
    def to_langchain(self, choice: int = 0) -> Any:
        """The message as a ``langchain_core.messages.AIMessage``; ImportError without
        langchain-core."""

class Assembler:
    """Assembles one stream pushed in pieces; thread-safe, reusable after ``finish``."""

    def __init__(
        self,
        *,
        dialect: Optional[str] = None,
        lenient: bool = False,
        think_tags: bool = False,
        max_message_bytes: Optional[int] = None,
        max_event_bytes: Optional[int] = None,
    ) -> None: ...
    def push(self, chunk: Union[bytes, bytearray]) -> List[Event]:
        """The events this chunk completed."""
    def close(self) -> List[Event]:
        """Ends the input: the events only the end completes."""
    def message(self, choice: int = 0) -> Optional[MessageDict]:
        """The message so far, or None before the choice began."""
    def finish(self) -> Completion:
        """The result (closing first if needed); the assembler is then ready for another
        stream."""

def assemble(
    data: Union[bytes, bytearray, Iterable[Union[bytes, bytearray]]],
    *,
    dialect: Optional[str] = None,
    lenient: bool = False,
    think_tags: bool = False,
    max_message_bytes: Optional[int] = None,
    max_event_bytes: Optional[int] = None,
) -> Completion:
    """Assembles a whole stream: bytes, or an iterable of bytes chunks."""
