#!/usr/bin/env python3
"""The solver core's layering: no source file of src/core calls back into a
file that calls it (directly or around a circle), and each stage folder
calls only the folders below it.  Prints the graph of the folders and the
longest function.  Usage: core-layers.py SOURCE_ROOT"""
import collections, glob, os, re, sys

ORDER = ['model', 'la', 'compile', 'dyn', 'kind', 'lin', 'sens', 'integ', 'edit']

root = sys.argv[1] if len(sys.argv) > 1 else '.'
core = os.path.join(root, 'src', 'core')
files = sorted(glob.glob(os.path.join(core, '**', '*.c'), recursive=True))
text = {}
for f in files:
    s = open(f, encoding='utf-8').read()
    s = re.sub(r'/\*.*?\*/', ' ', s, flags=re.S)   # comments out
    s = re.sub(r'"(\\.|[^"\\])*"', '""', s)         # strings out
    text[f] = s

DEF = re.compile(r'^(?!static)[A-Za-z_][\w \*]*?\b(lw_\w+)\s*\([^;{]*?\)\s*\{', re.M | re.S)
defs = {}
for f, s in text.items():
    for m in DEF.finditer(s):
        defs.setdefault(m.group(1), f)

calls = collections.defaultdict(dict)
CALL = re.compile(r'\b(lw_\w+)\s*\(')
for f, s in text.items():
    for name in set(CALL.findall(s)):
        g = defs.get(name)
        if g and g != f:
            calls[f].setdefault(g, name)

def folder(f):
    rel = os.path.relpath(f, core)
    return rel.split(os.sep)[0] if os.sep in rel else '(root)'

bad = 0
# circles among files (Tarjan)
index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = n[0]; n[0] += 1; stack.append(v); on.add(v)
    for w in calls.get(v, {}):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            sccs.append(comp)
for v in files:
    if v not in index:
        visit(v)
for comp in sccs:
    bad += 1
    print('circle among files:', ' '.join(os.path.relpath(c, core) for c in comp))

fedges = collections.defaultdict(lambda: collections.defaultdict(list))
for f, gs in calls.items():
    for g, name in gs.items():
        a, b = folder(f), folder(g)
        if a != b:
            fedges[a][b].append(name)
for a in sorted(fedges):
    print('%-8s calls %s' % (a, ', '.join('%s (%d)' % (b, len(v)) for b, v in sorted(fedges[a].items()))))
    for b, names in fedges[a].items():
        if a not in ORDER or b not in ORDER:
            bad += 1
            print('  a folder outside the stages: %s -> %s (%s)' % (a, b, names[0]))
        elif ORDER.index(b) > ORDER.index(a):
            bad += 1
            print('  upward call: %s -> %s (%s)' % (a, b, ', '.join(sorted(set(names))[:5])))

# private headers stay inside the core (and its white-box tests)
for f in glob.glob(os.path.join(root, 'src', '*', '**', '*.[ch]'), recursive=True):
    if f.startswith(core + os.sep):
        continue
    s = open(f, encoding='utf-8', errors='replace').read()
    m = re.search(r'#include\s+"(lw_internal\.h|kind/[\w.]+|sens/[\w.]+|dyn/[\w.]+|la/[\w.]+|lin/[\w.]+|compile/[\w.]+)"', s)
    if m:
        bad += 1
        print('private header outside the core: %s includes %s' % (os.path.relpath(f, root), m.group(1)))

# the longest function of the core
longest = (0, '', '')
for f in files:
    lines = open(f, encoding='utf-8').read().split('\n')
    start = None
    for i, l in enumerate(lines):
        if start is None and re.match(r'^[A-Za-z_][\w \*]*\b(\w+)\s*\(', l) and not l.rstrip().endswith(';') \
                and not l.startswith(('typedef', 'return', 'else')):
            start, name = i, re.match(r'^[A-Za-z_][\w \*]*\b(\w+)\s*\(', l).group(1)
            if l.rstrip().endswith('}'):
                start = None
        elif start is not None and l.startswith('}'):
            if i - start + 1 > longest[0]:
                longest = (i - start + 1, name, os.path.relpath(f, core))
            start = None
print('longest function: %s (%s), %d lines' % (longest[1], longest[2], longest[0]))
if longest[0] > 150:
    bad += 1
    print('  a function over 150 lines')

# which folders' headers each folder includes
inc = collections.defaultdict(set)
for f in glob.glob(os.path.join(core, '**', '*.[ch]'), recursive=True):
    for h in re.findall(r'#include\s+"([\w/.]+)"', open(f, encoding='utf-8').read()):
        a, b = folder(f), (h.split('/')[0] if '/' in h else ('(root)' if h == 'lw_internal.h' else None))
        if b is None:
            b = folder(f) if os.path.exists(os.path.join(os.path.dirname(f), h)) else 'include'
        if a != b:
            inc[a].add(b)
for a in sorted(inc):
    print('%-8s includes %s' % (a, ', '.join(sorted(inc[a]))))

# no header of the core includes, directly or around a circle, one that
# includes it
hg = {}
for h in glob.glob(os.path.join(core, '**', '*.h'), recursive=True):
    outs = set()
    for name in re.findall(r'#include\s+"([\w/.]+)"', open(h, encoding='utf-8').read()):
        for cand in (os.path.join(os.path.dirname(h), name), os.path.join(core, name), os.path.join(core, 'include', name)):
            if os.path.exists(cand):
                outs.add(os.path.normpath(cand))
                break
    hg[os.path.normpath(h)] = outs
def header_cycle():
    state = {}
    def dfs(v, path):
        state[v] = 1
        for w in hg.get(v, ()):
            if state.get(w) == 1:
                return path + [w]
            if w not in state:
                c = dfs(w, path + [w])
                if c:
                    return c
        state[v] = 2
        return None
    for v in hg:
        if v not in state:
            c = dfs(v, [v])
            if c:
                return c
    return None
c = header_cycle()
print('headers: %d, include circles: %s' % (len(hg), 'none' if not c else ' -> '.join(os.path.relpath(x, core) for x in c)))
if c:
    bad += 1
print('files: %d, circles: %d, faults: %d' % (len(files), len(sccs), bad))
sys.exit(1 if bad else 0)
