#!/usr/bin/env python3
"""Compares `kcc legality tma` verdicts with the driver's.

usage: check_agreement.py CASES.jsonl[.gz] VERDICTS.jsonl [RULE ...]
CASES carries `driver_result` (the CUresult of cuTensorMapEncodeTiled; 0 is
legal); VERDICTS is kcc's output for the same lines. Prints the agreement and
every disagreement, and which of the RULE names no verdict reported; exits 1
unless they agree on every case.
"""
import gzip
import json
import sys


def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [json.loads(l) for l in f if l.strip()]


def main():
    cases, verdicts = lines(sys.argv[1]), lines(sys.argv[2])
    if len(cases) != len(verdicts):
        sys.exit(f"{len(cases)} cases but {len(verdicts)} verdicts")
    wrong = []
    for case, verdict in zip(cases, verdicts):
        if verdict.get("id") != case.get("id"):
            sys.exit(f"verdict order broken at case id {case.get('id')}")
        if "legal" not in verdict:
            wrong.append((case, verdict))
        elif verdict["legal"] != (case["driver_result"] == 0):
            wrong.append((case, verdict))
    legal = sum(1 for c in cases if c["driver_result"] == 0)
    print(f"cases: {len(cases)} (driver: {legal} legal, "
          f"{len(cases) - legal} illegal)")
    print(f"agree: {len(cases) - len(wrong)} of {len(cases)}")
    fired = {r for v in verdicts for r in v.get("failed_rules", [])}
    unused = [r for r in sys.argv[3:] if r not in fired]
    if sys.argv[3:]:
        print("rules never reported:", " ".join(unused) if unused else "none")
    for case, verdict in wrong[:50]:
        print("DISAGREE:", json.dumps(case), "->", json.dumps(verdict))
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
