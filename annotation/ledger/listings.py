"""Offering work at a market: each listing a market describes becomes one ledger row, sent once.

`Market.publish` describes the listings; here each becomes its CREATE_HIT row (EXTEND when more
assignments are bought on published work), committed before the market's `send` makes the call,
so a retry finds the same row and no HIT is created twice. A market that pays nobody names its
listings itself: no row, no call. Call these with no transaction open.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from annotation.ledger import engine, intents
from annotation.market_interface.registry import get_market
from annotation.models import Hit, Job


@dataclass(frozen=True)
class PublishedHit:
    """A HIT as published: its market id and the URL workers reach it at."""

    hit_pk: int
    external_id: str
    url: str = ""


def publish_hits(job: Job, hits: Sequence[Hit]) -> list[PublishedHit]:
    """Offer new HITs at the job's market; publishing them again finds the same rows and adds nothing."""
    if not hits:
        return []
    published: list[PublishedHit] = []
    for listing in get_market(job.market).publish(job, hits):
        external_id = (
            listing.external_id
            or engine.confirmed(intents.listing_intent(job, listing), publishing=True).result_ref
        )
        published += [PublishedHit(pk, external_id, listing.url) for pk in listing.hit_pks]
    return published


def extend_hits(job: Job, hits: Sequence[Hit], count: int) -> None:
    """Buy `count` more assignments on each published HIT, where the market sells more: one confirmed
    EXTEND row per listing, naming the total it reaches (so a concurrent extension adds nothing)."""
    market = get_market(job.market)
    if not market.capabilities.extend:
        return
    for listing in market.publish(job, hits, more=count):
        engine.confirmed(intents.listing_intent(job, listing, more=True))
