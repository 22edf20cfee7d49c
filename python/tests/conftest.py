"""Shared pieces of the Python tests: the streams to replay and the CLI as the oracle.

The streams are the repository's fixtures (every `.sse`, `.ndjson`, `.eventstream` and `.body`
under fixtures/) and the real recordings in ../shared/real-sse beside the repository. What the
package returns for each is compared with what the `deltafold` CLI prints for the same file:
`--json` for the messages, `--events` for the events.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
REAL_SSE = ROOT.parent / "shared" / "real-sse"
STREAM_SUFFIXES = {".sse", ".ndjson", ".eventstream", ".body"}


def streams() -> List[Path]:
    """Every stream to replay, fixtures first."""
    found = sorted(path for path in FIXTURES.rglob("*") if path.suffix in STREAM_SUFFIXES)
    if REAL_SSE.is_dir():
        found += sorted(REAL_SSE.glob("*.sse"))
    return found


def stream_id(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


@functools.lru_cache(maxsize=None)
def cli_binary() -> str:
    """The CLI: $DELTAFOLD_CLI, else the workspace's debug build (built here when missing)."""
    given = os.environ.get("DELTAFOLD_CLI")
    if given:
        return given
    binary = ROOT / "target" / "debug" / "deltafold"
    if not binary.exists():
        subprocess.run(["cargo", "build", "-p", "deltafold-cli"], cwd=ROOT, check=True)
    return str(binary)


@dataclass
class CliRun:
    """What the CLI printed for one file in one mode."""

    stdout: str
    stderr: str
    failed: bool


@functools.lru_cache(maxsize=None)
def run_cli(path: Path, mode: str) -> CliRun:
    done = subprocess.run(
        [cli_binary(), mode, str(path)], capture_output=True, text=True, check=False
    )
    return CliRun(done.stdout, done.stderr, done.returncode != 0)


def cli_messages(path: Path) -> Optional[list]:
    """The messages `--json` printed (a list), or None when it printed none."""
    out = run_cli(path, "--json").stdout
    if not out.strip():
        return None
    value = json.loads(out)
    return value if isinstance(value, list) else [value]


def cli_events(path: Path) -> List[dict]:
    """The events `--events` printed, without the CLI-only `partial` of argument deltas."""
    events = []
    for line in run_cli(path, "--events").stdout.splitlines():
        event = json.loads(line)
        event.pop("partial", None)
        events.append(event)
    return events


def our_messages(completion) -> Optional[list]:
    """A completion's messages as the CLI prints them: every choice, or the empty message."""
    if completion is None:
        return None
    return completion.messages() or [completion.message()]
