"""`{% shared_fragment part %}…{% endshared_fragment %}`: a part of a page rendered once and shared.

A task page's items (fifty radio groups for a stance HIT) are the same for every worker of the HIT
until someone submits: rendering them was most of the page's CPU (bench/load.py's page figures). The
view reads such a part from the cache (`annotation.web.fragments.read`, one call) only when it is
the same for everybody, and hands it to the page; what it read is shown, or the part is rendered
and stored for the next worker. Anything else (no part, a part not shared) is rendered as usual.
"""

from __future__ import annotations

from django import template
from django.template.base import FilterExpression, NodeList, Parser, Token
from django.utils.safestring import SafeString, mark_safe

from annotation.web import fragments

register = template.Library()


class SharedFragmentNode(template.Node):
    def __init__(self, nodelist: NodeList, part: FilterExpression) -> None:
        self.nodelist = nodelist
        self.part = part

    def render(self, context: template.Context) -> SafeString:
        part = self.part.resolve(context)
        if not isinstance(part, fragments.Shared) or not part.key:
            return self.nodelist.render(context)
        if part.markup is not None:
            return mark_safe(part.markup)  # what the nodelist rendered, escaped as it was then
        rendered = self.nodelist.render(context)
        fragments.store(part, str(rendered))
        return rendered


@register.tag
def shared_fragment(parser: Parser, token: Token) -> SharedFragmentNode:
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("{% shared_fragment part %} takes one part")
    nodelist = parser.parse(("endshared_fragment",))
    parser.delete_first_token()
    return SharedFragmentNode(nodelist, parser.compile_filter(bits[1]))
