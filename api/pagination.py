"""JSON lists page by cursor and keep their total: a cursor stays right while rows are added (no row
skipped or shown twice between pages) and never makes the database count past an OFFSET."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Field, ForeignObject, Model, QuerySet
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.response import Response


class CountedCursorPagination(CursorPagination):
    """DRF's cursor pagination, ordered as the view's query set is, with `count` (all rows) added."""

    ordering = "-pk"  # for a query set that names no order

    def paginate_queryset(
        self, queryset: QuerySet[Any], request: Request, view: Any = None
    ) -> list[Any] | None:
        self.model: type[Model] = queryset.model
        self.count = queryset.count()
        return super().paginate_queryset(queryset, request, view)

    def get_ordering(self, request: Request, queryset: QuerySet[Any], view: Any) -> tuple[str, ...]:
        """The view's own order (its query set's `order_by`), so JSON pages and the CSV agree."""
        named = tuple(field for field in queryset.query.order_by if isinstance(field, str))
        return named or super().get_ordering(request, queryset, view)

    def decode_cursor(self, request: Request) -> Cursor | None:
        """A cursor comes from the URL: its position must be a value of the ordering field (404, not 500)."""
        cursor = super().decode_cursor(request)
        if cursor is not None and cursor.position is not None:
            name = self.ordering[0].lstrip("-")
            field = self.model._meta.pk if name == "pk" else self.model._meta.get_field(name)
            assert isinstance(field, Field), f"cursor ordering on {name}, which is not a column"
            try:
                value = field.to_python(cursor.position)
                if isinstance(field, ForeignObject):  # another row's key (an outcome's is its item's)
                    # Django's lookups through a relation do not take a value past the integer range
                    # as its integer fields' own do (SQLite cannot even bind it): refused here.
                    field.target_field.run_validators(value)
            except (DjangoValidationError, ValueError):
                raise NotFound(self.invalid_cursor_message) from None
        return cursor

    def get_paginated_response(self, data: Sequence[Any]) -> Response:
        return Response(
            {
                "count": self.count,
                "next": self.get_next_link(),
                "previous": self.get_previous_link(),
                "results": data,
            }
        )

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        paged = super().get_paginated_response_schema(schema)
        count = {"type": "integer", "example": 123, "description": "How many rows there are in all."}
        return {
            **paged,
            "required": ["count", "results"],
            "properties": {"count": count, **paged["properties"]},
        }
