"""The platform's log: one plain line per record on the console."""

from config.env import env_str
from config.settings.broker import REDIS_URL

# ── Logging ──────────────────────────────────────────────────────────────────────────────────────
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    # LOG_LEVEL: the level of the platform's log. Default: INFO.
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # CELERY_TRACE_LOG_LEVEL: the level of Celery's one line per task; in the embedded default every
        #   task runs in-process, where that line is noise. Default: INFO with REDIS_URL, else WARNING.
        "celery.app.trace": {"level": env_str("CELERY_TRACE_LOG_LEVEL", "INFO" if REDIS_URL else "WARNING")},
    },
}
