#!/usr/bin/env python3
"""Write the streamed response bodies of other projects' recordings into a folder, one file each,
for check.py and the nothing-lost test (DELTAFOLD_HELD_OUT): never into this repository.

    extract.py vercel REPO OUT   # vercel/ai: packages/*/src/**/__fixtures__/*.chunks.txt
    extract.py vcr REPO OUT      # pydantic-ai: tests/models/cassettes/**/*.yaml (VCR)

REPO is a git directory (as `fetch` leaves it); its HEAD is read. A `.chunks.txt` holds one JSON
payload a line: each becomes `data: <line>` and a blank line. A cassette's response body is
written as it is stored, when it is an event stream (`.sse`) or AWS's binary event stream
(`.eventstream`), unless ../shared/real-sse/SOURCES.md names it (already seen).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml  # PyYAML

SKIPPED = ("speech-translation", "interactions/", "completion/")  # not chat-message streams
# The recordings already in ../shared/real-sse (each named there by path and interaction).
SEEN = Path(__file__).resolve().parents[3] / "shared" / "real-sse" / "SOURCES.md"


def git(repo: str, *args: str) -> bytes:
    return subprocess.run(["git", "-C", repo, *args], capture_output=True, check=True).stdout


def files(repo: str) -> list:
    return git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().split("\n")


def safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)[:120]


def vercel(repo: str, out: Path) -> int:
    count = 0
    for path in files(repo):
        if "__fixtures__/" not in path or not path.endswith(".chunks.txt") or any(s in path for s in SKIPPED):
            continue
        lines = [line for line in git(repo, "show", f"HEAD:{path}").decode().splitlines() if line.strip()]
        name = f"vercel__{path.split('/')[1]}__{Path(path).name[: -len('.chunks.txt')]}"
        (out / f"{safe(name)}.sse").write_text("".join(f"data: {line}\n\n" for line in lines))
        count += 1
    return count


def vcr(repo: str, out: Path) -> int:
    seen = SEEN.read_text() if SEEN.is_file() else ""
    count = 0
    for path in files(repo):
        if "/cassettes/" not in path or not path.endswith(".yaml"):
            continue
        try:  # a snapshot may list a large file it does not hold
            document = yaml.safe_load(git(repo, "show", f"HEAD:{path}")) or {}
        except (subprocess.CalledProcessError, yaml.YAMLError):
            continue
        for number, interaction in enumerate(document.get("interactions") or []):
            response = interaction.get("response") or {}
            body = (response.get("body") or {}).get("string")
            headers = {key.lower(): str(value) for key, value in (response.get("headers") or {}).items()}
            name = safe(f"{path.split('/')[-2]}__{Path(path).stem}__{number}")
            if f"`{path}` (interaction #{number} " in seen:
                continue
            if isinstance(body, str) and '"jsonrpc"' in body[:400]:
                continue  # an MCP server's JSON-RPC stream, not a model's answer
            if isinstance(body, str) and body.lstrip().startswith(("data:", "event:")):
                (out / f"{name}.sse").write_text(body)
            elif "eventstream" in headers.get("content-type", "") and body:
                (out / f"{name}.eventstream").write_bytes(body if isinstance(body, bytes) else body.encode("latin-1"))
            else:
                continue
            count += 1
    return count


def main() -> None:
    kind, repo, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    print({"vercel": vercel, "vcr": vcr}[kind](repo, out), "streams written to", out)


if __name__ == "__main__":
    main()
