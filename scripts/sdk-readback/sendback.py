#!/usr/bin/env python3
"""Checks the LangChain dict and the send-back of new stream features against the official SDKs.

For each stream given (default: the fixtures of tool-call kinds and images below), the
`send_back` example prints the assembled message's LangChain dict and the next request's messages
in the Chat Completions and Gemini formats. The dict must load with langchain-core's
`AIMessage.model_validate` keeping its tool calls and content blocks; each Chat Completions
message must validate as openai's `ChatCompletionMessageParam` (pydantic `TypeAdapter`), and each
Gemini content as google-genai's `types.Content`, with the fields the feature needs still there
after validation (a custom call's input, `extra_content.google.thought_signature`, an image
part's `inline_data` and `thought_signature`).

    python3 -m venv /tmp/venv-sendback
    /tmp/venv-sendback/bin/pip install openai google-genai langchain-core
    /tmp/venv-sendback/bin/python scripts/sdk-readback/sendback.py
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pydantic
from google.genai import types as genai_types
from langchain_core.messages import AIMessage
from openai._utils._transform import transform
from openai.types.chat import ChatCompletionMessageParam

REPO = Path(__file__).resolve().parents[2]
DEFAULT = [
    "fixtures/openai/custom_tool_call.sse",
    "fixtures/gemini-compat/thought_signature_tool_calls.sse",
    "fixtures/gemini/image_output_signed.sse",
    "fixtures/deepseek/cumulative_tool_arguments.sse",
]


def send_back(path: str) -> dict:
    done = subprocess.run(
        ["cargo", "run", "-q", "--example", "send_back", "--", path],
        cwd=REPO, check=True, capture_output=True, text=True,
    )
    return json.loads(done.stdout)


def check(path: str) -> list[str]:
    out = send_back(path)
    problems = []
    # LangChain: the dict loads, its tool calls and blocks as deltafold wrote them.
    lc = out["langchain"]
    message = AIMessage.model_validate(lc)
    calls = [{k: c[k] for k in ("name", "args", "id")} for c in message.tool_calls]
    want = [{k: c[k] for k in ("name", "args", "id")} for c in lc["tool_calls"]]
    if calls != want:
        problems.append(f"LangChain tool_calls {calls} != {want}")
    blocks = [b["type"] for b in message.content_blocks]
    if blocks != [b["type"] for b in lc["content_blocks"]]:
        problems.append(f"LangChain content_blocks {blocks}")
    for block in message.content_blocks:
        if block["type"] == "image" and not block.get("base64"):
            problems.append(f"LangChain image block without its data: {block}")
    # OpenAI: every message a ChatCompletionMessageParam (pydantic drops keys a TypedDict does not
    # name, such as Gemini's `extra_content`), and what the SDK sends of it (its request
    # transform, which passes such keys on) still has custom calls and `extra_content`.
    adapter = pydantic.TypeAdapter(ChatCompletionMessageParam)
    if isinstance(out["openai_chat"], dict):
        problems.append(f"openai_chat: {out['openai_chat']}")
    else:
        for sent in out["openai_chat"]:
            validated = adapter.validate_python(sent)
            on_the_wire = transform(sent, ChatCompletionMessageParam)
            calls = zip(
                sent.get("tool_calls") or [],
                validated.get("tool_calls") or [],
                on_the_wire.get("tool_calls") or [],
            )
            for call, kept, wire in calls:
                if call["type"] == "custom" and kept.get("custom") != call["custom"]:
                    problems.append(f"custom call not kept: {kept}")
                if "extra_content" in call and wire.get("extra_content") != call["extra_content"]:
                    problems.append(f"extra_content not sent: {wire}")
    # Gemini: every content a types.Content, signatures and images kept.
    if "error" in out["gemini"]:
        problems.append(f"gemini: {out['gemini']['error']}")
    else:
        for content in out["gemini"]["contents"]:
            validated = genai_types.Content.model_validate(content)
            for part, kept in zip(content["parts"], validated.parts):
                if "thoughtSignature" in part and not kept.thought_signature:
                    problems.append(f"signature not kept: {part}")
                if "inlineData" in part and not (kept.inline_data and kept.inline_data.data):
                    problems.append(f"image not kept: {part}")
    return problems


def main() -> int:
    paths = sys.argv[1:] or DEFAULT
    failed = 0
    for path in paths:
        problems = check(path)
        failed += bool(problems)
        print(f"{'ok  ' if not problems else 'FAIL'} {path}")
        for problem in problems:
            print(f"     {problem}")
    print(f"{len(paths) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
