#!/usr/bin/env python3
"""Re-encode every recorded stream with the deltafold CLI and read it back with the official SDKs.

For each input (fixtures/**, ../shared/real-sse/** when present) the CLI prints the reference
message (`--json`, LangChain's dict), the re-encoded stream of each target (`--to X`) and the
non-streamed response (`--json-as X`). Each output goes through the target's official SDK
(OpenAI's `ChatCompletionStreamState` / `ResponseStreamState`, Anthropic's `accumulate_event`,
Gemini's `GenerateContentResponse` per chunk, `model_validate` for the bodies), and what the SDK
holds — text, refusal, reasoning, tool calls, finish reason, usage, id, model — is compared with
what the reference says the target should hold. See README.md for how to run it and for what
each SDK does by its own rule.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import traceback
from collections import defaultdict
from pathlib import Path

import pydantic

REPO = Path(__file__).resolve().parents[2]
INPUT_SUFFIXES = {".sse", ".ndjson", ".eventstream", ".body"}
TARGETS = ["openai", "anthropic", "openai-responses", "gemini"]

# Gemini's own finish reasons, kept as they are; Anthropic's likewise.
GEMINI_REASONS = {
    "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE", "OTHER", "BLOCKLIST",
    "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY",
}
ANTHROPIC_REASONS = {"end_turn", "max_tokens", "stop_sequence", "tool_use", "pause_turn", "refusal"}


# ---------------------------------------------------------------- the CLI


def cli_binary(args) -> Path:
    """Builds the CLI once (`cargo build -p deltafold-cli --release`) and returns its path."""
    if args.cli:
        return Path(args.cli)
    subprocess.run(["cargo", "build", "-q", "-p", "deltafold-cli", "--release"], cwd=REPO, check=True)
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=REPO, check=True, capture_output=True, text=True,
    )
    return Path(json.loads(meta.stdout)["target_directory"]) / "release" / "deltafold"


def run(cli: Path, *flags: str, path: Path):
    done = subprocess.run([str(cli), *flags, str(path)], capture_output=True)
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8", "replace")


def inputs(real: Path | None):
    found = sorted(p for p in (REPO / "fixtures").rglob("*") if p.suffix in INPUT_SUFFIXES)
    if real and real.is_dir():
        found += sorted(p for p in real.iterdir() if p.suffix in INPUT_SUFFIXES)
    return found


def sse_events(text: str):
    """(event name, data) of each SSE event."""
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        name, data = None, []
        for line in block.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip(" ") if line[5:6] == " " else line[5:])
        if data:
            events.append((name, "\n".join(data)))
    return events


# ---------------------------------------------------------------- the reference


def reference_choices(message_json):
    """The reference: one LangChain dict per choice."""
    return message_json if isinstance(message_json, list) else [message_json]


def args_of(raw):
    """Tool arguments as the comparison holds them: a parsed object, else the raw text."""
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) and raw else ({} if raw in ("", None) else raw)
    except (ValueError, TypeError):
        return raw
    return parsed if isinstance(parsed, dict) else raw


def kind_of(ref) -> str:
    return ref["response_metadata"].get("finish_kind") or "stop"


def expected(ref, target: str, streamed: bool):
    """What `target`'s SDK should hold for the reference message `ref`, by the documented rules."""
    blocks = ref.get("content_blocks") or []
    text = "".join(b.get("text", "") for b in blocks if b["type"] == "text")
    refusal = "".join(b.get("refusal", "") for b in blocks if b["type"] == "refusal")
    reasoning = "".join(b.get("reasoning", "") for b in blocks if b["type"] == "reasoning")
    calls = []
    for b in blocks:
        if b["type"] == "tool_call":
            calls.append({"id": b.get("id") or "", "name": b.get("name") or "", "args": b.get("args") or {}})
        elif b["type"] == "invalid_tool_call":
            calls.append({"id": b.get("id") or "", "name": b.get("name") or "", "args": args_of(b.get("args") or "")})
    meta = ref["response_metadata"]
    reason = meta.get("finish_reason") or ""
    kind = kind_of(ref)
    if kind == "stop" and calls:
        kind = "tool_calls"
    # The message's kind is `refusal` for refusal text under a plain stop. Targets with a refusal
    # field keep the stop there (OpenAI's own shape); the others say it in the stop reason.
    reason_kind = "stop" if kind == "refusal" and reason.lower() != "refusal" else kind
    want = {
        "text": text,
        "refusal": refusal,
        "reasoning": reasoning,
        "tool_calls": calls,
        "usage": target_usage(ref.get("usage_metadata"), target),
        "id": ref.get("id") or meta.get("id"),
        "model": meta.get("model_name") or "",
    }
    if target == "openai":
        want["finish"] = {"length": "length", "tool_calls": "tool_calls", "content_filter": "content_filter",
                          "refusal": "content_filter"}.get(reason_kind, "stop")
    elif target == "anthropic":
        want["text"], want["refusal"] = text_and_refusal_in_order(blocks), ""
        want["finish"] = reason if reason in ANTHROPIC_REASONS and reason != "end_turn" else {
            "length": "max_tokens", "tool_calls": "tool_use", "content_filter": "refusal",
            "refusal": "refusal"}.get(kind, "end_turn")
        # `tool_use.input` is an object: arguments that are not one's JSON become {} in the
        # message; the stream sends their text, of which the SDK's partial parse keeps an object
        # (or raises on a syntax error: see README).
        for call in want["tool_calls"]:
            if not isinstance(call["args"], dict):
                call["args"] = AnyObject() if streamed else {}
    elif target == "openai-responses":
        want["finish"] = {"length": "incomplete:max_output_tokens", "content_filter": "incomplete:content_filter",
                          "refusal": "incomplete:content_filter"}.get(reason_kind, "completed")
    elif target == "gemini":
        want["text"], want["refusal"] = text_and_refusal_in_order(blocks), ""
        want["finish"] = reason if reason in GEMINI_REASONS and reason != "STOP" else {
            "length": "MAX_TOKENS", "content_filter": "SAFETY", "refusal": "SAFETY"}.get(kind, "STOP")
        for call in want["tool_calls"]:
            if not isinstance(call["args"], dict):
                call["args"] = {}
    return want


class AnyObject:
    """Stands for whatever object a partial JSON parser keeps of arguments cut where they stop
    being an object's prefix (it depends on where the fragments fall)."""

    def __eq__(self, other):
        return isinstance(other, (dict, AnyObject))

    def __repr__(self):
        return "<an object>"


def target_usage(usage, target):
    """The reference's usage in the target's own fields."""
    if usage is None:
        return None
    details = usage.get("input_token_details") or {}
    reasoning = (usage.get("output_token_details") or {}).get("reasoning") or 0
    i, o, t = usage.get("input_tokens", 0), usage.get("output_tokens", 0), usage.get("total_tokens", 0)
    if target == "anthropic":
        # No total field; input_tokens + the cache fields make the input.
        return {"input": i, "output": o}
    if target == "gemini":
        # candidates exclude the thoughts; a source that counted reasoning apart (xAI: total =
        # input + output + reasoning) already gave candidates as its output.
        apart = reasoning and i + o < t and i + o + reasoning == t
        return {"prompt": i, "candidates": o if apart else max(o - reasoning, 0),
                "thoughts": reasoning, "total": t, "cached": details.get("cache_read")}
    return {"input": i, "output": o, "total": t}


def text_and_refusal_in_order(blocks):
    """Targets without a refusal field carry it as text, in block order."""
    return "".join(b.get("text", "") if b["type"] == "text" else b.get("refusal", "")
                   for b in blocks if b["type"] in ("text", "refusal"))


# ---------------------------------------------------------------- each SDK


class SdkRule(Exception):
    """The SDK's own rule raised on output that is valid; the value it holds is still compared."""

    def __init__(self, reason, held):
        super().__init__(reason)
        self.reason = reason
        self.held = held


def chat_call_held(call):
    """A chat tool call as the reference holds it: a custom call's input as `{"__arg1": input}`
    (its `custom` a dict when read unvalidated)."""
    if call.type == "custom":
        custom = call.custom if isinstance(call.custom, dict) else call.custom.model_dump()
        return {"id": call.id or "", "name": custom.get("name") or "",
                "args": {"__arg1": custom.get("input") or ""}}
    return {"id": call.id or "", "name": call.function.name or "",
            "args": args_of(call.function.arguments)}


def openai_chat_held(completion):
    held = []
    for choice in sorted(completion.choices, key=lambda c: c.index):
        message = choice.message
        extra = message.model_extra or {}
        calls = [chat_call_held(c) for c in (message.tool_calls or [])]
        held.append({
            "index": choice.index,
            "text": message.content or "",
            "refusal": message.refusal or "",
            "reasoning": extra.get("reasoning_content") or "",
            "tool_calls": calls,
            "finish": choice.finish_reason,
        })
    usage = completion.usage and {"input": completion.usage.prompt_tokens,
                                  "output": completion.usage.completion_tokens,
                                  "total": completion.usage.total_tokens}
    return held, usage, completion.id, completion.model


def read_openai_stream(text):
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk
    from openai import LengthFinishReasonError, ContentFilterFinishReasonError

    from openai._models import construct_type_unchecked

    state = ChatCompletionStreamState()
    done = custom = False
    for _, data in sse_events(text):
        if data == "[DONE]":
            done = True
            break
        chunk = json.loads(data)
        try:
            model = ChatCompletionChunk.model_validate(chunk)
        except pydantic.ValidationError:
            # The chunk model types a delta's tool call as a function call only
            # (openai/openai-python#2530); the SDK's `Stream` reads chunks unvalidated.
            if not any(call.get("type") == "custom" for choice in chunk.get("choices") or []
                       for call in (choice.get("delta") or {}).get("tool_calls") or []):
                raise
            custom = True
            model = construct_type_unchecked(type_=ChatCompletionChunk, value=chunk)
        state.handle_chunk(model)
    if not done:
        raise ValueError("no data: [DONE]")
    if custom:
        raise SdkRule("ChatCompletionChunk rejects a custom tool call's delta and "
                      "get_final_completion its unvalidated `custom` (openai-python#2530); "
                      "the accumulated snapshot is compared",
                      openai_chat_held(state.current_completion_snapshot))
    try:
        completion = state.get_final_completion()
    except (LengthFinishReasonError, ContentFilterFinishReasonError) as error:
        raise SdkRule(f"get_final_completion raises {type(error).__name__} on finish_reason "
                      f"{error.completion.choices[0].finish_reason!r}",
                      openai_chat_held(error.completion)) from None
    return openai_chat_held(completion)


def read_openai_body(text):
    from openai.types.chat import ChatCompletion
    return openai_chat_held(ChatCompletion.model_validate(json.loads(text)))


def anthropic_held(message):
    text = "".join(b.text for b in message.content if b.type == "text")
    reasoning = "".join(b.thinking for b in message.content if b.type == "thinking")
    calls = [{"id": b.id, "name": b.name, "args": b.input} for b in message.content if b.type == "tool_use"]
    u = message.usage
    cached = (u.cache_read_input_tokens or 0) + (u.cache_creation_input_tokens or 0)
    usage = {"input": u.input_tokens + cached, "output": u.output_tokens}
    held = {"index": 0, "text": text, "refusal": "", "reasoning": reasoning, "tool_calls": calls,
            "finish": message.stop_reason}
    return [held], usage, message.id, message.model


# The beta types: a superset of the others, and the only ones with the blocks of beta tools the
# API streams only under their beta header (the MCP connector's `mcp_tool_use` / `mcp_tool_result`).
def read_anthropic_stream(text):
    from anthropic.lib.streaming._beta_messages import accumulate_event
    from anthropic.types.beta import BetaMessage as Message
    from anthropic.types.beta import BetaRawMessageStreamEvent as RawMessageStreamEvent

    adapter = pydantic.TypeAdapter(RawMessageStreamEvent)
    snapshot, bufs, stopped = None, {}, False
    for name, data in sse_events(text):
        event = adapter.validate_python(json.loads(data))
        if name != event.type:
            raise ValueError(f"SSE event name {name!r} for a {event.type!r} payload")
        snapshot = accumulate_event(
            event=event, current_snapshot=snapshot, json_bufs=bufs, request_headers={}
        )
        stopped = event.type == "message_stop"
    if not stopped:
        raise ValueError("no message_stop")
    # What the SDK's `get_final_message()` returns must be a valid Message.
    return anthropic_held(Message.model_validate(snapshot.model_dump()))


def read_anthropic_body(text):
    from anthropic.types.beta import BetaMessage as Message
    return anthropic_held(Message.model_validate(json.loads(text)))


def responses_held(response):
    text = refusal = reasoning = ""
    calls = []
    for item in response.output:
        if item.type == "message":
            for part in item.content:
                if part.type == "output_text":
                    text += part.text
                elif part.type == "refusal":
                    refusal += part.refusal
        elif item.type == "reasoning":
            reasoning += "".join(s.text for s in item.summary)
        elif item.type == "function_call":
            calls.append({"id": item.call_id, "name": item.name, "args": args_of(item.arguments)})
    finish = response.status
    if response.status == "incomplete":
        finish = f"incomplete:{response.incomplete_details and response.incomplete_details.reason}"
    u = response.usage
    usage = u and {"input": u.input_tokens, "output": u.output_tokens, "total": u.total_tokens}
    held = {"index": 0, "text": text, "refusal": refusal, "reasoning": reasoning, "tool_calls": calls,
            "finish": finish}
    return [held], usage, response.id, response.model


def read_responses_stream(text):
    from openai.lib.streaming.responses._responses import ResponseStreamState
    from openai.types.responses import ResponseStreamEvent, Response
    from openai import omit

    adapter = pydantic.TypeAdapter(ResponseStreamEvent)
    state = ResponseStreamState(input_tools=omit, text_format=omit)
    final, sequence = None, 0
    for name, data in sse_events(text):
        event = adapter.validate_python(json.loads(data))
        if name is not None and name != event.type:
            raise ValueError(f"SSE event name {name!r} for a {event.type!r} payload")
        if event.sequence_number != sequence:
            raise ValueError(f"sequence_number {event.sequence_number}, expected {sequence}")
        sequence += 1
        for out in state.handle_event(event):
            if out.type == "response.completed":
                final = out.response
            elif out.type in ("response.incomplete", "response.failed"):
                # The SDK's `get_final_response()` wants `response.completed`; the API's own
                # terminal event for a cut answer is `response.incomplete`, read as it is.
                final = Response.model_validate(out.response.model_dump())
    if final is None:
        raise ValueError("no response.completed / response.incomplete")
    return responses_held(final)


def read_responses_body(text):
    from openai.types.responses import Response
    return responses_held(Response.model_validate(json.loads(text)))


def gemini_held(responses):
    by_index = {}
    usage = rid = model = None
    for response in responses:
        rid = response.response_id or rid
        model = response.model_version or model
        if response.usage_metadata:
            u = response.usage_metadata
            usage = {"prompt": u.prompt_token_count or 0, "candidates": u.candidates_token_count or 0,
                     "thoughts": u.thoughts_token_count or 0, "total": u.total_token_count or 0,
                     "cached": u.cached_content_token_count}
        for candidate in response.candidates or []:
            index = candidate.index or 0
            held = by_index.setdefault(index, {"index": index, "text": "", "refusal": "", "reasoning": "",
                                               "tool_calls": [], "finish": None})
            for part in (candidate.content and candidate.content.parts) or []:
                if part.function_call:
                    call = part.function_call
                    held["tool_calls"].append({"id": call.id or "", "name": call.name or "", "args": call.args or {}})
                elif part.text is not None:
                    held["reasoning" if part.thought else "text"] += part.text
            if candidate.finish_reason:
                held["finish"] = candidate.finish_reason.value
    return [by_index[i] for i in sorted(by_index)], usage, rid, model


def read_gemini_stream(text):
    from google.genai.types import GenerateContentResponse
    return gemini_held([GenerateContentResponse.model_validate(json.loads(d)) for _, d in sse_events(text)])


def read_gemini_body(text):
    from google.genai.types import GenerateContentResponse
    return gemini_held([GenerateContentResponse.model_validate(json.loads(text))])


READERS = {
    ("openai", True): read_openai_stream, ("openai", False): read_openai_body,
    ("anthropic", True): read_anthropic_stream, ("anthropic", False): read_anthropic_body,
    ("openai-responses", True): read_responses_stream, ("openai-responses", False): read_responses_body,
    ("gemini", True): read_gemini_stream, ("gemini", False): read_gemini_body,
}
# Targets with one answer per response carry the first choice only.
ALL_CHOICES = {"openai", "gemini"}


# ---------------------------------------------------------------- comparison


def compare(refs, target, streamed, read):
    """The differences between what the SDK holds and what the reference says, as text."""
    held, usage, rid, model = read
    wanted_refs = refs if target in ALL_CHOICES else refs[:1]
    wants = [expected(r, target, streamed) for r in wanted_refs]
    diffs = []
    if len(held) != len(wants):
        diffs.append(f"{len(held)} choices held, {len(wants)} expected")
    for n, (h, w) in enumerate(zip(held, wants)):
        at = f"choice {n}: " if len(wants) > 1 else ""
        for field in ("text", "refusal", "reasoning", "finish"):
            if h[field] != w[field]:
                diffs.append(f"{at}{field} {short(h[field])} != {short(w[field])}")
        if [(c["name"], c["args"]) for c in h["tool_calls"]] != [(c["name"], c["args"]) for c in w["tool_calls"]]:
            diffs.append(f"{at}tool calls {short(h['tool_calls'])} != {short(w['tool_calls'])}")
        else:
            for hc, wc in zip(h["tool_calls"], w["tool_calls"]):
                # A source without call ids gets generated ones; otherwise they must survive.
                if wc["id"] and hc["id"] != wc["id"]:
                    diffs.append(f"{at}tool call id {hc['id']!r} != {wc['id']!r}")
    w = wants[0] if wants else None
    if w:
        if w["usage"] is None:
            if usage and any(usage.values()):
                diffs.append(f"usage {usage} where the source had none")
        elif usage != w["usage"]:
            diffs.append(f"usage {usage} != {w['usage']}")
        if w["id"] and rid != w["id"]:
            diffs.append(f"id {rid!r} != {w['id']!r}")
        if (model or "") != w["model"]:
            diffs.append(f"model {model!r} != {w['model']!r}")
    return diffs


def short(value, limit=70):
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    text = repr(text) if isinstance(value, str) else text
    return text if len(text) <= limit else text[:limit] + "…"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", help="the deltafold binary (default: build it with cargo)")
    parser.add_argument("--real", default=str(REPO.parent / "shared" / "real-sse"),
                        help="folder of real recordings (default ../shared/real-sse, when present)")
    parser.add_argument("--only", help="inputs whose path contains this text")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every difference as it is found")
    args = parser.parse_args()
    cli = cli_binary(args)

    counts = defaultdict(lambda: defaultdict(int))
    details = defaultdict(list)
    skipped = []
    for path in inputs(Path(args.real)):
        name = str(path.relative_to(path.parents[1]))
        if args.only and args.only not in str(path):
            continue
        code, out, err = run(cli, "--json", path=path)
        if code != 0:
            skipped.append((name, err.strip().splitlines()[0] if err.strip() else f"exit {code}"))
            continue
        refs = reference_choices(json.loads(out))
        for target in TARGETS:
            for streamed in (True, False):
                column = (target, "stream" if streamed else "json")
                code, out, err = run(cli, "--to" if streamed else "--json-as", target, path=path)
                try:
                    if code != 0:
                        raise RuntimeError(f"CLI exit {code}: {err.strip()[:200]}")
                    rule = None
                    try:
                        read = READERS[(target, streamed)](out)
                    except SdkRule as sdk:
                        rule, read = sdk.reason, sdk.held
                    diffs = compare(refs, target, streamed, read)
                except Exception as error:  # noqa: BLE001 - any SDK failure is a finding
                    counts[column]["raises"] += 1
                    line = "".join(traceback.format_exception_only(type(error), error)).strip().splitlines()
                    details[column].append((name, "raises", line[0][:300] if line else repr(error)))
                    continue
                if diffs:
                    counts[column]["different"] += 1
                    details[column].append((name, "different", "; ".join(diffs)))
                else:
                    counts[column]["same"] += 1
                if rule:
                    counts[column]["sdk rule"] += 1
                    details[column].append((name, "sdk rule", rule))
                if args.verbose and diffs:
                    print(f"{column} {name}: {'; '.join(diffs)}", file=sys.stderr)

    print("| target | output | same | different | raises | of | SDK's own rule (compared anyway) |")
    print("|---|---|---|---|---|---|---|")
    for target in TARGETS:
        for kind in ("stream", "json"):
            c = counts[(target, kind)]
            total = c["same"] + c["different"] + c["raises"]
            print(f"| {target} | {kind} | {c['same']} | {c['different']} | {c['raises']} | {total} | {c['sdk rule']} |")
    print()
    for column, rows in details.items():
        for name, what, why in rows:
            print(f"- {column[0]} {column[1]} · {name} · {what}: {why}")
    print()
    print(f"{len(skipped)} inputs skipped (the source itself fails, so there is no complete message to re-encode):")
    for name, why in skipped:
        print(f"- {name}: {why[:160]}")


if __name__ == "__main__":
    main()
