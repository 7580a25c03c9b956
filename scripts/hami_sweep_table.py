#!/usr/bin/env python3
"""The docs/hami.md overcommit table from a compare of scenarios/hami-overcommit.yaml.

  slicelab compare scenarios/hami-overcommit.yaml --out /tmp/ho
  scripts/hami_sweep_table.py /tmp/ho
"""
import csv
import json
import sys

out = sys.argv[1]
peak = {}
for r in csv.DictReader(open(f"{out}/timeseries.csv")):
    peak[r["policy"]] = max(peak.get(r["policy"], 0), int(r["running"]))
summary = json.load(open(f"{out}/summary.json"))
print("| policy | peak running pods | queue p99 | completed | failed out of memory |")
print("|---|---:|---:|---:|---:|")
for p in summary["policies"]:
    oom = sum(v for k, v in p["not_placed_reasons"].items() if k.startswith("out of memory"))
    q = p["queue_delay_s"]["p99"] or 0.0
    print(f"| {p['name']} | {peak[p['name']]} | {q / 60:.1f} min | {p['pods']['completed']} | "
          f"{oom} |")
