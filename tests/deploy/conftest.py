"""The release-building fixtures of tests/export, for the backup round trip."""

from tests.export.conftest import pseudonym_key, releases_dir, simulated_job, small_corpus  # noqa: F401
