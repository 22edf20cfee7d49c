#!/bin/sh
# Copies the recorded-format fixtures into the seed corpora: every fixtures/**/*.sse into the
# sse_decoder and pipeline corpora, every *.ndjson into pipeline, and every OpenAI-style tool
# call's joined arguments into partial_json.
# Run from anywhere; re-running overwrites the fixture-* seeds.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
find "$root/fixtures" -name '*.sse' | sort | while read -r stream; do
    name="fixture-$(echo "${stream#"$root"/fixtures/}" | tr '/' '-')"
    cp "$stream" "$here/corpus/sse_decoder/$name"
    cp "$stream" "$here/corpus/pipeline/$name"
done
find "$root/fixtures" -name '*.ndjson' | sort | while read -r stream; do
    name="fixture-$(echo "${stream#"$root"/fixtures/}" | tr '/' '-')"
    cp "$stream" "$here/corpus/pipeline/$name"
done
python3 - "$root/fixtures" "$here/corpus/partial_json" <<'PY'
import json, pathlib, sys
fixtures, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for stream in sorted(fixtures.rglob("*.sse")):
    calls = {}
    for line in stream.read_text(errors="replace").splitlines():
        if not line.startswith("data:"):
            continue
        try:
            chunk = json.loads(line[5:])
        except ValueError:
            continue
        if not isinstance(chunk, dict) or not isinstance(chunk.get("choices"), list):
            continue
        for choice in chunk["choices"]:
            delta = isinstance(choice, dict) and choice.get("delta")
            for call in (isinstance(delta, dict) and delta.get("tool_calls")) or []:
                args = isinstance(call, dict) and (call.get("function") or {}).get("arguments")
                if isinstance(args, str):
                    key = (choice.get("index"), call.get("index"))
                    calls[key] = calls.get(key, "") + args
    for n, args in enumerate(v for v in calls.values() if v):
        name = "fixture-" + "-".join(stream.relative_to(fixtures).with_suffix("").parts)
        (out / f"{name}-{n}").write_text(args)
PY
