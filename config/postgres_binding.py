"""The cursor of PostgreSQL connections: values bound by the server, so that psycopg can prepare a
statement run again on the connection, except in a statement with more values than the protocol can
number (a bulk insert of thousands of rows), whose values are quoted into its SQL as Django's default
cursor does."""

from __future__ import annotations

from typing import Any

from django.db.backends.postgresql import base as postgresql
from psycopg import ClientCursor

MAX_PARAMETERS = 65535  # the protocol numbers a statement's parameters in 16 bits


class BindingCursor(postgresql.ServerBindingCursor):  # type: ignore[misc,name-defined]  # psycopg 3 only
    def execute(self, query: Any, params: Any = None, **options: Any) -> Any:
        if params is not None and len(params) > MAX_PARAMETERS:
            # A statement this long is not worth preparing; without parameters psycopg sends it as is.
            query, params = ClientCursor(self.connection).mogrify(query, params), None
        return super().execute(query, params, **options)
