#!/usr/bin/env python3
"""The layer test (docs/architecture.md, "The layers").

usage: layers.py --root DIR [--objects DIR] [--graph]

Reads the layer table (column "folder", column "may include": backticked
names; "everything" for all) and the exceptions table ("file | may also
include | why") under "## The layers" of DIR/docs/architecture.md, then
checks the sources of DIR (pipelines/, datasets/, bench/*/):
  - every folder holding sources is in the table;
  - includes: every #include "x" resolved by basename (two headers with one
    basename fail); a folder may include its own and its "may include";
  - uses (with --objects: the build tree holding the objects, as
    build/san): `nm -P` of every object under OBJECTS/{pipelines,datasets,
    bench}; a file using a symbol another file defines is an edge, checked
    as includes are, and a cycle of files (a strongly connected component)
    fails with the symbols of its edges;
  - sizes: no .c file over 1,200 lines, no function over 120 (signature
    line to closing brace);
  - an exception that no longer occurs fails.
No violation is allowed but a stated exception. Exit 0 when the tree holds,
1 when not (each violation on a line), 2 on a bad table or usage.
"""
import argparse, collections, glob, os, re, subprocess, sys

MAX_FILE_LINES = 1200
MAX_FUNC_LINES = 120


def die(msg):
    print("layers: error: " + msg, file=sys.stderr)
    sys.exit(2)


def table_rows(lines, start):
    """the rows of the first markdown table at or after lines[start]: list of cells lists"""
    i = start
    while i < len(lines) and not lines[i].lstrip().startswith('|'):
        if lines[i].startswith('## ') and i > start:
            return None, i
        i += 1
    rows = []
    while i < len(lines) and lines[i].lstrip().startswith('|'):
        cells = [c.strip() for c in lines[i].strip().strip('|').split('|')]
        if not all(re.fullmatch(r':?-+:?', c) for c in cells if c):
            rows.append(cells)
        i += 1
    return rows, i


def parse_docs(path):
    try:
        lines = open(path).read().split('\n')
    except OSError as e:
        die("cannot read %s: %s" % (path, e.strerror))
    try:
        i = next(k for k, l in enumerate(lines) if l.strip() == '## The layers')
    except StopIteration:
        die('%s: no "## The layers" section' % path)
    rows, i = table_rows(lines, i)
    if not rows:
        die('%s: no layer table under "## The layers"' % path)
    hdr = [h.lower() for h in rows[0]]
    if 'folder' not in hdr or 'may include' not in hdr:
        die('%s: the layer table needs the columns "folder" and "may include"' % path)
    fc, mc = hdr.index('folder'), hdr.index('may include')
    allow, everything = {}, set()
    for r in rows[1:]:
        names = re.findall(r'`([^`]+)`', r[fc])
        if len(names) != 1:
            die('%s: a layer row names one folder in backticks: %s' % (path, ' | '.join(r)))
        f = names[0].rstrip('/')
        allow[f] = set(n.rstrip('/') for n in re.findall(r'`([^`]+)`', r[mc]))
        if r[mc].strip().lower() == 'everything':
            everything.add(f)
    for f in everything:
        allow[f] = set(allow)
    for f, may in allow.items():
        for m in may:
            if m not in allow:
                die('%s: %s may include %s, which is not in the table' % (path, f, m))
    exc = collections.defaultdict(set)
    rows2, _ = table_rows(lines, i)
    if rows2 and [h.lower() for h in rows2[0]][:2] == ['file', 'may also include']:
        for r in rows2[1:]:
            fs = re.findall(r'`([^`]+)`', r[0])
            for f in fs:
                exc[f] |= set(n.rstrip('/') for n in re.findall(r'`([^`]+)`', r[1]))
    return allow, exc


def sources(root):
    pats = ['pipelines/*.c', 'pipelines/*.h', 'datasets/*.c', 'datasets/*.h',
            'bench/*/*.c', 'bench/*/*.h']
    out = []
    for p in pats:
        out += [os.path.relpath(f, root) for f in glob.glob(os.path.join(root, p))]
    return sorted(out)


def strip_c(src):
    """comments, strings and character literals blanked (newlines kept)"""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith('/*', i):
            j = src.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', src[i:j]))
            i = j
        elif src.startswith('//', i):
            j = src.find('\n', i)
            j = n if j < 0 else j
            i = j
        elif c == '"' or c == "'":
            j = i + 1
            while j < n and src[j] != c and src[j] != '\n':
                if src[j] == '\\':
                    j += 1
                j += 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def functions(text):
    """(name, first line, last line) of each function defined at the top level"""
    s = strip_c(text)
    lines = s.split('\n')
    res, depth, name, start = [], 0, None, 0
    for ln, l in enumerate(lines, 1):
        if depth == 0 and '{' in l:
            name = None
            upto = l[:l.index('{')]
            back = lines[max(0, ln - 7):ln - 1] + [upto]
            hdr = '\n'.join(back)
            hdr = re.split(r'[;}]|^\s*#.*$', hdr, flags=re.M)[-1]
            m = re.search(r'([A-Za-z_]\w*)\s*\(([^;{}()]|\([^()]*\))*\)\s*$', hdr)
            if m and not re.search(r'=\s*$', upto) and \
                    not re.match(r'\s*(struct|enum|union|typedef)\b', hdr.strip()) and \
                    m.group(1) not in ('if', 'for', 'while', 'switch', 'sizeof', 'return'):
                name = m.group(1)
                off = hdr[:m.start(1)].count('\n')
                start = ln - (hdr.count('\n') - off)
        for ch in l:
            if ch == '{':
                depth += 1
            elif ch == '}':
                depth -= 1
                if depth == 0 and name:
                    res.append((name, start, ln))
                    name = None
    return res


def scc(nodes, edges):
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]
    for v0 in nodes:
        if v0 in index:
            continue
        work = [(v0, iter(sorted(edges.get(v0, ()))))]
        index[v0] = low[v0] = n[0]; n[0] += 1; stack.append(v0); on.add(v0)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n[0]; n[0] += 1; stack.append(w); on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                c = []
                while True:
                    w = stack.pop(); on.discard(w); c.append(w)
                    if w == v:
                        break
                if len(c) > 1:
                    out.append(sorted(c))
    return out


def nm_graph(root, objdir):
    objs = []
    for top in ('pipelines', 'datasets', 'bench'):
        for d, _, fs in os.walk(os.path.join(objdir, top)):
            objs += [os.path.join(d, f) for f in fs if f.endswith('.o')]
    if not objs:
        die('no object files under %s/{pipelines,datasets,bench} (build first)' % objdir)
    defs, undefs = {}, collections.defaultdict(set)
    for o in sorted(objs):
        src = os.path.relpath(o, objdir)[:-2] + '.c'
        if not os.path.exists(os.path.join(root, src)):
            continue   # an object left by a removed source
        try:
            out = subprocess.run(['nm', '-P', o], capture_output=True, text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError) as e:
            die('nm -P %s: %s' % (o, e))
        for l in out.split('\n'):
            p = l.split()
            if len(p) < 2:
                continue
            sym, t = p[0], p[1]
            if t in 'TDBRVWCG' and t.isupper():
                defs.setdefault(sym, src)
            elif t == 'U':
                undefs[src].add(sym)
    uses = collections.defaultdict(lambda: collections.defaultdict(set))
    for a, syms in undefs.items():
        for sym in syms:
            b = defs.get(sym)
            if b and b != a:
                uses[a][b].add(sym)
    return uses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--root', required=True)
    ap.add_argument('--objects')
    ap.add_argument('--docs')
    ap.add_argument('--graph', action='store_true', help='print the folder edges and file cycles')
    a = ap.parse_args()
    root = a.root
    allow, exc = parse_docs(a.docs or os.path.join(root, 'docs/architecture.md'))
    files = sources(root)
    folder = lambda f: os.path.dirname(f)
    viol = {}   # key -> message

    for d in sorted(set(folder(f) for f in files)):
        if d not in allow:
            viol['folder ' + d] = 'folder %s is not in the layer table of docs/architecture.md' % d

    exc_used = set()

    def allowed(f, b):
        a_ = folder(f)
        if a_ == b or b in allow.get(a_, ()):
            return True
        if b in exc.get(f, ()):
            exc_used.add((f, b))
            return True
        return False

    # includes
    byname = collections.defaultdict(list)
    for f in files:
        if f.endswith('.h'):
            byname[os.path.basename(f)].append(f)
    for b, hs in byname.items():
        if len(hs) > 1:
            viol['header ' + b] = 'two headers named %s: %s (the -I order would decide)' % (b, ', '.join(hs))
    inc_edges = collections.Counter()
    for f in files:
        for l in open(os.path.join(root, f), errors='replace'):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', l)
            if not m:
                continue
            hs = byname.get(os.path.basename(m.group(1)))
            if not hs:
                continue
            h = hs[0]
            inc_edges[(folder(f), folder(h))] += 1
            if not allowed(f, folder(h)):
                viol['include %s %s' % (f, os.path.basename(h))] = \
                    'upward include: %s includes %s (%s may include: %s)' % (
                        f, h, folder(f), ', '.join(sorted(allow.get(folder(f), ()))) or 'nothing')

    # uses
    if a.objects:
        uses = nm_graph(root, a.objects)
        for f, tos in sorted(uses.items()):
            for t, syms in sorted(tos.items()):
                if not allowed(f, folder(t)):
                    viol['use %s %s' % (f, t)] = 'upward use: %s uses %s of %s (%s may use: %s)' % (
                        f, ', '.join(sorted(syms)[:4]) + (' ...' if len(syms) > 4 else ''), t,
                        folder(f), ', '.join(sorted(allow.get(folder(f), ()))) or 'nothing')
        edges = {f: set(t) for f, t in uses.items()}
        for c in scc(sorted(set(uses) | set(t for v in uses.values() for t in v)), edges):
            detail = '; '.join('%s -> %s (%s)' % (x, y, ', '.join(sorted(uses[x][y])[:3]))
                               for x in c for y in c if y in uses.get(x, {}))
            viol['cycle ' + ' '.join(c)] = 'cycle of files: %s: %s' % (' '.join(c), detail)
        if a.graph:
            fe = collections.Counter()
            for f, tos in uses.items():
                for t in tos:
                    if folder(f) != folder(t):
                        fe[(folder(f), folder(t))] += 1
            print('== folder uses (file pairs)')
            for (x, y), n in sorted(fe.items()):
                print('  %-16s -> %-16s %3d' % (x, y, n))
    if a.graph:
        print('== folder includes (#include lines)')
        for (x, y), n in sorted(inc_edges.items()):
            if x != y:
                print('  %-16s -> %-16s %3d' % (x, y, n))

    # sizes
    for f in files:
        if not f.endswith('.c'):
            continue
        text = open(os.path.join(root, f), errors='replace').read()
        n = text.count('\n')
        if n > MAX_FILE_LINES:
            viol['size ' + f] = 'size: %s has %d lines (at most %d)' % (f, n, MAX_FILE_LINES)
        for name, s, e in functions(text):
            if e - s + 1 > MAX_FUNC_LINES:
                viol['function %s:%s' % (f, name)] = 'size: %s:%d %s() has %d lines (at most %d)' % (
                    f, s, name, e - s + 1, MAX_FUNC_LINES)

    bad = 0
    for f, bs in sorted(exc.items()):
        for b in sorted(bs):
            if (f, b) not in exc_used:
                print('stale exception: %s no longer includes or uses %s: remove its row from '
                      'docs/architecture.md' % (f, b))
                bad = 1

    for key, msg in sorted(viol.items()):
        print(msg)
        bad = 1
    print('layers: %d files, %s' % (len(files), 'FAIL' if bad else 'ok'))
    return bad


if __name__ == '__main__':
    sys.exit(main())
