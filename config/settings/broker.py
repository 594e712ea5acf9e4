"""Celery and the cache: Redis (REDIS_URL) is the broker, the result backend and the pages' shared
cache; without it tasks run in the calling process and each process caches in memory."""

from config.env import env_int, env_str

# ── Celery and cache ─────────────────────────────────────────────────────────────────────────────
# REDIS_URL: Redis, the Celery broker and result backend and the shared cache of worker pages.
#   Default: unset: tasks run eagerly in the calling process and each process caches in memory.
REDIS_URL = env_str("REDIS_URL")
# Eager tasks still take a producer from the broker pool; the in-memory broker needs no host, but a
# URL without one makes kombu warn that it reverts to 'localhost' as if Redis were expected.
CELERY_BROKER_URL = REDIS_URL or "memory://localhost/"
CELERY_RESULT_BACKEND = REDIS_URL or None
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# CELERY_TASK_TIME_LIMIT: seconds after which a task is killed. Default: 1800.
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 30 * 60)
# CELERY_TASK_SOFT_TIME_LIMIT: seconds after which a task is asked to stop. Default: 1500.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 25 * 60)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * 60 * 60}
CELERY_IMPORTS = ["annotation.ledger.tasks", "annotation.work.tasks"]

# Django's cache holds what worker pages share (a HIT's items as its task page shows them): in Redis
# with REDIS_URL, so every web process finds what another rendered, stored as JSON (never pickle);
# else in each process's memory.
SHARED_CACHE = {
    "BACKEND": "config.json_cache.RedisCache",  # Django's, one client per connection pool
    "LOCATION": REDIS_URL,
    "KEY_PREFIX": "pages",
    "OPTIONS": {"serializer": "config.json_cache.JSONSerializer"},
}
CACHES = {
    "default": SHARED_CACHE if REDIS_URL else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
}
