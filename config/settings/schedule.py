"""What Celery beat (`celery -A config beat`) runs, and how often."""

from config.env import env_int
from config.settings.backups import BACKUP_INTERVAL_SECONDS, BACKUP_QUEUE
from config.settings.markets import MARKET_SYNC_SECONDS

# ── Periodic tasks (Celery beat) ─────────────────────────────────────────────────────────────────
# The sweeper re-queues stale ledger rows and asks the market about unclear ones; reconciliation
# compares every active market job with its market; the backup runs on its own queue (only the
# compose `backup` service has pg_dump and the volume).
# LEDGER_SWEEP_SECONDS: how often the ledger's sweeper and the blocklist calls' retry sweep run.
#   Default: 300.
SWEEP_SECONDS = float(env_int("LEDGER_SWEEP_SECONDS", 5 * 60))
CELERY_BEAT_SCHEDULE = {
    "sweep-ledger": {"task": "annotation.sweep_ledger", "schedule": SWEEP_SECONDS},
    # Calls about a job's blocklist at its market that failed or never went out are sent again.
    "retry-blocklist-calls": {
        "task": "annotation.retry_blocklist_calls",
        "schedule": SWEEP_SECONDS,
    },
    "reconcile-market-jobs": {
        "task": "annotation.reconcile_market_jobs",
        # RECONCILE_SECONDS: how often every active market job is reconciled with its market. Default: 3600.
        "schedule": float(env_int("RECONCILE_SECONDS", 60 * 60)),
    },
    "fail-silent-crawls": {"task": "crawler.fail_silent_runs", "schedule": 60.0},
    "sync-live-jobs": {"task": "annotation.sync_live_jobs", "schedule": float(MARKET_SYNC_SECONDS)},
    "backup": {
        "task": "backups.create_backup",
        "schedule": float(BACKUP_INTERVAL_SECONDS),
        # A backup nobody ran within its interval is dropped: the next one is due anyway.
        "options": {"queue": BACKUP_QUEUE, "expires": float(BACKUP_INTERVAL_SECONDS)},
    },
}
