"""The layouts procon pages took, one function each: points from a parsed page. Pure (lxml only).

- `quotes_table`: the 2008–2015 "Pro & Con Quotes" page, PRO/CON table cells of `blockquote`s.
- `quote_boxes`: 2016–19 topic pages, `.newblue-pro-quote-box` / `.newblue-con-quote-box`. The
  topic pages open each box with a bolded intro (the headline); the 2018 quote pages hold a quote in
  `.newblue-quote-indent > .newblue-editortext` with no bold headline.
- `top10_columns`: the 2019–20 "Top 10 Pro & Con Arguments" pages, rows pairing
  `td#newblue-pro-column-2` with `td#newblue-con-column-2`.
- `argument_containers`: the 2020 pages, `div.argument-container > blockquote` with an `h3` naming
  the side ("Pro 1") and an `h4` summing the argument up.

Where a point has no headline of its own, its first real sentence stands in (abbreviations such as
"Prop." or "U.S." do not end it).
"""

from __future__ import annotations

import re

from lxml.etree import _Element

from crawler.parsing.html import first, paragraphs, select, squash, text_of
from crawler.parsing.records import PointRecord, SideName
from crawler.parsing.sentences import first_sentence

QUOTE_MARKS = "\"“”'‘’ "
SIDES: tuple[SideName, SideName] = ("pro", "con")
# "PRO:" / "CON 3:" labels that open a top-10 cell's text.
SIDE_LABEL = re.compile(r"^(?:pro|con)\s*\d*\s*[:.–-]\s*", re.I)


def sentence_headline(text: str) -> str:
    """A headline for a point that has none: the first real sentence, without quote marks or ellipses."""
    return first_sentence(text.lstrip(".… ")).strip(QUOTE_MARKS)


def _point(side: SideName, headline: str, body: list[str], point_id: str, refs: list[str]) -> PointRecord:
    return PointRecord(
        side=side, headline=headline, body=body, site_point_id=point_id, references=[r for r in refs if r]
    )


# --- 2008–2015: "Pro & Con Quotes" table ----------------------------------------------------------


def quotes_table(root: _Element) -> list[PointRecord] | None:
    """Points of a quotes page, or None when the page has no PRO (YES) column."""
    header = next(
        (cell for cell in select(root, "td") if squash(cell.text_content()).upper().startswith("PRO (YES)")),
        None,
    )
    if header is None:
        return None
    row = header.getparent()
    points: list[PointRecord] = []
    for columns in row.itersiblings("tr"):
        for side, cell in zip(SIDES, columns.findall("td"), strict=False):
            points.extend(_table_quotes(cell, side))
    return points


def _table_quotes(cell: _Element, side: SideName) -> list[PointRecord]:
    points: list[PointRecord] = []
    answer_id, attribution = "", ""
    for child in cell:
        name = child.get("name") or ""
        if child.tag == "a" and name.startswith("answer-id-"):
            answer_id, attribution = name.removeprefix("answer-id-"), ""
        elif child.tag == "div" and "editortext" in (child.get("class") or ""):
            attribution = text_of(child)
        elif child.tag == "blockquote":
            quote = paragraphs(first(child, "div.editortext"))
            if quote:
                headline = sentence_headline(quote[0])
                points.append(_point(side, headline, quote, answer_id, [attribution, _source_line(child)]))
    return points


def _source_line(blockquote: _Element) -> str:
    """The date and source under a quote: the blockquote's last span (earlier ones are editor's notes)."""
    spans = select(blockquote, "span")
    return text_of(spans[-1]) if spans else ""


# --- 2016–19: newblue quote boxes -----------------------------------------------------------------


def quote_boxes(root: _Element) -> list[PointRecord] | None:
    """Points of a newblue page (bolded intros or indented quotes), or None when it has no box."""
    if not select(root, ".newblue-pro-quote-box, .newblue-con-quote-box"):
        return None
    points = []
    for side in SIDES:
        for position, box in enumerate(select(root, f".newblue-{side}-quote-box"), start=1):
            points.append(_box_point(box, side, box.get("id") or f"{side}-{position}"))
    return points


def _box_point(box: _Element, side: SideName, point_id: str) -> PointRecord:
    quote = first(box, ".newblue-quote-indent .newblue-editortext")
    if quote is not None:
        # A quote: who said it is the rest of the indent (name, title, source), never the headline.
        body = paragraphs(quote)
        indent = quote.getparent()
        said = [p for p in paragraphs(indent) if p not in body] if indent is not None else []
        bold = text_of(first(box, ".newblue-arguments-bolded-intro"))
        headline = bold or sentence_headline(body[0] if body else "")
        return _point(side, headline.rstrip(":").strip(), body, point_id, said)
    head_text = text_of(first(box, ".newblue-arguments-bolded-intro"))
    body = paragraphs(box)
    if body and head_text and body[0].startswith(head_text):
        # The bolded intro opens the first paragraph: the rest of it is body text.
        body[0] = body[0][len(head_text) :].strip()
    body = [p for p in body if p]
    headline = head_text.rstrip(":").strip() or sentence_headline(body[0] if body else "")
    return _point(side, headline, body, point_id, [])


# --- 2019–20: "Top 10 Pro & Con Arguments" columns -------------------------------------------------


def top10_columns(root: _Element) -> list[PointRecord] | None:
    """Points of a Top 10 page, or None when it has no paired columns."""
    cells = {side: select(root, f"td#newblue-{side}-column-2") for side in SIDES}
    if not cells["pro"] and not cells["con"]:
        return None
    points = []
    for side in SIDES:
        for position, cell in enumerate(cells[side], start=1):
            points.append(_labelled_point(cell, side, f"{side}-{position}"))
    return points


def _labelled_point(cell: _Element, side: SideName, point_id: str) -> PointRecord:
    bold = first(cell, ".newblue-arguments-bolded-intro, b, strong")
    body = paragraphs(cell)
    if body:
        body[0] = SIDE_LABEL.sub("", body[0])
    head_text = SIDE_LABEL.sub("", text_of(bold)) if bold is not None else ""
    if body and head_text and body[0].startswith(head_text):
        body[0] = body[0][len(head_text) :].strip()
    body = [p for p in body if p]
    headline = head_text.rstrip(":").strip() or sentence_headline(body[0] if body else "")
    return _point(side, headline, body, point_id, [])


# --- 2020: argument containers ---------------------------------------------------------------------


def argument_containers(root: _Element) -> list[PointRecord] | None:
    """Points of a 2020 page, or None when it has no argument container."""
    quotes = select(root, "div.argument-container > blockquote")
    if not quotes:
        return None
    points = []
    counts = {"pro": 0, "con": 0}
    for blockquote in quotes:
        label = text_of(first(blockquote, "h3"))
        if not label.lower().startswith(SIDES):
            continue  # a quote box that is not an argument (a reader's note, a did-you-know)
        side: SideName = "con" if label.lower().startswith("con") else "pro"
        counts[side] += 1
        summary = text_of(first(blockquote, "h4"))
        body = [p for p in paragraphs(blockquote) if p not in (label, summary)]
        headline = summary or sentence_headline(body[0] if body else "")
        points.append(_point(side, headline, body, label or f"{side}-{counts[side]}", []))
    return points
