"""LangChain itself reads what deltafold writes: the LangChain dict of every fixture and real
recording (and of every held-out recording named by $DELTAFOLD_HELD_OUT, folders separated by
`:`) goes through `AIMessage.model_validate` and back without losing a content block, a tool
call, an invalid tool call, the usage or an id; and for Anthropic streams, LangChain's own
translation of the provider's content (`--json-as anthropic`, read by langchain-core's Anthropic
block translator) gives the blocks deltafold typed."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import List

import pytest

from conftest import STREAM_SUFFIXES, cli_binary, cli_messages, stream_id, streams

pytest.importorskip("langchain_core")
from langchain_core.messages import AIMessage  # noqa: E402


def held_out() -> List[Path]:
    found: List[Path] = []
    for folder in filter(None, os.environ.get("DELTAFOLD_HELD_OUT", "").split(":")):
        found += sorted(p for p in Path(folder).iterdir() if p.suffix in STREAM_SUFFIXES)
    return found


STREAMS = streams() + held_out()


def messages(path: Path) -> list:
    return cli_messages(path) or []


def call_fields(call: dict) -> tuple:
    return (call.get("id"), call.get("name"), call.get("args"), call.get("error"))


@pytest.mark.parametrize("path", STREAMS, ids=stream_id)
def test_langchain_validates_and_round_trips(path: Path):
    for ours in messages(path):
        message = AIMessage.model_validate(ours)
        assert message.id == ours["id"]
        assert message.content_blocks == ours["content_blocks"]
        assert [call_fields(c) for c in message.tool_calls] == [
            call_fields(c) for c in ours["tool_calls"]
        ]
        assert [call_fields(c) for c in message.invalid_tool_calls] == [
            call_fields(c) for c in ours["invalid_tool_calls"]
        ]
        assert message.usage_metadata == ours.get("usage_metadata")
        assert message.additional_kwargs == ours["additional_kwargs"]
        assert message.response_metadata == ours["response_metadata"]
        # LangChain's own reading of the calls: each tool_call block is the call of that id.
        blocks = message.content_blocks
        assert [b["id"] for b in blocks if b["type"] == "tool_call"] == [
            c["id"] for c in message.tool_calls
        ]
        assert [b.get("id") for b in blocks if b["type"] == "invalid_tool_call"] == [
            c.get("id") for c in message.invalid_tool_calls
        ]
        again = AIMessage.model_validate(json.loads(json.dumps(message.model_dump())))
        assert again == message


def anthropic_streams() -> List[Path]:
    return [
        path
        for path in STREAMS
        if any(m["response_metadata"].get("model_provider") == "anthropic" for m in messages(path))
    ]


def as_anthropic(path: Path) -> dict:
    done = subprocess.run(
        [cli_binary(), "--json-as", "anthropic", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"the stream fails: {done.stderr.strip()[:80]}")
    return json.loads(done.stdout)


# Where deltafold types more than langchain-core's Anthropic translator does: a container upload
# is a `file` block (LangChain: non_standard), a compaction a non_standard block (LangChain:
# dropped), a tool use cut by max_tokens an invalid tool call (LangChain: a tool call with partial
# input).
RICHER = {"container_upload", "compaction"}


def comparable(block: dict) -> dict:
    kind = block["type"]
    keys = {
        "text": ("text",),
        "reasoning": ("reasoning",),
        "tool_call": ("id", "name", "args"),
        "server_tool_call": ("id", "name", "args"),
        "server_tool_result": ("tool_call_id", "status"),
        "non_standard": ("value",),
    }.get(kind, ())
    return {"type": kind, **{key: block.get(key) for key in keys}}


@pytest.mark.parametrize("path", anthropic_streams(), ids=stream_id)
def test_langchain_reads_the_anthropic_form_as_we_do(path: Path):
    ours = messages(path)[0]
    native = [b for b in as_anthropic(path)["content"] if b.get("type") not in RICHER]
    theirs = AIMessage(
        content=native,
        response_metadata={"model_provider": "anthropic"},
    ).content_blocks
    ours_blocks = [
        b
        for b in ours["content_blocks"]
        if b["type"] not in ("file", "invalid_tool_call")
        and not (b["type"] == "non_standard" and b["value"].get("type") in RICHER)
        # An event (not a block) kept as non_standard is not content of the Anthropic form.
        and not (b["type"] == "non_standard" and b["value"] not in native)
    ]
    if any(b["type"] == "invalid_tool_call" for b in ours["content_blocks"]):
        valid = {call["id"] for call in ours["tool_calls"]}
        theirs = [b for b in theirs if b["type"] != "tool_call" or b["id"] in valid]
    assert [comparable(b) for b in theirs] == [comparable(b) for b in ours_blocks]


THINKING = {"thinking", "redacted_thinking"}


def signed_reasoning(path: Path) -> bool:
    return any(
        b.get("extras", {}).get("signature")
        or (b["type"] == "non_standard" and b["value"].get("type") == "redacted_thinking")
        for m in messages(path)
        for b in m["content_blocks"]
    )


@pytest.mark.parametrize(
    "path", [p for p in anthropic_streams() if signed_reasoning(p)], ids=stream_id
)
def test_reasoning_signature_where_langchain_reads_it(path: Path):
    ours = messages(path)[0]
    native = as_anthropic(path)["content"]
    theirs = AIMessage(content=native, response_metadata={"model_provider": "anthropic"}).content_blocks
    ours_reasoning = [b for b in ours["content_blocks"] if b["type"] == "reasoning"]
    their_reasoning = [b for b in theirs if b["type"] == "reasoning"]
    assert [b.get("extras", {}).get("signature") for b in ours_reasoning] == [
        b.get("extras", {}).get("signature") for b in their_reasoning
    ]
    # langchain-anthropic sends our dict back as the thinking blocks Anthropic sent: each with
    # its signature, a redacted one as `redacted_thinking` with its data.
    compat = pytest.importorskip("langchain_anthropic._compat")
    message = AIMessage.model_validate(ours)
    sent = compat._convert_from_v1_to_anthropic(message.content, [], "anthropic")
    assert [b for b in sent if b.get("type") in THINKING] == [
        b for b in native if b.get("type") in THINKING
    ]
    assert any(b.get("signature") or b.get("data") for b in sent if b.get("type") in THINKING)


def streamed_reasoning_items(path: Path) -> list:
    """The reasoning items of a Responses stream as the API gave them: the final response's
    (`response.completed` or `.incomplete`, the first one: deltafold reads the first answer of a
    recording), which is what the SDK's final response holds and a client sends back — where
    ids rotate from event to event (GitHub Copilot), only its ids are the items'. Without one
    that lists reasoning, each item's last form (`output_item.done`), in the order they came."""
    items: dict = {}
    for line in path.read_text().splitlines():
        if not line.startswith("data:"):
            continue
        try:
            event = json.loads(line[5:])
        except ValueError:
            continue
        if not isinstance(event, dict):
            continue
        if event.get("type") in ("response.completed", "response.incomplete"):
            final = [
                item
                for item in (event.get("response") or {}).get("output") or []
                if isinstance(item, dict) and item.get("type") == "reasoning" and item.get("id")
            ]
            return final or list(items.values())
        item = event.get("item")
        if isinstance(item, dict) and item.get("type") == "reasoning" and item.get("id"):
            items[item["id"]] = item
    return list(items.values())


def reasoning_texts(item: dict) -> list:
    """What langchain-openai sends back as an item's summary parts: its summary texts, then its
    reasoning texts. A reasoning item may carry its reasoning as `content` parts of type
    `reasoning_text` (LM Studio, DeepSeek, vLLM) instead of, or besides, a summary; LangChain's v1
    reasoning block has one text, `reasoning` ("either the thought summary or the raw reasoning
    text itself"), which `_convert_from_v1_to_responses` always writes as `summary_text`. Both are
    valid input items (`summary` is required, `content` optional); only the part type differs."""
    return [p.get("text") for p in item.get("summary", [])] + [
        p.get("text") for p in item.get("content") or [] if p.get("type") == "reasoning_text"
    ]


def responses_reasoning(path: Path) -> bool:
    return any(
        m["response_metadata"].get("model_provider") == "openai"
        and any(b["type"] == "reasoning" and "id" in b for b in m["content_blocks"])
        for m in messages(path)
    )


@pytest.mark.parametrize("path", [p for p in STREAMS if responses_reasoning(p)], ids=stream_id)
def test_responses_reasoning_items_where_langchain_openai_reads_them(path: Path):
    # langchain-openai sends our dict back as the reasoning items the Responses API gave: one
    # item per `rs_…` id, its summary parts in order, its encrypted content.
    compat = pytest.importorskip("langchain_openai.chat_models._compat")
    ours = messages(path)[0]
    message = AIMessage.model_validate(ours)
    sent = compat._convert_from_v1_to_responses(message.content, message.tool_calls)
    native = streamed_reasoning_items(path)

    def items(blocks: list) -> list:
        return [
            (b.get("id"), reasoning_texts(b), b.get("encrypted_content"))
            for b in blocks
            if b.get("type") == "reasoning"
        ]

    assert items(sent) == items(native)
    assert all(item_id for item_id, _, _ in items(sent))
