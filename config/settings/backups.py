"""Backups (backups/): where `manage.py backup` writes, how many it keeps and how often beat asks."""

from config.env import env_int, env_path
from config.settings.paths import VAR_DIR

# ── Backups (backups/) ───────────────────────────────────────────────────────────────────────────
# `manage.py backup` writes a pg_dump (custom format) and an archive of RELEASES_DIR into BACKUP_DIR
# and keeps the newest BACKUP_KEEP; the compose `backup` service runs the same every
# BACKUP_INTERVAL_SECONDS from beat, on its own queue (only it has pg_dump and the volume).
# BACKUP_DIR: where backups are written. Default: STANCEWORK_VAR_DIR/backups.
BACKUP_DIR = env_path("BACKUP_DIR", VAR_DIR / "backups")
# BACKUP_KEEP: how many of the newest backups are kept. Default: 7.
BACKUP_KEEP = env_int("BACKUP_KEEP", 7, minimum=1)
# BACKUP_INTERVAL_SECONDS: how often beat asks for a backup. Default: 86400 (a day).
BACKUP_INTERVAL_SECONDS = env_int("BACKUP_INTERVAL_SECONDS", 24 * 60 * 60, minimum=60)
BACKUP_QUEUE = "backups"
