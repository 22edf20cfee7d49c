#!/usr/bin/env python3
"""Capture what the official google-genai client sends, as request fixtures.

Runs the client against a local HTTP server on 127.0.0.1 (a free port) that records each
request body and answers 400, and writes fixtures/requests/gemini/genai_<case>.json (the body as
sent) for three cases: function tools (an OpenAPI `Schema` and a `parameters_json_schema`, a
conversation with calls, a thought signature), a `response_schema`, and built-in tools with
safety settings. The `.to.json` translations are then written by
`DELTAFOLD_BLESS=1 cargo test --test wire_requests` (review the diff).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

from google import genai
from google.genai import types as t

OUT = Path(__file__).resolve().parents[2] / "fixtures" / "requests" / "gemini"
captured: list[tuple[str, dict]] = []


class Recorder(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the handler's name
        body = self.rfile.read(int(self.headers["content-length"]))
        captured.append((self.path, json.loads(body)))
        self.send_response(400)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(b'{"error":{"code":400,"message":"captured","status":"INVALID_ARGUMENT"}}')

    def log_message(self, *args) -> None:
        pass


def cases() -> dict[str, tuple[str, object, t.GenerateContentConfig]]:
    S = t.Schema
    weather = S(
        type="OBJECT",
        properties={
            "city": S(type="STRING", description="City name", min_length=1, example="Paris"),
            "unit": S(type="STRING", enum=["celsius", "fahrenheit"], format="enum", nullable=True),
            "days": S(type="INTEGER", minimum=1, maximum=7),
            "tags": S(type="ARRAY", items=S(type="STRING"), max_items=3),
            "where": S(any_of=[S(type="STRING"), S(type="NUMBER")]),
        },
        required=["city"],
    )
    conversation = [
        t.Content(role="user", parts=[t.Part(text="Weather and time in Paris?")]),
        t.Content(role="model", parts=[
            t.Part(function_call=t.FunctionCall(name="get_weather", args={"city": "Paris"}), thought_signature=b"sig-1"),
            t.Part(function_call=t.FunctionCall(name="get_time", args={"city": "Paris"})),
        ]),
        t.Content(role="user", parts=[
            t.Part(function_response=t.FunctionResponse(name="get_weather", response={"temperature_c": 18})),
            t.Part(function_response=t.FunctionResponse(name="get_time", response={"time": "14:00"})),
        ]),
    ]
    tools = t.GenerateContentConfig(
        system_instruction="Be brief.", max_output_tokens=2000, temperature=0.4, top_p=0.9, top_k=20,
        seed=7, presence_penalty=0.5, frequency_penalty=0.25,
        thinking_config=t.ThinkingConfig(thinking_budget=1024, include_thoughts=True),
        tools=[t.Tool(function_declarations=[
            t.FunctionDeclaration(name="get_weather", description="Current weather", parameters=weather),
            t.FunctionDeclaration(name="get_time", description="Local time", parameters_json_schema={
                "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        ])],
        tool_config=t.ToolConfig(function_calling_config=t.FunctionCallingConfig(
            mode="ANY", allowed_function_names=["get_weather"])),
    )
    schema = t.GenerateContentConfig(
        max_output_tokens=500, response_mime_type="application/json",
        response_schema=S(type="OBJECT", properties={"answer": S(type="STRING"), "score": S(type="NUMBER", nullable=True)}, required=["answer"]),
        thinking_config=t.ThinkingConfig(thinking_level="LOW"),
    )
    native = t.GenerateContentConfig(
        tools=[t.Tool(google_search=t.GoogleSearch()), t.Tool(code_execution=t.ToolCodeExecution())],
        safety_settings=[t.SafetySetting(category="HARM_CATEGORY_HATE_SPEECH", threshold="BLOCK_ONLY_HIGH")],
        candidate_count=1,
    )
    return {
        "genai_tools": ("gemini-2.5-flash", conversation, tools),
        "genai_schema": ("gemini-3-pro-preview", "Rate Paris.", schema),
        "genai_native": ("gemini-2.5-flash", "What happened in Paris today?", native),
    }


def main() -> None:
    server = HTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    client = genai.Client(api_key="test", http_options=t.HttpOptions(
        base_url=f"http://127.0.0.1:{server.server_address[1]}", api_version="v1beta"))
    for name, (model, contents, config) in cases().items():
        captured.clear()
        try:
            list(client.models.generate_content_stream(model=model, contents=contents, config=config))
        except genai.errors.APIError:
            pass  # the recorder answers 400 once it has the body
        path, body = captured[0]
        print(f"{name}: {path}")
        (OUT / f"{name}.json").write_text(json.dumps(body, indent=2) + "\n")
    server.shutdown()


if __name__ == "__main__":
    main()
