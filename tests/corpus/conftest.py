"""The small hand-made release of the import tests, shared by the corpus tests."""

from tests.corpus.test_import_perspectrum import small_release  # noqa: F401 (a fixture)
