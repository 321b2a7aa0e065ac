#!/usr/bin/env python3
"""Guards what an app taking the OrientClient library gets.

    scripts/check-client-closure.py [BINARY ...]

1. The manifest: the targets the OrientClient and OrientProtocol products
   reach are exactly OrientClient and OrientProtocol, and none carries unsafe
   flags (SwiftPM refuses a versioned dependency whose targets use them, so
   an app could not depend on a release of orientd).
2. The sources: those targets import nothing but each other and the
   toolchain's modules. (SwiftPM lets a target import any module that happens
   to be built, declared or not; this catches an undeclared import of
   OrientSense before it links the classifier into apps.)
3. The binaries (default: .build/debug/orientctl), built from OrientClient:
   no symbol of OrientSense, OrientDevices, OrientConfig, OrientAccess,
   OrientDaemon or OrientSynth (the classifier, the device rules, the config
   parser, the access policy, the daemon), and no libiio, libudev or libsystemd among the
   libraries they need.

Exits 1 naming every violation. Run by `make check` after the build.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCTS = ["OrientClient", "OrientProtocol"]
ALLOWED_TARGETS = {"OrientClient", "OrientProtocol"}
TOOLCHAIN_MODULES = {"Glibc", "Musl", "Darwin", "Dispatch", "Synchronization", "FoundationEssentials", "Foundation"}
FORBIDDEN_MODULES = ["OrientSense", "OrientDevices", "OrientConfig", "OrientAccess", "OrientDaemon", "OrientSynth"]
FORBIDDEN_LIBRARIES = ["libiio", "libudev", "libsystemd"]


def dependency_names(target):
    for dep in target.get("dependencies", []):
        for kind in ("byName", "target"):
            if kind in dep:
                yield dep[kind][0]
        if "product" in dep:
            yield "product:" + dep["product"][0]


def closure(manifest, products):
    """The targets the named products reach, and any outside products they take."""
    targets = {t["name"]: t for t in manifest["targets"]}
    own = {p["name"]: p["targets"] for p in manifest["products"]}
    todo = [t for p in products for t in own[p]]
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        if name.startswith("product:") or name not in targets:
            continue
        todo.extend(dependency_names(targets[name]))
    return seen


def manifest_problems(manifest):
    targets = {t["name"]: t for t in manifest["targets"]}
    reached = closure(manifest, PRODUCTS)
    problems = []
    for name in sorted(reached - ALLOWED_TARGETS):
        problems.append(f"the OrientClient/OrientProtocol products reach {name}; they may reach only {sorted(ALLOWED_TARGETS)}")
    for name in sorted(reached & set(targets)):
        for setting in targets[name].get("settings", []):
            if "unsafeFlags" in setting.get("kind", {}):
                flags = " ".join(setting["kind"]["unsafeFlags"]["_0"])
                problems.append(f"target {name} carries unsafe flags ({flags}); apps could not depend on a release of orientd")
    return problems


def source_problems(root):
    problems = []
    pattern = re.compile(
        r"^[ \t]*(?:@\w+[ \t]+)*(?:(?:public|package|internal|private|fileprivate)[ \t]+)?import[ \t]+"
        r"(?:(?:struct|class|enum|protocol|typealias|func|var|let)[ \t]+)?(\w+)",
        re.M)
    for target in sorted(ALLOWED_TARGETS):
        folder = os.path.join(root, "Sources", target)
        for dirpath, _, files in os.walk(folder):
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(dirpath, file)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                for module in pattern.findall(text):
                    if module not in ALLOWED_TARGETS | TOOLCHAIN_MODULES:
                        rel = os.path.relpath(path, root)
                        problems.append(f"{rel} imports {module}: OrientClient and OrientProtocol import only each other and the toolchain")
    return problems


def binary_problems(path):
    if not os.path.exists(path):
        return [f"{path} does not exist: build it first"]
    problems = []
    symbols = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    for module in FORBIDDEN_MODULES:
        mangled = f"{len(module)}{module}"
        count = sum(1 for line in symbols.splitlines() if mangled in line)
        if count:
            problems.append(f"{path} holds {count} symbols of {module}")
    dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
    for library in FORBIDDEN_LIBRARIES:
        if re.search(r"\(NEEDED\).*\[" + re.escape(library), dynamic):
            problems.append(f"{path} needs {library}")
    return problems


def self_test():
    """The manifest checks catch what they are for (a guard that cannot fail guards nothing)."""
    bad = {
        "products": [{"name": "OrientClient", "targets": ["OrientClient"]}, {"name": "OrientProtocol", "targets": ["OrientProtocol"]}],
        "targets": [
            {"name": "OrientClient", "dependencies": [{"byName": ["OrientProtocol", None]}, {"byName": ["OrientSense", None]}]},
            {"name": "OrientProtocol", "settings": [{"kind": {"unsafeFlags": {"_0": ["-Ounchecked"]}}, "tool": "swift"}]},
            {"name": "OrientSense", "dependencies": [{"byName": ["OrientProtocol", None]}]},
        ],
    }
    found = manifest_problems(bad)
    assert any("reach OrientSense" in p for p in found), found
    assert any("OrientProtocol carries unsafe flags" in p for p in found), found


def main():
    self_test()
    dump = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True)
    if dump.returncode != 0:
        sys.stderr.write(dump.stderr)
        return 1
    manifest = json.loads(dump.stdout)
    binaries = sys.argv[1:] or [os.path.join(ROOT, ".build", "debug", "orientctl")]
    problems = manifest_problems(manifest) + source_problems(ROOT)
    for binary in binaries:
        problems += binary_problems(binary)
    for problem in problems:
        print("check-client-closure: " + problem, file=sys.stderr)
    if problems:
        return 1
    reached = sorted(closure(manifest, PRODUCTS))
    print(f"check-client-closure: OrientClient reaches {', '.join(reached)}; no unsafe flags; "
          f"{len(binaries)} binar{'y' if len(binaries) == 1 else 'ies'} free of {', '.join(FORBIDDEN_MODULES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
