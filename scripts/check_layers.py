#!/usr/bin/env python3
"""Checks the include graph of include/probe: no cycles between files, and every include
points to the same folder or a lower layer (util < core < formats < effects < backends <
wiring < probe.hpp; the C interface, probe.h and c/, sits at the top beside it). Usage: check_layers.py [INCLUDE_DIR]. Exit 1 with the offending edges."""
import os
import re
import sys

root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "include"))
base = os.path.join(root, "probe")
layers = {"util": 0, "core": 1, "formats": 2, "effects": 3, "backends": 4, "wiring": 5, "": 6, "c": 6}
include = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)

graph = {}
for folder, _, files in os.walk(base):
    for f in files:
        if f.endswith((".hpp", ".h")):
            path = os.path.relpath(os.path.join(folder, f), base)
            text = open(os.path.join(folder, f), encoding="utf-8").read()
            graph[path] = [os.path.normpath(os.path.join(os.path.dirname(path), m)) for m in include.findall(text)]

errors = []
for src, targets in sorted(graph.items()):
    for dst in targets:
        if dst not in graph:
            errors.append(f"{src} includes {dst}, which is not a probe header")
            continue
        a, b = os.path.dirname(src), os.path.dirname(dst)
        if a not in layers or b not in layers:
            errors.append(f"{src} -> {dst}: folder not in the layer list")
        elif layers[b] > layers[a]:
            errors.append(f"{src} ({a or 'top'}) includes {dst} ({b}), a higher layer")

# Cycles, by depth-first search.
state = {}
def visit(n, stack):
    state[n] = 1
    stack.append(n)
    for m in graph.get(n, []):
        if state.get(m) == 1:
            errors.append("include cycle: " + " -> ".join(stack[stack.index(m):] + [m]))
        elif m in graph and not state.get(m):
            visit(m, stack)
    stack.pop()
    state[n] = 2
for n in sorted(graph):
    if not state.get(n):
        visit(n, [])

for e in errors:
    print(e)
print(f"{len(graph)} headers, {sum(len(t) for t in graph.values())} includes: " + ("layers ok" if not errors else f"{len(errors)} problems"))
sys.exit(1 if errors else 0)
