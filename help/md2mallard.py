#!/usr/bin/env python3
"""Mallard help pages from the tutorial (docs/tutorial.md).

    md2mallard.py TUTORIAL.md OUTDIR
    md2mallard.py --check TUTORIAL.md PAGEDIR

The pages in help/C are made by it (python3 help/md2mallard.py
docs/tutorial.md help/C); the test help-pages checks they are up to date.

The title (# ...) and the text before the first section make index.page;
each section (## ...) becomes a page of its own, linked from the index;
subsections (### ...) are sections of their page.  Paragraphs, numbered
and bulleted lists, tables, pictures and inline code, bold, italics and
links are carried over; pictures point into figures/ (installed beside
the pages).  Links to other Markdown files become plain text."""
import html
import os
import re
import sys

NS = 'xmlns="http://projectmallard.org/1.0/"'


def inline(text):
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    out = re.sub(r"\*\*([^*]+)\*\*", r'<em style="strong">\1</em>', out)
    out = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"<em>\1</em>", out)

    def link(m):
        label, target = m.group(1), m.group(2)
        if target.startswith("http"):
            return '<link href="%s">%s</link>' % (target, label)
        return label

    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)", link, out)


def page_id(n, title):
    words = re.sub(r"[^a-z0-9]+", "-", re.sub(r"^\d+\.\s*", "", title).lower()).strip("-")
    return "%02d-%s" % (n, words[:40].strip("-"))


def blocks(lines):
    """(kind, payload) blocks: para, list (ordered?, items), table, image, sub."""
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("### "):
            yield "sub", line[4:].strip()
            i += 1
            continue
        m = re.match(r"!\[([^\]]*)\]\(([^)]+)\)\s*$", line)
        if m:
            yield "image", (m.group(1), os.path.basename(m.group(2)))
            i += 1
            continue
        if line.startswith("|"):
            rows = []
            while i < n and lines[i].startswith("|"):
                cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
                if not all(re.match(r"^:?-+:?$", c) for c in cells):
                    rows.append(cells)
                i += 1
            yield "table", rows
            continue
        m = re.match(r"(\s*)([-*]|\d+\.)\s+(.*)", line)
        if m:
            ordered = m.group(2)[0].isdigit()
            items = []
            while i < n and lines[i].strip():
                m = re.match(r"\s*([-*]|\d+\.)\s+(.*)", lines[i])
                if m:
                    items.append(m.group(2))
                else:
                    items[-1] += " " + lines[i].strip()
                i += 1
            yield "list", (ordered, items)
            continue
        para = []
        while i < n and lines[i].strip() and not lines[i].startswith(("|", "### ", "![")) \
                and not re.match(r"\s*([-*]|\d+\.)\s+", lines[i]):
            para.append(lines[i].strip())
            i += 1
        yield "para", " ".join(para)


def body(lines):
    out, open_section = [], False
    for kind, p in blocks(lines):
        if kind == "sub":
            if open_section:
                out.append("</section>")
            out.append("<section><title>%s</title>" % inline(p))
            open_section = True
        elif kind == "para":
            out.append("<p>%s</p>" % inline(p))
        elif kind == "image":
            out.append('<figure><desc>%s</desc><media type="image" mime="image/png" src="figures/%s"/></figure>'
                       % (inline(p[0]), html.escape(p[1])))
        elif kind == "list":
            ordered, items = p
            out.append('<list%s>' % (' type="numbered"' if ordered else ""))
            out.extend("<item><p>%s</p></item>" % inline(t) for t in items)
            out.append("</list>")
        elif kind == "table":
            out.append('<table frame="all" rules="rows">')
            for k, row in enumerate(p):
                cells = "".join("<td><p>%s</p></td>" % inline(c) for c in row)
                out.append("<tr>%s</tr>" % (cells if k else cells.replace("<p>", '<p><em style="strong">')
                                            .replace("</p>", "</em></p>")))
            out.append("</table>")
    if open_section:
        out.append("</section>")
    return "\n".join(out)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def check(src, pages):
    """--check: the pages in `pages` are those the tutorial gives (exit 1 if not)."""
    import filecmp
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        generate(src, tmp)
        made = sorted(f for f in os.listdir(tmp))
        have = sorted(f for f in os.listdir(pages) if f.endswith(".page"))
        stale = [f for f in made if f not in have or not filecmp.cmp(os.path.join(tmp, f), os.path.join(pages, f),
                                                                  shallow=False)]
        extra = [f for f in have if f not in made]
        for f in stale + extra:
            print("out of date: %s (run python3 help/md2mallard.py docs/tutorial.md help/C)" % f)
        return 1 if stale or extra else 0


def main():
    if sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    generate(sys.argv[1], sys.argv[2])


def generate(src, outdir):
    lines = open(src, encoding="utf-8").read().splitlines()
    title, intro, sections, cur = "Linkwright", [], [], None
    for line in lines:
        if line.startswith("# ") and not sections and cur is None:
            title = line[2:].strip()
        elif line.startswith("## "):
            cur = [line[3:].strip(), []]
            sections.append(cur)
        elif cur is None:
            intro.append(line)
        else:
            cur[1].append(line)
    os.makedirs(outdir, exist_ok=True)
    ids = []
    for n, (heading, text) in enumerate(sections, 1):
        pid = page_id(n, heading)
        ids.append(pid)
        write(os.path.join(outdir, pid + ".page"),
              '<?xml version="1.0" encoding="utf-8"?>\n<page %s type="topic" id="%s">\n'
              '<info><link type="guide" xref="index#tutorial" group="s%02d"/></info>\n<title>%s</title>\n%s\n</page>\n'
              % (NS, pid, n, inline(heading), body(text)))
    write(os.path.join(outdir, "index.page"),
          '<?xml version="1.0" encoding="utf-8"?>\n<page %s type="guide" id="index">\n'
          '<info><title type="text">Linkwright</title></info>\n<title>Linkwright Help</title>\n'
          '<p>%s</p>\n%s\n<links type="topic" groups="%s" id="tutorial"><title>The tutorial</title></links>\n</page>\n'
          % (NS, inline(title), body(intro), " ".join("s%02d" % k for k in range(1, len(sections) + 1))))


if __name__ == "__main__":
    main()
