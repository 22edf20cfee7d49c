#!/usr/bin/env python3
"""Serve every relayed error body to the official SDKs and check the error each one raises.

Reads fixtures/error_bodies/relayed.json (written by `tests/wire_error_body.rs`: an upstream
error with its status, written by `wire::error_body::encode` for each format) and answers each
SDK's request from a local HTTP server on 127.0.0.1 (a free port) with the status and the body
of its format. The SDK must raise its error class for that status, with the upstream message in its
own (the OpenAI and Anthropic SDKs prefix it with `Error code: N - `), and read the body's
`type`, `code` and `param` (OpenAI), `type` (Anthropic), `status` (google-genai).
Exits 1 on any mismatch.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import anthropic
import openai
from google import genai
from google.genai import types as genai_types

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "error_bodies" / "relayed.json"
answer: dict[str, tuple[int, dict]] = {}


class Server(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - the handler's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        status, body = answer["now"]
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body).encode())

    def log_message(self, *args) -> None:
        pass


def raised(call) -> Exception:
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the SDK's own error is what is checked
        return error
    raise AssertionError("no error raised")


def main() -> int:
    server = HTTPServer(("127.0.0.1", 0), Server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    chat = openai.OpenAI(api_key="test", base_url=url + "/v1", max_retries=0)
    claude = anthropic.Anthropic(api_key="test", base_url=url, max_retries=0)
    gemini = genai.Client(api_key="test", http_options=genai_types.HttpOptions(base_url=url, api_version="v1beta"))
    calls = {
        "openai_chat": lambda: chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "Hi"}]),
        "openai_responses": lambda: chat.responses.create(model="m", input="Hi"),
        "anthropic": lambda: claude.messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "Hi"}]),
        "gemini": lambda: gemini.models.generate_content(model="m", contents="Hi"),
    }
    failures = checked = 0
    for name, case in json.loads(FIXTURE.read_text()).items():
        status = case["status"]
        for target, call in calls.items():
            body = case[target]
            answer["now"] = (status, body)
            error = raised(call)
            problems = []
            if target.startswith("openai"):
                inner = body["error"]
                if not isinstance(error, openai.APIStatusError) or error.status_code != status:
                    problems.append(f"raised {error!r}")
                elif inner["message"] not in error.message or (error.type, error.code, error.param) != (inner["type"], inner["code"], inner["param"]):
                    problems.append(f"read {(error.message, error.type, error.code, error.param)}")
            elif target == "anthropic":
                if not isinstance(error, anthropic.APIStatusError) or error.status_code != status:
                    problems.append(f"raised {error!r}")
                elif body["error"]["message"] not in error.message or error.body["error"]["type"] != body["error"]["type"]:
                    problems.append(f"read {error.message!r}")
            else:
                if not isinstance(error, genai.errors.APIError) or error.code != status:
                    problems.append(f"raised {error!r}")
                elif (error.message, error.status) != (body["error"]["message"], body["error"]["status"]):
                    problems.append(f"read {(error.message, error.status)}")
            checked += 1
            if problems:
                failures += 1
                print(f"FAIL {name} → {target} ({status}): {'; '.join(problems)}")
            else:
                print(f"  {name} → {target}: {type(error).__name__}")
    server.shutdown()
    print(f"{checked - failures} of {checked} relayed errors raised as the SDK's own, with the upstream message")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
