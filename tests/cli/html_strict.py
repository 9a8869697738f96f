#!/usr/bin/env python3
"""Parse an HTML file strictly, for the report tests (test_report_html.sh).

usage: html_strict.py FILE [--text STRING]...

Fails (exit 1, one line per problem on stderr) on: an element closed that is
not the innermost open one, an element left open at the end, a '<' or '&'
in text that is not escaped (outside <style> and <script>), an unknown named
entity, an attribute name that is not a name. Python's html.parser alone
accepts all of these; this checker refuses them.

Prints each table header cell as written in the file (entities kept, e.g.
'&lt; 10 ms %'), one per line, prefixed 'th: '. Each --text STRING must be
found in the document's text once entities are decoded: a string with '<'
or '&' that shows as text was escaped (unescaped, it would have become
markup or failed above).
"""
import html.entities
import re
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}
RAW = {"style", "script"}
NAME = re.compile(r"^[A-Za-z_:][-A-Za-z0-9_:.]*$")


class Strict(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.stack = []
        self.problems = []
        self.th = []          # header cells as written
        self.text = []        # the document's text, entities decoded

    def where(self):
        line, col = self.getpos()
        return f"line {line}, column {col + 1}"

    def problem(self, what):
        self.problems.append(f"{self.where()}: {what}")

    def start(self, tag, attrs):
        for name, _ in attrs:
            if not NAME.match(name):
                self.problem(f"<{tag}>: attribute name {name!r} is not a name (a stray quote?)")
        if self.stack and self.stack[-1][0] == "th":
            self.stack[-1][1].append(self.get_starttag_text())

    def handle_starttag(self, tag, attrs):
        self.start(tag, attrs)
        if tag not in VOID:
            self.stack.append((tag, []))

    def handle_startendtag(self, tag, attrs):
        self.start(tag, attrs)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1][0] != tag:
            self.problem(f"</{tag}> closes {'<' + self.stack[-1][0] + '>' if self.stack else 'nothing'}")
            return
        name, raw = self.stack.pop()
        if name == "th":
            self.th.append("".join(raw))
        elif self.stack and self.stack[-1][0] == "th":
            self.stack[-1][1].append(f"</{tag}>")

    def raw(self, s):
        if self.stack and self.stack[-1][0] == "th":
            self.stack[-1][1].append(s)

    def handle_data(self, data):
        if not (self.stack and self.stack[-1][0] in RAW):
            for c in "<&":
                if c in data:
                    self.problem(f"unescaped {c!r} in text: {data.strip()[:60]!r}")
        self.raw(data)
        self.text.append(data)

    def handle_entityref(self, name):
        if name not in html.entities.name2codepoint:
            self.problem(f"unknown entity &{name};")
        self.raw(f"&{name};")
        self.text.append(chr(html.entities.name2codepoint.get(name, 0xFFFD)))

    def handle_charref(self, name):
        self.raw(f"&#{name};")
        self.text.append(chr(int(name[1:], 16) if name[:1] in "xX" else int(name)))

    def unknown_decl(self, data):
        self.problem(f"unknown declaration {data[:40]!r}")


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    path, want = args[0], []
    i = 1
    while i < len(args):
        if args[i] == "--text" and i + 1 < len(args):
            want.append(args[i + 1])
            i += 2
        else:
            sys.exit(f"html_strict.py: unknown argument {args[i]!r}")
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    p = Strict()
    p.feed(doc)
    p.close()
    for tag, _ in p.stack:
        p.problems.append(f"end of file: <{tag}> is never closed")
    text = "".join(p.text)
    for s in want:
        if s not in text:
            p.problems.append(f"the text {s!r} is not in the document's text")
    for th in p.th:
        print(f"th: {th}")
    for x in p.problems[:20]:
        print(f"{path}: {x}", file=sys.stderr)
    sys.exit(1 if p.problems else 0)


if __name__ == "__main__":
    main()
