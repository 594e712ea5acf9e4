"""The worker pages' hot reads, written out: a model's columns are listed once per process, and each
read is one plain SELECT whose rows become model objects as the ORM's would (the same columns, the
same database converters, `Model.from_db`).

Every worker page read the job, the worker and the worker's qualification through the ORM, and the
task page and its answers the assignment with its job, HIT and worker, spending several times more
CPU building and compiling each query than the database spends running it. Nothing here is cached
between requests: each read asks the database, so a paused job, a blocked worker or a failed quiz is
seen on the next page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal, TypeVar

from django.db import connection
from django.db.models import Model

from annotation.models import Assignment, Hit, HitItem, Item, Job, Qualification, Worker

M = TypeVar("M", bound=Model)
# A qualification not read with its worker's row (None: read, and there is none).
Unread = Literal["unread"]
Converter = Callable[[Any, Any, Any], Any]


@dataclass(frozen=True)
class Columns:
    """A model's concrete columns as `alias.column, …`, and how to make an object of them."""

    model: type[Model]
    sql: str
    names: list[str]
    converters: list[tuple[int, Any, list[Converter]]]

    @property
    def width(self) -> int:
        return len(self.names)

    def build(self, values: Sequence[Any]) -> Any:
        """The model object of `values` (this model's columns, in order), as the ORM would build it."""
        row = list(values)
        for index, expression, converters in self.converters:
            for converter in converters:
                row[index] = converter(row[index], expression, connection)
        return self.model.from_db(connection.alias, self.names, row)


@cache
def columns(model: type[Model], alias: str, vendor: str) -> Columns:
    """`model`'s columns under `alias` (`vendor`: the converters are the database's)."""
    quote = connection.ops.quote_name
    fields = model._meta.concrete_fields
    converters = []
    for index, field in enumerate(fields):
        expression = field.get_col(alias)
        found = connection.ops.get_db_converters(expression) + expression.get_db_converters(connection)
        if found:
            converters.append((index, expression, found))
    sql = ", ".join(f"{alias}.{quote(field.column)}" for field in fields)
    return Columns(model, sql, [field.attname for field in fields], converters)


def _columns(model: type[Model], alias: str) -> Columns:
    return columns(model, alias, connection.vendor)


def _fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def job(pk: int) -> Job | None:
    """The job's row, or None."""
    cols = _columns(Job, "j")
    rows = _fetch(f"SELECT {cols.sql} FROM {Job._meta.db_table} j WHERE j.id = %s", [pk])
    return cols.build(rows[0]) if rows else None


def worker_and_qualification(
    market: str, external_id: str, task_type: str
) -> tuple[Worker, Qualification | None] | None:
    """The worker's row and their qualification for `task_type` (None when they have none), in one
    read; None when there is no such worker."""
    workers, found = _columns(Worker, "w"), _columns(Qualification, "q")
    rows = _fetch(
        f"SELECT {workers.sql}, {found.sql} FROM {Worker._meta.db_table} w"
        f" LEFT JOIN {Qualification._meta.db_table} q ON q.worker_id = w.id AND q.task_type = %s"
        " WHERE w.market = %s AND w.external_id = %s",
        [task_type, market, external_id],
    )
    if not rows:
        return None
    worker = workers.build(rows[0][: workers.width])
    rest = rows[0][workers.width :]
    if rest[0] is None:  # the qualification's id: no row joined
        return worker, None
    qualification = found.build(rest)
    qualification.worker = worker
    return worker, qualification


def assignment(pk: int) -> Assignment | None:
    """The assignment with its job, HIT and worker, in one read; None when there is none."""
    parts = [_columns(Assignment, "a"), _columns(Job, "j"), _columns(Hit, "h"), _columns(Worker, "w")]
    rows = _fetch(
        f"SELECT {', '.join(part.sql for part in parts)} FROM {Assignment._meta.db_table} a"
        f" JOIN {Job._meta.db_table} j ON j.id = a.job_id JOIN {Hit._meta.db_table} h ON h.id = a.hit_id"
        f" JOIN {Worker._meta.db_table} w ON w.id = a.worker_id WHERE a.id = %s",
        [pk],
    )
    if not rows:
        return None
    objects, start = [], 0
    for part in parts:
        objects.append(part.build(rows[0][start : start + part.width]))
        start += part.width
    found, found.job, found.hit, found.worker = objects[0], objects[1], objects[2], objects[3]
    found.hit.job = found.job
    return found  # type: ignore[no-any-return]


def hit_items(hit_id: int, job: Job) -> list[Item]:
    """The HIT's items in their places, each with `job` as its job."""
    cols = _columns(Item, "i")
    rows = _fetch(
        f"SELECT {cols.sql} FROM {Item._meta.db_table} i JOIN {HitItem._meta.db_table} hi"
        " ON hi.item_id = i.id WHERE hi.hit_id = %s ORDER BY hi.position",
        [hit_id],
    )
    items = [cols.build(row) for row in rows]
    for item in items:
        item.job = job
    return items


def hit_item_ids(hit_id: int) -> list[int]:
    """The ids of the HIT's items in their places."""
    rows = _fetch(
        f"SELECT item_id FROM {HitItem._meta.db_table} WHERE hit_id = %s ORDER BY position", [hit_id]
    )
    return [pk for (pk,) in rows]


def select(
    model: type[M], *matches: Mapping[str, Any], lock: bool = False, limit: int | None = None
) -> list[M]:
    """The rows of `model` that hold every value of one of `matches` (field name → value), as
    objects, at most `limit` of them; `lock`: locked for this transaction where the database locks
    rows (PostgreSQL; SQLite locks the whole database). Names are the model's fields and values go
    as parameters: no caller writes SQL."""
    cols = _columns(model, "t")
    where, params = _matching(model, matches)
    limited = f" LIMIT {int(limit)}" if limit is not None else ""
    locked = " FOR UPDATE" if lock and connection.features.has_select_for_update else ""
    found = _fetch(f"SELECT {cols.sql} FROM {model._meta.db_table} t WHERE {where}{limited}{locked}", params)
    return [cols.build(row) for row in found]


def _matching(model: type[Model], matches: Sequence[Mapping[str, Any]]) -> tuple[str, list[Any]]:
    """`matches` as a WHERE clause on `t` (any match, all of its values) and its parameters."""
    if not matches or not all(matches):
        raise ValueError("select needs at least one match, each naming at least one field")
    by_name = {name: field for field in model._meta.concrete_fields for name in (field.name, field.attname)}
    quote = connection.ops.quote_name
    alternatives, params = [], []
    for match in matches:
        unknown = sorted(set(match) - set(by_name))
        if unknown:
            raise ValueError(f"{model.__name__} has no column {', '.join(unknown)}")
        fields = [(by_name[name], value) for name, value in match.items()]
        alternatives.append(" AND ".join(f"t.{quote(field.column)} = %s" for field, _ in fields))
        params += [field.get_db_prep_value(value, connection) for field, value in fields]
    return " OR ".join(f"({alternative})" for alternative in alternatives), params


def lock(model: type[Model], pk: int) -> bool:
    """Lock the row of `model` with this id for this transaction; whether there is one."""
    locked = " FOR UPDATE" if connection.features.has_select_for_update else ""
    return bool(_fetch(f"SELECT 1 FROM {model._meta.db_table} WHERE id = %s{locked}", [pk]))


def update(instance: Model, fields: Sequence[str]) -> None:
    """Write `fields` of `instance` to its row, each value prepared as its field's `save` would."""
    meta = instance._meta
    written = [meta.get_field(name) for name in fields]
    columns = [field for field in meta.concrete_fields if field in written]
    quote = connection.ops.quote_name
    assignments = ", ".join(f"{quote(field.column)} = %s" for field in columns)
    values = [field.get_db_prep_save(getattr(instance, field.attname), connection) for field in columns]
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {meta.db_table} SET {assignments} WHERE id = %s", [*values, instance.pk])
