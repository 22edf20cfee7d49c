#!/usr/bin/env python3
"""The declared rust-version holds for what the lockfile resolves.

Only one toolchain is installed here, so the minimum cannot be proven by building with it.
Instead: every package that a build of the library (default features, and all features) or of
the CLI or the Python package compiles -- normal and build dependencies, for every target platform, as the lockfile
resolves them -- must declare a rust-version no newer than ours. Dev-dependencies (tests,
benches) are not part of what a user builds and are not checked. A package that declares no
rust-version is listed but cannot fail the check.

Also fails when `cargo tree -p deltafold -e normal` (default features: what a library user
builds) contains clap: the CLI's dependencies stay in cli/.

Run from the repository root: python3 .ci/msrv.py
"""

import json
import subprocess
import sys

# (package, cargo tree feature flags) whose graphs are checked against the package's own
# rust-version.
GRAPHS = [
    ("deltafold", []),
    ("deltafold", ["--all-features"]),
    ("deltafold", ["--no-default-features"]),
    ("deltafold-cli", []),
    ("deltafold-python", []),
]


def version(text):
    """'1.88' or '1.88.0' as a comparable tuple (1, 88, 0)."""
    parts = [int(part) for part in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def cargo(*args):
    return subprocess.run(
        ["cargo", *args], check=True, capture_output=True, text=True
    ).stdout


def graph(package, flags, edges="normal,build", target="all"):
    """The (name, version) of every package in the package's resolved graph."""
    out = cargo(
        "tree", "-p", package, "-e", edges, "--target", target,
        "--prefix", "none", "-f", "{p}", *flags,
    )
    found = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[1].startswith("v"):
            found.add((fields[0], fields[1][1:]))
    return found


def main():
    metadata = json.loads(cargo("metadata", "--format-version", "1", "--locked"))
    declared = {
        (package["name"], package["version"]): package.get("rust_version")
        for package in metadata["packages"]
    }
    failures = []
    for package, flags in GRAPHS:
        ours = next(
            (rv for (name, _), rv in declared.items() if name == package and rv), None
        )
        if ours is None:
            failures.append(f"{package} declares no rust-version")
            continue
        members = {member for member in graph(package, flags) if member[0] != package}
        newest = ("", "0")
        unknown = []
        for member in sorted(members):
            theirs = declared.get(member)
            if theirs is None:
                unknown.append(member[0])
                continue
            if version(theirs) > version(newest[1]):
                newest = (f"{member[0]} {member[1]}", theirs)
            if version(theirs) > version(ours):
                failures.append(
                    f"{package} {' '.join(flags) or '(default features)'}: "
                    f"{member[0]} {member[1]} needs Rust {theirs}, above our rust-version {ours}"
                )
        print(
            f"{package} {' '.join(flags) or '(default features)'}: {len(members)} dependencies, "
            f"rust-version {ours}; the highest a dependency declares is {newest[1]} "
            f"({newest[0]}); {len(unknown)} declare none"
        )
    library = graph("deltafold", [], edges="normal", target="all")
    if any(name == "clap" for name, _ in library):
        failures.append("a library-only dependency builds clap (cargo tree -p deltafold -e normal)")
    else:
        print(f"deltafold (default features, normal edges): {len(library)} packages, no clap")
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
