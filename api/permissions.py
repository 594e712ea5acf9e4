"""The API's permissions: the same named permissions as the admin (accounts/roles.py)."""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request


class Needs(BasePermission):
    """The view names, per action, the permission a user must hold (`needs = {"create": "app.perm"}`,
    `"*"` for every action); an action it does not name is refused."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if not (request.user and request.user.is_authenticated):
            return False
        needs: dict[str, str] = getattr(view, "needs", {})
        action = getattr(view, "action", None) or ""
        wanted = needs.get(action) or needs.get("*")
        if wanted is None:
            # An action nobody named a permission for is refused; OPTIONS only describes the endpoint.
            return action == "metadata"
        return bool(request.user.has_perm(wanted))
