#!/usr/bin/env python3
"""Assemble recordings this project has never seen with the providers' official SDKs and with
the deltafold CLI, and compare: text, reasoning, tool calls (id, name, parsed arguments), usage
(input and output tokens as LangChain counts them), the message id and the Responses item ids.

    check.py [--cli target/debug/deltafold] FOLDER...

Every `.sse` (and Bedrock `.eventstream`) in the folders is read; one JSON line per stream, then
a count per provider. See README.md for where the recordings come from and what differs by rule.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

# The SDK's own state machines, as their streaming helpers use them.
import httpx2  # the anthropic SDK's HTTP client: its beta accumulator takes request headers
from anthropic.lib.streaming._beta_messages import accumulate_event
from google.genai import types as genai
from openai._models import construct_type_unchecked
from openai._types import omit
from openai.lib.streaming.chat._completions import ChatCompletionStreamState
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types import CompletionUsage
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import Response, ResponseStreamEvent

# The SDK types warn when they serialise a union member newer than themselves.
warnings.filterwarnings("ignore", category=UserWarning, module="pydantic")


def sse_payloads(path: Path) -> list:
    """The JSON payloads of a text event stream (`[DONE]` left out)."""
    payloads = []
    for block in path.read_text().replace("\r\n", "\n").split("\n\n"):
        lines = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if lines and "\n".join(lines).strip() != "[DONE]":
            payloads.append(json.loads("\n".join(lines)))
    return payloads


def parsed(arguments):
    if not isinstance(arguments, str):
        return arguments
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return {"__invalid__": arguments}


def chat(payloads: list) -> dict:
    state = ChatCompletionStreamState()
    for payload in payloads:
        if "choices" in payload:
            state.handle_chunk(ChatCompletionChunk.model_validate(payload))
    completion = state.get_final_completion()
    message = completion.choices[0].message
    calls = []
    for call in message.tool_calls or []:
        if call.type == "function":
            calls.append({"id": call.id, "name": call.function.name, "args": parsed(call.function.arguments)})
        else:
            calls.append({"id": call.id, "name": call.custom.name, "args": {"__arg1": call.custom.input}})
    usage = completion.usage
    for payload in payloads:  # Groq puts usage under x_groq
        if usage is None and (payload.get("x_groq") or {}).get("usage"):
            usage = CompletionUsage.model_validate(payload["x_groq"]["usage"])
    extra = message.model_extra or {}
    return {
        "id": completion.id,
        "text": message.content or "",
        "reasoning": extra.get("reasoning_content") or extra.get("reasoning") or "",
        "tool_calls": calls,
        "usage": [usage.prompt_tokens, usage.completion_tokens] if usage else None,
    }


def responses(payloads: list) -> dict:
    state = ResponseStreamState(input_tools=omit, text_format=omit)
    try:
        for payload in payloads:
            state.handle_event(construct_type_unchecked(type_=ResponseStreamEvent, value=payload))
        response = state._completed_response
    except RuntimeError:
        # The SDK refuses a stream whose ids rotate (GitHub Copilot) or that begins with
        # `response.queued`; what it would return is the terminal event's response.
        terminal = [p for p in payloads if p.get("type") in ("response.completed", "response.incomplete")]
        if not terminal:
            raise
        response = construct_type_unchecked(type_=Response, value=terminal[-1]["response"])
    if response is None:
        raise RuntimeError("no response.completed")
    text, reasoning, calls, item_ids = "", "", [], []
    for item in response.output:
        if item.type == "message":
            item_ids.append(item.id)
            text += "".join(part.text for part in item.content if part.type == "output_text")
        elif item.type == "reasoning":
            reasoning += "".join(part.text for part in item.summary or [])
            reasoning += "".join(
                part.text for part in getattr(item, "content", None) or [] if part.type == "reasoning_text"
            )
        elif item.type == "function_call":
            item_ids.append(item.id)
            calls.append({"id": item.call_id, "name": item.name, "args": parsed(item.arguments)})
        elif item.type == "custom_tool_call":
            item_ids.append(item.id)
            calls.append({"id": item.call_id, "name": item.name, "args": {"__arg1": item.input}})
    usage = response.usage
    return {
        "id": response.id,
        "text": text,
        "reasoning": reasoning,
        "tool_calls": calls,
        "item_ids": sorted(filter(None, item_ids)),
        "usage": [usage.input_tokens, usage.output_tokens] if usage else None,
    }


def anthropic(payloads: list) -> dict:
    snapshot, buffers = None, {}
    for payload in payloads:
        if payload.get("type") == "error":
            raise RuntimeError("error event")
        if payload.get("type") != "ping":
            snapshot = accumulate_event(
                event=payload, current_snapshot=snapshot, json_bufs=buffers, request_headers=httpx2.Headers()
            )
    blocks = snapshot.content
    usage = snapshot.usage
    inputs = (usage.input_tokens or 0) + (usage.cache_read_input_tokens or 0) + (usage.cache_creation_input_tokens or 0)
    return {
        "id": snapshot.id,
        "text": "".join(b.text for b in blocks if b.type == "text"),
        "reasoning": "".join(b.thinking for b in blocks if b.type == "thinking"),
        "tool_calls": [{"id": b.id, "name": b.name, "args": b.input} for b in blocks if b.type == "tool_use"],
        "usage": [inputs, usage.output_tokens],
    }


def set_partial_arg(args: dict, partial) -> None:
    """Gemini 3's streamed arguments: a value (a string appended) at a JSON path."""
    keys = [key or int(index) for key, index in re.findall(r"\.([A-Za-z0-9_]+)|\[(\d+)\]", partial.json_path)]
    node = args
    for depth, key in enumerate(keys[:-1]):
        child = {} if isinstance(keys[depth + 1], str) else []
        if isinstance(key, int):
            node.extend([None] * (key + 1 - len(node)))
            node[key] = node[key] if node[key] is not None else child
        else:
            node.setdefault(key, child)
        node = node[key]
    last = keys[-1]
    if isinstance(last, int):
        node.extend([None] * (last + 1 - len(node)))
    if partial.string_value is not None:
        before = node[last] if isinstance(last, int) else node.get(last)
        node[last] = (before or "") + partial.string_value
    elif partial.number_value is not None:
        node[last] = partial.number_value
    elif partial.bool_value is not None:
        node[last] = partial.bool_value
    else:
        node[last] = None


def gemini(payloads: list) -> dict:
    """google-genai has no stream accumulator: its chunks are merged as its docs say (parts in
    order, the latest usage), each chunk validated by the SDK's type."""
    text, reasoning, calls, usage, response_id = "", "", [], None, None
    for payload in payloads:
        (payload.get("usageMetadata") or {}).pop("serviceTier", None)  # newer than the SDK
        chunk = genai.GenerateContentResponse.model_validate(payload)
        response_id = chunk.response_id or response_id
        if chunk.usage_metadata:
            meta = chunk.usage_metadata
            usage = [
                (meta.prompt_token_count or 0) + (meta.tool_use_prompt_token_count or 0),
                (meta.candidates_token_count or 0) + (meta.thoughts_token_count or 0),
            ]
        for candidate in (chunk.candidates or [])[:1]:
            for part in (candidate.content.parts if candidate.content else None) or []:
                if part.function_call is not None:
                    if part.function_call.name:
                        calls.append({"name": part.function_call.name, "args": dict(part.function_call.args or {})})
                    for partial in part.function_call.partial_args or []:
                        set_partial_arg(calls[-1]["args"], partial)
                elif part.text is not None:
                    if part.thought:
                        reasoning += part.text
                    else:
                        text += part.text
    return {"id": response_id, "text": text, "reasoning": reasoning, "tool_calls": calls, "usage": usage}


def bedrock_events(path: Path) -> list:
    """The (event type, payload) pairs of a binary event stream, framed by botocore."""
    from botocore.eventstream import EventStreamBuffer

    buffer = EventStreamBuffer()
    buffer.add_data(path.read_bytes())
    events = []
    for message in buffer:
        if message.headers.get(":message-type") == "exception":
            raise RuntimeError(message.headers.get(":exception-type"))
        events.append((message.headers.get(":event-type"), json.loads(message.payload or b"{}")))
    return events


def bedrock(events: list) -> dict:
    """ConverseStream events merged by block index (a Nova server tool use is not a call)."""
    text, reasoning, calls, usage = "", "", {}, None
    for event, body in events:
        if event == "contentBlockStart" and "toolUse" in body["start"]:
            use = body["start"]["toolUse"]
            if use.get("type") != "server_tool_use":
                calls[body["contentBlockIndex"]] = {"id": use["toolUseId"], "name": use["name"], "args": ""}
        elif event == "contentBlockDelta":
            delta = body["delta"]
            text += delta.get("text", "")
            reasoning += delta.get("reasoningContent", {}).get("text", "")
            if "toolUse" in delta and body["contentBlockIndex"] in calls:
                calls[body["contentBlockIndex"]]["args"] += delta["toolUse"]["input"]
        elif event == "metadata":
            counts = body["usage"]
            inputs = counts["inputTokens"] + counts.get("cacheReadInputTokens", 0) + counts.get("cacheWriteInputTokens", 0)
            usage = [inputs, counts["outputTokens"]]
    tool_calls = [{**call, "args": parsed(call["args"])} for _, call in sorted(calls.items())]
    return {"text": text, "reasoning": reasoning, "tool_calls": tool_calls, "usage": usage}


def dialect(payloads: list) -> str | None:
    first = payloads[0]
    kind = first.get("type", "")
    if "candidates" in first or "usageMetadata" in first:
        return "gemini"
    if kind.startswith("response."):
        return "responses"
    if kind == "message_start" or kind.startswith("content_block"):
        return "anthropic"
    if "choices" in first:
        return "chat"
    if len(first) == 1 and next(iter(first)) in BEDROCK_EVENTS:
        return "bedrock"  # SDK-logged ConverseStream events, {"<eventType>": {…}}
    return None


BEDROCK_EVENTS = {"messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}


def ours(message: dict) -> dict:
    blocks = message["content_blocks"]
    usage = message.get("usage_metadata")
    return {
        "id": message.get("id"),
        "text": "".join(b["text"] for b in blocks if b["type"] == "text"),
        "reasoning": "".join(b.get("reasoning", "") for b in blocks if b["type"] == "reasoning"),
        "tool_calls": [{"id": c.get("id"), "name": c["name"], "args": c["args"]} for c in message["tool_calls"]]
        + [{"id": c.get("id"), "name": c.get("name"), "args": parsed(c.get("args"))} for c in message["invalid_tool_calls"]],
        "item_ids": sorted(
            [b["id"] for b in blocks if b["type"] == "text" and b.get("id")]
            + [b["extras"]["item_id"] for b in blocks if b["type"] == "tool_call" and "item_id" in b.get("extras", {})]
        ),
        "usage": [usage["input_tokens"], usage["output_tokens"]] if usage else None,
    }


# The event that ends an answer, per dialect: deltafold reads a recording's first answer and
# nothing after it (docs/dialects.md, the drop list).
ANSWER_ENDS = {"anthropic": ("message_stop",), "responses": ("response.completed", "response.incomplete")}


def first_answer(payloads: list, provider: str) -> tuple:
    """The payloads of a recording's first answer, and how many answers it holds: some vercel/ai
    recordings hold a multi-step test's turns one after the other."""
    ends = [at for at, p in enumerate(payloads) if p.get("type") in ANSWER_ENDS.get(provider, ())]
    if len(ends) < 2:
        return payloads, 1
    return payloads[: ends[0] + 1], len(ends)


def check(cli: str, path: Path) -> dict:
    verdict = {"stream": path.name}
    try:
        if path.suffix == ".eventstream":
            verdict["provider"], sdk = "bedrock", bedrock(bedrock_events(path))
        else:
            payloads = sse_payloads(path)
            verdict["provider"] = dialect(payloads)
            if verdict["provider"] is None:
                return {**verdict, "outcome": "no oracle"}
            if verdict["provider"] == "bedrock":
                sdk = bedrock([next(iter(p.items())) for p in payloads])
            else:
                read = {"chat": chat, "responses": responses, "anthropic": anthropic, "gemini": gemini}
                payloads, answers = first_answer(payloads, verdict["provider"])
                if answers > 1:
                    verdict["answers"] = answers
                sdk = read[verdict["provider"]](payloads)
    except Exception as error:  # the SDK refuses the stream: say so, compare nothing
        return {**verdict, "outcome": "sdk raises", "why": f"{type(error).__name__}: {error}"[:160]}
    done = subprocess.run([cli, "--json", str(path)], capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        return {**verdict, "outcome": "deltafold fails", "why": done.stderr.strip()[:160]}
    message = json.loads(done.stdout)
    mine = ours(message[0] if isinstance(message, list) else message)
    if verdict["provider"] == "gemini":  # Gemini sends no call ids; deltafold generates them
        mine["tool_calls"] = [{"name": c["name"], "args": c["args"]} for c in mine["tool_calls"]]
    differ = {key: {"sdk": sdk[key], "deltafold": mine[key]} for key in sdk if sdk[key] != mine[key]}
    outcome = "differ" if differ else "agree" if "answers" not in verdict else "agree, 1st answer"
    return {**verdict, "outcome": outcome, **({"differ": differ} if differ else {})}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", default="target/debug/deltafold")
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    tally: Counter = Counter()
    for folder in args.folders:
        for path in sorted(p for p in folder.iterdir() if p.suffix in (".sse", ".eventstream")):
            verdict = check(args.cli, path)
            tally[(verdict.get("provider") or "-", verdict["outcome"])] += 1
            print(json.dumps(verdict, ensure_ascii=False)[:1200])
    for (provider, outcome), count in sorted(tally.items()):
        print(f"{provider:10} {outcome:18} {count}", file=sys.stderr)


if __name__ == "__main__":
    main()
