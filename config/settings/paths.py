"""Where the platform keeps its state and finds its data: every other path defaults under these."""

from pathlib import Path

from config.env import env_path, env_str

# ── Paths ────────────────────────────────────────────────────────────────────────────────────────
BASE_DIR = Path(__file__).resolve().parents[2]
# STANCEWORK_VAR_DIR: where the platform keeps its state (database, secret key, crawls, indexes).
#   Default: var/ in the checkout.
VAR_DIR = env_path("STANCEWORK_VAR_DIR", BASE_DIR / "var")
# STANCEWORK_DATA_DIR: data files the platform reads and writes. Default: STANCEWORK_VAR_DIR/data.
DATA_DIR = env_path("STANCEWORK_DATA_DIR", VAR_DIR / "data")
# STANCEWORK_RELEASES_DIR: where built releases are written. Default: STANCEWORK_VAR_DIR/releases.
RELEASES_DIR = env_path("STANCEWORK_RELEASES_DIR", VAR_DIR / "releases")
# STANCEWORK_CODE_VERSION: the code version recorded in release manifests.
#   Default: unset, the checkout's git commit.
STANCEWORK_CODE_VERSION = env_str("STANCEWORK_CODE_VERSION")
# PERSPECTRUM_DIR: the original PERSPECTRUM release, imported by `make run` when present.
#   Default: ../shared/perspectrum beside the checkout.
PERSPECTRUM_DIR = env_path("PERSPECTRUM_DIR", BASE_DIR.parent / "shared" / "perspectrum")
# STANCEWORK_FIXTURES_DIR: saved pages of the debate sites. Default: ../shared/fixtures beside the checkout.
SHARED_FIXTURES_DIR = env_path("STANCEWORK_FIXTURES_DIR", BASE_DIR.parent / "shared" / "fixtures")
