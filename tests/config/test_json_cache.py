"""The shared cache stores JSON: what comes back from Redis is data, and a pickle is never loaded."""

from __future__ import annotations

import pickle

import pytest

from config.json_cache import JSONSerializer


class Exploding:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (print, ("unpickled",))


def test_values_travel_as_json_and_a_pickle_is_never_loaded() -> None:
    serializer = JSONSerializer()
    assert serializer.dumps('<p class="x">ü</p>') == b'"<p class=\\"x\\">\\u00fc</p>"'
    assert serializer.loads(serializer.dumps('<p class="x">ü</p>')) == '<p class="x">ü</p>'
    with pytest.raises(ValueError):
        serializer.loads(pickle.dumps(Exploding()))
