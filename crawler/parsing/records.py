"""What a debate page yields once parsed: plain dataclasses, no framework.

The spiders wrap a `DebateRecord` in a Scrapy item and `manage.py parse_page` prints it; both get
it from the same parsing functions, so a page debugged on disk behaves the same in a crawl.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

SideName = Literal["pro", "con"]


class BadPageError(ValueError):
    """A fetched page holds no usable debate. `reason` is a short stable code counted in crawl stats."""

    def __init__(self, reason: str, detail: str = "", url: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail
        # The page's canonical URL when the parser got that far.
        self.url = url


@dataclass(frozen=True)
class ArchivePattern:
    """One CDX query covering one URL form of a site.

    `url` is in CDX syntax (`host/path*` is a prefix, `*.host` a whole domain); `original`, when set,
    is a regular expression the CDX server matches against each capture's whole original URL, so a
    domain query returns only that form (e.g. topic-site roots) instead of every page of the domain.
    """

    url: str
    original: str = ""


@dataclass
class PointRecord:
    side: SideName
    headline: str
    body: list[str]
    counterpoint: list[str] = field(default_factory=list)
    # The site's own id for the point (idebate's field-collection id, procon's answer id, ...).
    site_point_id: str = ""
    references: list[str] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        """The fields `parse_page` prints, in the documented order."""
        return {
            "side": self.side,
            "headline": self.headline,
            "body": self.body,
            "counterpoint": self.counterpoint,
        }


@dataclass
class DebateRecord:
    site: str
    url: str
    motion: str
    intro: list[str] = field(default_factory=list)
    points: list[PointRecord] = field(default_factory=list)
    theme: str = ""
    site_debate_id: str = ""
    published: str = ""
    modified: str = ""
    bibliography: list[str] = field(default_factory=list)
    layout: str = ""
    # Things the parser chose to leave out (e.g. a point with a title and no body), for the logs.
    warnings: list[str] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        """The one-line JSON shape of `manage.py parse_page`."""
        return {
            "url": self.url,
            "motion": self.motion,
            "intro": "\n\n".join(self.intro),
            "points": [point.public() for point in self.points],
        }

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> DebateRecord:
        points = [PointRecord(**point) for point in data.get("points", [])]
        return cls(**{**data, "points": points})
