"""`{% shared_fragment key %}…{% endshared_fragment %}`: a part of a page rendered once and shared.

A task page's items (fifty radio groups for a stance HIT) are the same for every worker of the HIT
until someone submits: rendering them was most of the page's CPU (bench/load.py's page figures). The
view names such a part with a key (`annotation.web.views.items_fragment_key`) only when it is the same
for everybody; with no key, the part is rendered as usual. Parts live in Django's cache (Redis when
REDIS_URL is set, shared by the web processes, as JSON) for FRAGMENT_SECONDS; a cache that cannot be
reached costs the page its rendering, never the page.
"""

from __future__ import annotations

import contextlib

from django import template
from django.core.cache import cache
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.utils.safestring import SafeString, mark_safe
from redis import RedisError

register = template.Library()

FRAGMENT_SECONDS = 10 * 60  # a HIT's workers start within minutes of each other


class SharedFragmentNode(template.Node):
    def __init__(self, nodelist: NodeList, key: FilterExpression) -> None:
        self.nodelist = nodelist
        self.key = key

    def render(self, context: template.Context) -> SafeString:
        key = self.key.resolve(context)
        if not key:
            return self.nodelist.render(context)
        try:
            cached = cache.get(key)
        except (RedisError, ValueError):  # out of reach, or not a value we wrote (config.json_cache)
            return self.nodelist.render(context)
        if cached is not None:
            return mark_safe(cached)  # what the nodelist rendered, escaped as it was then
        rendered = self.nodelist.render(context)
        with contextlib.suppress(RedisError):  # served rendered; the next worker's page renders it again
            cache.set(key, str(rendered), FRAGMENT_SECONDS)
        return rendered


@register.tag
def shared_fragment(parser: Parser, token: Token) -> SharedFragmentNode:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("{% shared_fragment key %} takes one key")
    nodelist = parser.parse(("endshared_fragment",))
    parser.delete_first_token()
    return SharedFragmentNode(nodelist, parser.compile_filter(bits[1]))
