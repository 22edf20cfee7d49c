#!/usr/bin/env python3
"""Validate every request fixture and every translated request with the official SDKs' types.

Reads fixtures/requests/<format>/<name>.json (the requests written from each provider's
documented shapes) and <name>.to.json (what `tests/wire_requests.rs` holds as the translation to
every format: a body, or {"error": ...} naming what the target cannot carry), and validates
every body with:

- OpenAI Chat Completions: `openai.types.chat.completion_create_params.CompletionCreateParamsStreaming`
  (or `...NonStreaming`), a pydantic TypeAdapter over the TypedDict;
- Anthropic Messages: `anthropic.types.message_create_params.MessageCreateParamsStreaming`
  (or `...NonStreaming`);
- OpenAI Responses: `openai.types.responses.response_create_params.ResponseCreateParamsStreaming`
  (or `...NonStreaming`);
- Gemini: `google.genai.types.Content.model_validate` per content, and
  `google.genai.types.GenerateContentConfig.model_validate` over `generationConfig` with
  `systemInstruction`, `tools`, `toolConfig` and `safetySettings` (the SDK's config holds them
  all; it forbids unknown fields).

A TypedDict's `Iterable[...]` fields (messages, tools, content blocks…) validate lazily: the
adapter returns an iterator whose items are checked only when read, so the script reads every
one, at every depth. TypedDicts do not reject unknown keys, so the script also checks every
top-level key is one the SDK's type declares. `dropped` in a `.to.json` file (what
`Request::drop_unsupported` removed for each target) is listed, not validated. Exits 1 on any
failure.
"""

from __future__ import annotations

import json
import sys
import typing
from pathlib import Path

import pydantic
from anthropic.types import message_create_params as anthropic_params
from google.genai import types as genai
from openai.types.chat import completion_create_params as chat_params
from openai.types.responses import response_create_params as responses_params

REPO = Path(__file__).resolve().parents[2]
ROOT = REPO / "fixtures" / "requests"

TYPED = {
    "openai_chat": (chat_params.CompletionCreateParamsStreaming, chat_params.CompletionCreateParamsNonStreaming),
    "anthropic": (anthropic_params.MessageCreateParamsStreaming, anthropic_params.MessageCreateParamsNonStreaming),
    "openai_responses": (responses_params.ResponseCreateParamsStreaming, responses_params.ResponseCreateParamsNonStreaming),
}
# Sampling settings Anthropic's API documents that this SDK version's TypedDict does not
# declare (anthropic 2.17 dropped temperature/top_p/top_k from MessageCreateParams).
UNDECLARED_BUT_DOCUMENTED = {"anthropic": {"temperature", "top_p", "top_k"}}
GEMINI_BODY_KEYS = {"contents", "systemInstruction", "tools", "toolConfig", "generationConfig", "safetySettings"}


ADAPTERS: dict[type, pydantic.TypeAdapter] = {}


def adapter(kind: type) -> pydantic.TypeAdapter:
    # Kept alive: a lazy iterator outliving its TypeAdapter crashes pydantic-core.
    return ADAPTERS.setdefault(kind, pydantic.TypeAdapter(kind))


def force(value: object) -> object:
    """Reads every lazily validated `Iterable` item, at every depth, so that it is validated."""
    if type(value).__name__ == "ValidatorIterator":
        return [force(item) for item in value]
    if isinstance(value, dict):
        return {key: force(item) for key, item in value.items()}
    if isinstance(value, list):
        return [force(item) for item in value]
    return value


def check_typed(fmt: str, body: dict) -> None:
    streaming, non_streaming = TYPED[fmt]
    kind = streaming if body.get("stream") else non_streaming
    force(adapter(kind).validate_python(body))
    declared = set(typing.get_type_hints(kind)) | UNDECLARED_BUT_DOCUMENTED.get(fmt, set())
    unknown = set(body) - declared
    if unknown:
        raise ValueError(f"keys {sorted(unknown)} are not in {kind.__name__}")


def check_gemini(body: dict) -> None:
    unknown = set(body) - GEMINI_BODY_KEYS
    if unknown:
        raise ValueError(f"keys {sorted(unknown)} are not generateContent body fields")
    for content in body["contents"]:
        genai.Content.model_validate(content)
    config = dict(body.get("generationConfig", {}))
    for key in ("systemInstruction", "tools", "toolConfig", "safetySettings"):
        if key in body:
            config[key] = body[key]
    genai.GenerateContentConfig.model_validate(config)


def check(fmt: str, body: dict) -> None:
    if fmt == "gemini":
        check_gemini(body)
    else:
        check_typed(fmt, body)


def main() -> int:
    failures = 0
    counts = {"valid": 0, "error (expected)": 0, "dropped for a target": 0}
    for source in sorted(p for p in ROOT.iterdir() if p.is_dir()):
        for path in sorted(source.glob("*.json")):
            if path.name.endswith(".to.json"):
                continue
            cases = [(source.name, f"{path.relative_to(ROOT)} (as written)", json.loads(path.read_text()))]
            translated = json.loads(path.with_suffix(".to.json").read_text())
            for target, dropped in translated.pop("dropped", {}).items():
                counts["dropped for a target"] += 1
                print(f"  {path.relative_to(ROOT)} → {target}: dropped {json.dumps(dropped)}")
            for target, body in translated.items():
                if set(body) == {"error"}:
                    counts["error (expected)"] += 1
                    print(f"  {path.relative_to(ROOT)} → {target}: {body['error']}")
                    continue
                cases.append((target, f"{path.relative_to(ROOT)} → {target}", body))
            for fmt, label, body in cases:
                try:
                    check(fmt, body)
                    counts["valid"] += 1
                except Exception as error:  # noqa: BLE001 - report every failure
                    failures += 1
                    print(f"FAIL {label}: {error}")
    print(
        f"{counts['valid']} bodies valid, {failures} invalid, "
        f"{counts['error (expected)']} translations refused with an error, "
        f"{counts['dropped for a target']} with settings dropped first"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
