"""The set-wise writers write rows without `save()`: `annotation.work.rows.update` (a submitted
assignment) and `corpus.bulk` (a release's import). No pre_save or post_save receiver runs for their
rows, and `rows.update` and `bulk.update` leave `auto_now` fields as they were (`bulk.insert` fills
them, as `save()` would). So each model they write is listed here with the `auto_now` fields and save
receivers it has, and why skipping them is right; a model that gains one fails this test until its
writer handles it or the list says why it need not.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from django.db.models import DateField, Model
from django.db.models.signals import ModelSignal, post_save, pre_save

from annotation.models import Assignment
from corpus import models as corpus
from tests.config.test_function_length import ROOT, project_files

SEARCH_SYNC = "search.signals._changed"  # queues a search index sync; an import is followed by rebuild_index


@dataclass(frozen=True)
class Skipped:
    """What `save()` would do for a model that its set-wise writer does not."""

    auto_now: frozenset[str] = frozenset()  # left as they were by an update
    receivers: frozenset[str] = frozenset()  # pre_save and post_save receivers, none of which runs
    why: str = ""


WRITTEN: dict[type[Model], Skipped] = {
    Assignment: Skipped(),  # rows.update: a submitted assignment's state, time and seconds
    corpus.Claim: Skipped(
        frozenset({"updated"}),
        frozenset({SEARCH_SYNC}),
        "the import stamps each row it writes (written_by, written_at); its rows reach the search index by"
        " rebuild_index, which the pipeline runs before it searches",
    ),
    corpus.Perspective: Skipped(frozenset({"updated"}), frozenset({SEARCH_SYNC}), "as claims"),
    corpus.Evidence: Skipped(frozenset({"updated"}), frozenset({SEARCH_SYNC}), "as claims"),
    corpus.PerspectiveCluster: Skipped(frozenset({"updated"}), why="as claims"),
    corpus.ClusterMember: Skipped(),
    corpus.ClusterEvidence: Skipped(),
    corpus.ClaimTopic: Skipped(),
}


def receivers(signal: ModelSignal, model: type[Model]) -> set[str]:
    sync, asynchronous = signal._live_receivers(model)
    return {f"{found.__module__}.{found.__qualname__}" for found in [*sync, *asynchronous]}


def what_save_adds(model: type[Model]) -> Skipped:
    auto_now = {
        field.name for field in model._meta.concrete_fields if isinstance(field, DateField) and field.auto_now
    }
    found = receivers(pre_save, model) | receivers(post_save, model)
    return Skipped(frozenset(auto_now), frozenset(found))


def test_no_model_written_set_wise_gains_an_auto_now_field_or_a_save_receiver_its_writer_skips() -> None:
    assert Assignment in WRITTEN and corpus.Claim in WRITTEN
    for model, skipped in WRITTEN.items():
        found = what_save_adds(model)
        assert (found.auto_now, found.receivers) == (skipped.auto_now, skipped.receivers), (
            f"{model.__name__} now has auto_now {sorted(found.auto_now)} and save receivers "
            f"{sorted(found.receivers)}, which its set-wise writer skips: write them there, or list them here"
        )


def bulk_models(source: str) -> set[str]:
    """The model classes named as the first argument of `bulk.insert`/`bulk.update` calls."""
    return {
        node.args[0].id
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "bulk"
        and node.func.attr in ("insert", "update")
        and node.args
        and isinstance(node.args[0], ast.Name)
        and node.args[0].id[:1].isupper()  # a class, not a function's `model` parameter
    }


def test_every_model_the_project_writes_with_bulk_is_listed() -> None:
    named = {name for path in project_files(ROOT) for name in bulk_models(path.read_text())}
    assert "PerspectiveCluster" in named  # the scan sees the import's calls
    assert named <= {model.__name__ for model in WRITTEN}


def test_a_save_receiver_or_auto_now_field_is_seen() -> None:
    def stamp(**kwargs: object) -> None:
        """A receiver added to Assignment, as a change would add one."""

    pre_save.connect(stamp, sender=Assignment, weak=False)
    try:
        assert what_save_adds(Assignment).receivers == {f"{__name__}.{stamp.__qualname__}"}
    finally:
        pre_save.disconnect(stamp, sender=Assignment)
    assert what_save_adds(corpus.Claim).auto_now == {"updated"}
    assert bulk_models("bulk.insert(Claim, [], rows)\nbulk.update(model, [], rows)") == {"Claim"}
