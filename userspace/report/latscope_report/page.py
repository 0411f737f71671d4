# SPDX-License-Identifier: GPL-2.0
"""A page of the profile as blocks, written twice: as Markdown (beside its
plots) and as one self-contained HTML page (its plots embedded as data:
URIs, its style inline, no script, nothing fetched).

A block is a tuple: ("h", level, text, anchor), ("p", text), ("ul",
[text]), ("table", head, align, rows) with align "l" or "r" per column,
("img", file, alt) of a PNG beside the page, or ("pre", text). Text may
hold `code` and **bold**; everything else in it is text: the HTML page
escapes it all (a task's name such as "<idle>" or one a user chose is
never markup), the Markdown page escapes what would break a table."""

import base64
import errno
import html
import os
import re
import stat

INLINE = re.compile(r"`([^`]+)`|\*\*([^*]+)\*\*")

STYLE = """
body { font-family: sans-serif; max-width: 72em; margin: 1em auto; padding: 0 1em;
       color: #111; background: #fff; line-height: 1.4; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 90%; }
th, td { border: 1px solid #bbb; padding: 0.15em 0.4em; vertical-align: top; }
th { background: #eee; }
td.r { text-align: right; font-variant-numeric: tabular-nums; }
pre { background: #f4f4f4; padding: 0.5em; overflow-x: auto; }
img { max-width: 100%; height: auto; display: block; margin: 0.5em 0; }
code { background: #f4f4f4; }
"""


# What would end a line or a table row in a Markdown viewer.
BREAKS = re.compile("[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]")
# A "<" that could open an HTML tag or comment in a Markdown viewer.
TAG = re.compile(r"<(?=[A-Za-z/!?])")


def md_text(text):
    """Text as Markdown shows it, not as markup: a line break a space (no
    heading, list or row can start inside it), a "<" that could open a tag
    as "&lt;"."""
    return TAG.sub("&lt;", BREAKS.sub(" ", text))


def md_cell(text):
    """A table cell's text in Markdown: md_text(), a "|" escaped."""
    return md_text(text).replace("|", "\\|")


def fence(text):
    """A code fence longer than any run of backticks in @text."""
    runs = [len(m) for m in re.findall("`+", text)]
    return "`" * max(3, max(runs, default=0) + 1)


def to_markdown(blocks):
    """The blocks as a Markdown document."""
    out = []
    for b in blocks:
        kind = b[0]
        if kind == "h":
            out.append(f'{"#" * b[1]} {md_text(b[2])}\n')
        elif kind == "p":
            out.append(f"{md_text(b[1])}\n")
        elif kind == "ul":
            out.append("".join(f"- {md_text(t)}\n" for t in b[1]))
        elif kind == "table":
            _, head, align, rows = b
            lines = ["| " + " | ".join(md_cell(h) for h in head) + " |",
                     "|" + "|".join("---" if a == "l" else "---:" for a in align) + "|"]
            lines += ["| " + " | ".join(md_cell(c) for c in row) + " |" for row in rows]
            out.append("\n".join(lines) + "\n")
        elif kind == "img":
            out.append(f"![{md_text(b[2])}]({b[1]})\n")
        elif kind == "pre":
            f = fence(b[1])
            out.append(f"{f}\n" + b[1].rstrip("\n") + f"\n{f}\n")
    return "\n".join(out)


def inline_html(text):
    """@text escaped, its `code` and **bold** as HTML."""
    out, at = [], 0
    for m in INLINE.finditer(text):
        out.append(html.escape(text[at:m.start()]))
        if m.group(1) is not None:
            out.append(f"<code>{html.escape(m.group(1))}</code>")
        else:
            out.append(f"<strong>{html.escape(m.group(2))}</strong>")
        at = m.end()
    out.append(html.escape(text[at:]))
    # A link to a heading of this page: [text](#anchor), escaped above.
    return re.sub(r"\[([^\]]+)\]\(#([a-z0-9-]+)\)", r'<a href="#\2">\1</a>', "".join(out))


# The largest plot embedded, and how a PNG file begins.
PNG_LIMIT = 32 << 20
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def data_uri(path):
    """The PNG at @path as a data: URI: a regular file (no symlink followed,
    no FIFO waited on) of at most PNG_LIMIT bytes that begins as a PNG
    does; OSError otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > PNG_LIMIT:
            raise OSError(errno.EINVAL, "not a regular file of a plot's size")
        data = f.read(PNG_LIMIT + 1)
    if not data.startswith(PNG_SIGNATURE) or len(data) > PNG_LIMIT:
        raise OSError(errno.EINVAL, "not a PNG image")
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")


def to_html(blocks, title, top):
    """The blocks as one HTML page titled @title, the images read from @top
    and embedded; an image not there is said in its place."""
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>{html.escape(title)}</title>", f"<style>{STYLE}</style>", "</head>",
           "<body>"]
    for b in blocks:
        kind = b[0]
        if kind == "h":
            out.append(f'<h{b[1]} id="{html.escape(b[3])}">{inline_html(b[2])}</h{b[1]}>'
                       if b[3] else f"<h{b[1]}>{inline_html(b[2])}</h{b[1]}>")
        elif kind == "p":
            out.append(f"<p>{inline_html(b[1])}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{inline_html(t)}</li>" for t in b[1]) + "</ul>")
        elif kind == "table":
            _, head, align, rows = b
            out.append("<table><thead><tr>" +
                       "".join(f"<th>{inline_html(h)}</th>" for h in head) + "</tr></thead><tbody>")
            for row in rows:
                out.append("<tr>" + "".join(
                    f'<td class="{a}">{inline_html(c)}</td>' for c, a in zip(row, align)) +
                    "</tr>")
            out.append("</tbody></table>")
        elif kind == "img":
            path = os.path.join(top, b[1])
            try:
                src = data_uri(path)
            except OSError as e:
                out.append(f"<p>({html.escape(b[1])} cannot be read: "
                           f"{html.escape(e.strerror or str(e))})</p>")
                continue
            out.append(f'<img src="{src}" alt="{html.escape(b[2], quote=True)}">')
        elif kind == "pre":
            out.append(f"<pre>{html.escape(b[1])}</pre>")
    out += ["</body>", "</html>", ""]
    return "\n".join(out)


def anchor(text):
    """A heading's anchor as Markdown viewers make it: lower case, spaces
    as "-", other punctuation dropped."""
    return re.sub(r"[^a-z0-9 -]", "", text.lower()).replace(" ", "-")
