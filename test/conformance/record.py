#!/usr/bin/env python3
"""Turns the oracle's Claude Code results into the conformance fixtures.

  record.py --oracle PATH --version V --cases cases.json --results OUT/cc.json --fixture expected.json

Each compared call of the case file becomes one entry of the fixture: its key
(the case id, or case#turn.call when the case compares more than one call,
as the oracle's compare names it), the tool, Claude Code's permission decision
and its tool_result block normalised exactly as `oracle.py compare` does
(workspace, aux and home paths replaced, text blocks joined). The functions
come from oracle.py itself, so the fixtures cannot drift from the oracle's
normalisation. Only the project's own data is written: the calls and the
results Claude Code gave for them.
"""
import argparse
import importlib.util
import json
import sys


def load_oracle(path):
    spec = importlib.util.spec_from_file_location("oracle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--oracle", required=True, help="oracle.py")
    ap.add_argument("--version", required=True, help="the pinned Claude Code version")
    ap.add_argument("--cases", required=True)
    ap.add_argument("--results", required=True, help="the oracle's cc results (OUT/NAME.json)")
    ap.add_argument("--fixture", required=True, help="the fixture to write")
    a = ap.parse_args()
    o = load_oracle(a.oracle)
    doc = json.load(open(a.results, encoding="utf-8"))
    ver = doc.get("claude_version", "")
    if not ver.startswith(a.version + " ") and ver != a.version:
        sys.exit(f"{a.results} comes from Claude Code {ver!r}, not the pinned {a.version}")
    cases = o.load_cases(a.cases)
    results = doc["results"]
    calls, missing = [], []
    for c in cases:
        rec = results.get(c["id"])
        if rec is None:
            missing.append(c["id"])
            continue
        ncomp = sum(1 for t in c["turns"] for b in t if b.get("compare", True))
        for ti, turn in enumerate(c["turns"]):
            got = o.cc_by_id(rec["turns"][ti] if ti < len(rec["turns"]) else None)
            for bi, b in enumerate(turn):
                if not b.get("compare", True):
                    continue
                key = c["id"] if ncomp == 1 else f"{c['id']}#{ti + 1}.{bi + 1}"
                n = o.norm_result(got.get(b["id"]), rec)
                if n is None:
                    missing.append(key)
                    continue
                calls.append({"key": key, "tool": b["name"], "tool_use_id": b["id"],
                              "decision": o.cc_decision(rec, b["id"], n), "result": n})
    if missing:
        sys.exit(f"no Claude Code result for {', '.join(missing)}: see {a.results} and the raw logs beside it")
    out = {"claude_code_version": a.version, "host_prompts": doc.get("host_prompts", "none"),
           "deny_message": doc.get("deny_message", ""), "calls": calls}
    with open(a.fixture, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"wrote {a.fixture}: {len(calls)} calls from Claude Code {ver}")


if __name__ == "__main__":
    main()
