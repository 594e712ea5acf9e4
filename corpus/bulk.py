"""Rows by the hundred thousand, written as `bulk_create` and `bulk_update` would write them, without
a model instance per row.

The import of a 100k-claim release writes 1.3M perspectives and as many cluster members. Through
`bulk_create`, building and flattening an instance per row cost more than the database's own work
(profiled at 10k claims: most of the import's time went to the members' and links' writes), and
`bulk_update`'s CASE expression over 10k claims took seconds to build (bench corpus times the
import). Here a row is a tuple. New rows go to PostgreSQL by `COPY … FROM STDIN`, which psycopg
streams, and to other databases by one prepared INSERT run for every row; changed rows by one
prepared UPDATE run for every row. Written by hand because Django has no COPY, and the packages that
add one work from CSV files rather than from rows in memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from django.db import connection, models

# Values of these fields reach the driver as the caller gives them (str, int, bool, float, None);
# any other field's values (JSON, dates) go through the field's own preparation, as in bulk_create.
AS_GIVEN = frozenset(
    {
        "CharField",
        "TextField",
        "SlugField",
        "URLField",
        "BooleanField",
        "FloatField",
        "ForeignKey",
        "IntegerField",
        "SmallIntegerField",
        "BigIntegerField",
        "PositiveIntegerField",
        "PositiveSmallIntegerField",
        "PositiveBigIntegerField",
    }
)


def insert(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence[Any]], **same: Any
) -> int:
    """Insert `rows` (values in the order of `fields`); the database numbers them, and every other
    column holds the same value on every row: `same`'s, or else the field's default (`auto_now`: now).
    Returns how many rows were inserted."""
    given = _fields(model, fields)
    rest = [field for field in model._meta.concrete_fields if field not in given and not field.primary_key]
    prepared = _prepared(given, rows, _constant(model, rest, same, add=True))
    columns = ", ".join(_quoted(field) for field in [*given, *rest])
    table = connection.ops.quote_name(model._meta.db_table)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in prepared:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * (len(given) + len(rest)))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({marks})", list(prepared))
        return cursor.rowcount  # psycopg sets it after a COPY as after an INSERT


def update(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[Sequence[Any]], **same: Any
) -> None:
    """Set `fields` on the rows whose primary key each row starts with (their values follow it, in
    the order of `fields`), and `same`'s fields to the same value on all of them. Like `bulk_update`,
    it leaves `auto_now` fields alone."""
    given, rest = _fields(model, fields), _fields(model, same)
    assignments = ", ".join(f"{_quoted(field)} = %s" for field in [*given, *rest])
    table, pk = connection.ops.quote_name(model._meta.db_table), _quoted(model._meta.pk)
    rows = list(rows)
    values = _prepared(given, (row[1:] for row in rows), _constant(model, rest, same, add=False))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"UPDATE {table} SET {assignments} WHERE {pk} = %s",
            [(*prepared, row[0]) for prepared, row in zip(values, rows, strict=True)],
        )


def _fields(model: type[models.Model], names: Iterable[str]) -> list[models.Field[Any, Any]]:
    """The model's concrete fields of these names (`claim` or `claim_id`), in this order."""
    by_name = {name: field for field in model._meta.concrete_fields for name in (field.name, field.attname)}
    return [by_name[name] for name in names]


def _constant(
    model: type[models.Model], fields: list[models.Field[Any, Any]], same: dict[str, Any], add: bool
) -> tuple[Any, ...]:
    """The value every row gets for each of `fields`: `same`'s, else its default or now, as save()
    would give it (computed once, on one instance)."""
    template = model(**same)
    return tuple(field.get_db_prep_save(field.pre_save(template, add), connection) for field in fields)


def _quoted(field: models.Field[Any, Any]) -> str:
    return connection.ops.quote_name(field.column)


def _prepared(
    given: list[models.Field[Any, Any]], rows: Iterable[Sequence[Any]], constant: tuple[Any, ...]
) -> Iterator[tuple[Any, ...]]:
    """Each row's values (those of fields not `AS_GIVEN` prepared by the field), then the constants."""
    preparing = [
        (index, field) for index, field in enumerate(given) if field.get_internal_type() not in AS_GIVEN
    ]
    for row in rows:
        if len(row) != len(given):
            raise ValueError(f"a row of {len(row)} values for {len(given)} fields")
        if preparing:
            values = list(row)
            for index, field in preparing:
                values[index] = field.get_db_prep_save(values[index], connection)
            row = values
        yield (*row, *constant)
