"""Named permissions in the admin: `@admin.action(permissions=["spend_money"])` asks the model admin's
`has_spend_money_permission`, which this mixin answers from the user's permissions (accounts/roles.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, cast

from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from django.http.response import HttpResponseBase

from accounts.roles import RUN_PIPELINE, SPEND_MONEY, START_CRAWL, TRUST_TEMPLATE

View = Callable[..., HttpResponseBase]


class NamedPermissions:
    def has_spend_money_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(SPEND_MONEY)

    def has_start_crawl_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(START_CRAWL)

    def has_run_pipeline_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(RUN_PIPELINE)

    def has_trust_template_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm(TRUST_TEMPLATE)


def staff_permission(read: str, write: str | None = None) -> Callable[[View], View]:
    """A staff page (others go to the admin login) that needs ``read`` to be seen and ``write`` (when
    given) to be posted to; without it, 403 and nothing done."""

    def decorate(view: View) -> View:
        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            needed = write if write is not None and request.method == "POST" else read
            if not request.user.has_perm(needed):
                raise PermissionDenied(f"needs the permission {needed}")
            return view(request, *args, **kwargs)

        return cast(View, staff_member_required(checked))

    return decorate
