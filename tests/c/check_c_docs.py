#!/usr/bin/env python3
"""docs/c.md names every function and macro probe.h declares: the page is the C interface's
manual. Usage: check_c_docs.py SOURCE_DIR"""
import os
import re
import sys

src = sys.argv[1]
names = set()
for h in ["probe.h", "c/debug.h", "c/replay.h"]:
    text = open(os.path.join(src, "include", "probe", h), encoding="utf-8").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    names |= set(re.findall(r"\b(probe_[a-z0-9_]+)\s*\(", text))
    names |= set(re.findall(r"#define (PROBE_C_SCOPE\w*|probe_\w+)\(", text))
# What the compiled-out forms call from util/ is not part of the interface.
util = open(os.path.join(src, "include", "probe", "util", "metric_line.h"), encoding="utf-8").read()
names -= set(re.findall(r"\b(probe_[a-z0-9_]+)\s*\(", util))
doc = open(os.path.join(src, "docs", "c.md"), encoding="utf-8").read()
missing = sorted(n for n in names if n not in doc and not n.endswith("_"))
for n in missing:
    print(f"docs/c.md does not name {n}")
print(f"{len(names)} names in probe.h, {len(missing)} missing from docs/c.md")
sys.exit(1 if missing else 0)
