"""Stancework settings: one file, driven by the environment (see config/env.py).

Defaults give the embedded platform: SQLite under var/, Celery tasks in-process,
the embedded search backend. Set DATABASE_URL / REDIS_URL for a deployment.
"""

from pathlib import Path

import dj_database_url

from config.env import (
    ConfigError,
    env_bool,
    env_hostname,
    env_int,
    env_list,
    env_pairs,
    env_path,
    env_str,
    secret_key,
)
from config.headers import static_headers

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = env_path("STANCEWORK_VAR_DIR", BASE_DIR / "var")
DATA_DIR = env_path("STANCEWORK_DATA_DIR", VAR_DIR / "data")
RELEASES_DIR = env_path("STANCEWORK_RELEASES_DIR", VAR_DIR / "releases")
# The code version recorded in release manifests; unset, it is the checkout's git commit.
STANCEWORK_CODE_VERSION = env_str("STANCEWORK_CODE_VERSION")
# The original PERSPECTRUM release, imported by `make run` when present.
PERSPECTRUM_DIR = env_path("PERSPECTRUM_DIR", BASE_DIR.parent / "shared" / "perspectrum")
SHARED_FIXTURES_DIR = env_path("STANCEWORK_FIXTURES_DIR", BASE_DIR.parent / "shared" / "fixtures")

DEBUG = env_bool("DEBUG", default=True)
SECRET_KEY = secret_key(DEBUG, VAR_DIR)
# HMAC key for worker pseudonyms in exports and logs (annotation.work.pseudonyms). Required when DEBUG
# is off; in DEBUG it is derived from SECRET_KEY. Changing it changes every pseudonym (and the ones stored on
# workers must then be refilled: annotation.work.records.fill_worker_pseudonyms).
WORKER_PSEUDONYM_KEY = env_str("WORKER_PSEUDONYM_KEY")
if not DEBUG and not WORKER_PSEUDONYM_KEY:
    # Refused at start-up (and so by `check --deploy`), not first noticed at export time.
    raise ConfigError(
        "WORKER_PSEUDONYM_KEY must be set when DEBUG is off (the HMAC key of worker pseudonyms)"
    )
# The public domain the TLS proxy (deploy/Caddyfile) serves: by default the one allowed host and the
# https origin markets send workers to (MARKET_PUBLIC_URL).
STANCEWORK_DOMAIN = env_hostname("STANCEWORK_DOMAIN")
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS",
    [STANCEWORK_DOMAIN] if STANCEWORK_DOMAIN else (["127.0.0.1", "localhost"] if DEBUG else []),
)
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# Where `make run` serves (its HOST and PORT) and where people reach the platform: invitation links and
# the demo's login name PUBLIC_URL; behind the TLS proxy it is https://STANCEWORK_DOMAIN.
HOST = env_str("HOST", "127.0.0.1")
PORT = env_int("PORT", 8000, minimum=1)
PUBLIC_URL = env_str(
    "PUBLIC_URL", f"https://{STANCEWORK_DOMAIN}" if STANCEWORK_DOMAIN else f"http://{HOST}:{PORT}"
).rstrip("/")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "accounts",
    "corpus",
    "operations",
    "crawler",
    "annotation",
    "aggregation",
    "search",
    "export",
    "pipeline",
    "backups",
    "api",
    "home",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "annotation.web.framing.FramingMiddleware",
    "config.headers.NoStoreMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'stancework.sqlite3'}")
# Connections persist across requests (each gunicorn thread keeps its own for DB_CONN_MAX_AGE seconds),
# and one that died meanwhile (a PostgreSQL restart or failover) is found by a SELECT 1 on its first
# use in a request and replaced, instead of failing that request.
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", default=True),
    )
}
# On PostgreSQL a statement's values travel apart from it (server-side binding), and a statement run
# twice on a connection is prepared there: parsed and planned once per connection, not on every run.
# At 200 simulated participants (bench/load.py) this halved PostgreSQL's CPU, 0.6 to 0.3 of a core,
# and spared the web tier quoting every value into the SQL. A pooler that cannot keep prepared
# statements (PgBouncer in transaction mode before 1.21) needs DB_PREPARED_STATEMENTS=false.
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool(
    "DB_PREPARED_STATEMENTS", default=True
):
    from config.postgres_binding import BindingCursor

    DATABASES["default"].setdefault("OPTIONS", {}).update(  # beside the URL's own (sslmode …)
        server_side_binding=True,
        cursor_factory=BindingCursor,  # a statement with more values than the protocol carries: quoted
        prepare_threshold=2,
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        # WAL + IMMEDIATE: readers never block the writer, and writers queue instead of failing.
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "timeout": 20,
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# One login page for everyone; after it (and after logging out) `/` sends staff to the home page
# and annotators to their queue.
LOGIN_URL = "annotation:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
WHITENOISE_ADD_HEADERS_FUNCTION = static_headers
STATIC_ROOT = env_path("STATIC_ROOT", BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Celery: with no REDIS_URL, tasks run eagerly in the calling process (the embedded default).
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
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 30 * 60)
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 25 * 60)
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 2 * 60 * 60}

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

# Search (search/): the embedded in-process engine by default; Elasticsearch if SEARCH_BACKEND=elasticsearch.
SEARCH_BACKEND = env_str("SEARCH_BACKEND", "embedded")
SEARCH_INDEX_DIR = env_path("SEARCH_INDEX_DIR", VAR_DIR / "search")
ELASTICSEARCH_URL = env_str("ELASTICSEARCH_URL", "http://127.0.0.1:9200")
SEARCH_INDEX_PREFIX = env_str("SEARCH_INDEX_PREFIX", "stancework")
# Keep indexes in step with corpus saves through a Celery task enqueued after commit.
SEARCH_SYNC = env_bool("SEARCH_SYNC", default=True)
# Candidate ranking: "best" (the MiniLM fine-tuned by `train_ranker` if trained, else the packaged
# MiniLM, both fused with BM25; BM25 alone without requirements-dense.txt), "hybrid" (the packaged
# MiniLM; BM25 with a warning without the extra) or "bm25".
SEARCH_RANKING = env_str("SEARCH_RANKING", "best")
WEB_SEARCH_SOURCE = env_str("WEB_SEARCH_SOURCE", "")  # "brave", or a path to an offline sentences file
WEB_SEARCH_API_KEY = env_str("WEB_SEARCH_API_KEY")

# The largest request body Django reads (there are no file uploads); deploy/Caddyfile refuses larger
# bodies with 413 at the proxy from the same variable, so both ends agree.
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BYTES", 2_621_440, minimum=1024)

# Deployment hardening, on whenever DEBUG is off. The proxy header is trusted because only the TLS
# proxy reaches gunicorn (docker-compose.yml's edge network), and Caddy overwrites the header itself.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 30)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", default=False)
# HSTS preload stays off unless asked for: once on the browsers' preload list, every subdomain of
# the domain must serve HTTPS for months, even after removal. That is the domain owner's call, not
# this app's, so the deploy check that asks for it (W021) is silenced until SECURE_HSTS_PRELOAD=1.
SILENCED_SYSTEM_CHECKS = [] if env_bool("SECURE_HSTS_PRELOAD", default=False) else ["security.W021"]
X_FRAME_OPTIONS = "DENY"
# Worker pages take small form posts; anything larger is refused before it is read (413).
WORKER_PAGE_MAX_BODY_BYTES = env_int("WORKER_PAGE_MAX_BODY_BYTES", 256 * 1024)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        # In the embedded default every task runs in-process: one line per task is noise there.
        "celery.app.trace": {"level": env_str("CELERY_TRACE_LOG_LEVEL", "INFO" if REDIS_URL else "WARNING")},
    },
}

# Crawler (crawler/): who we say we are, where crawl state lives, how politely we fetch.
CRAWLER_CONTACT = env_str("CRAWLER_CONTACT", "crawler@stancework.invalid")
CRAWLER_USER_AGENT = env_str("CRAWLER_USER_AGENT", f"Stancework research crawler (+mailto:{CRAWLER_CONTACT})")
CRAWLER_DIR = env_path("CRAWLER_DIR", VAR_DIR / "crawler")  # JOBDIRs and the HTTP cache
CRAWLER_HTTPCACHE = env_bool("CRAWLER_HTTPCACHE", default=True)
# Overrides every spider's own per-site delay when set (>= 0); -1 keeps the per-site delays.
CRAWLER_DOWNLOAD_DELAY_MS = env_int("CRAWLER_DOWNLOAD_DELAY_MS", -1)
CRAWLER_AUTOTHROTTLE = env_bool("CRAWLER_AUTOTHROTTLE", default=True)
# A crawl reports (its heartbeat) and reads its stop request every CRAWLER_PROGRESS_SECONDS; silent
# for CRAWLER_HEARTBEAT_LIMIT_SECONDS, it is failed (by beat's task, and before a new crawl of its site).
CRAWLER_PROGRESS_SECONDS = env_int("CRAWLER_PROGRESS_SECONDS", 5, minimum=1)
CRAWLER_HEARTBEAT_LIMIT_SECONDS = env_int("CRAWLER_HEARTBEAT_LIMIT_SECONDS", 120, minimum=1)
CRAWLER_WAYBACK_URL = env_str("CRAWLER_WAYBACK_URL", "https://web.archive.org")  # CDX API and snapshots

# The crowd markets a job can name (annotation.market_interface.registry). A market added here works end to
# end: its one class makes its paying calls and supplies its reconciliation step and URL parameters.
ANNOTATION_PROVIDERS = {
    "inhouse": "annotation.markets.inhouse.provider.InhouseProvider",
    "simulated": "annotation.markets.simulated.provider.SimulatedProvider",
    "mturk": "annotation.markets.mturk.provider.MTurkProvider",
    "prolific": "annotation.markets.prolific.provider.ProlificProvider",
}

# Crowd markets (annotation/markets/mturk/, annotation/markets/prolific/, annotation/ledger/).
# AWS announced that MTurk closes on 2026-09-30: with MTURK_ENABLED the system checks warn.
MTURK_ENABLED = env_bool("MTURK_ENABLED", default=False)
MTURK_SANDBOX = env_bool("MTURK_SANDBOX", default=True)  # AWS credentials: the standard AWS_* env
MTURK_LOCALES = env_list("MTURK_LOCALES", ["US", "GB", "CA", "NZ", "AU"])  # ISO codes: GB, not UK
MTURK_MIN_APPROVED_HITS = env_int("MTURK_MIN_APPROVED_HITS", 1000)
MTURK_MIN_APPROVAL_RATE = env_int("MTURK_MIN_APPROVAL_RATE", 95)
MTURK_QUIZ_QUALIFICATION_ID = env_str("MTURK_QUIZ_QUALIFICATION_ID")
MTURK_SOFT_BLOCK_QUALIFICATION_ID = env_str("MTURK_SOFT_BLOCK_QUALIFICATION_ID")
# Each market's client chosen by path, as Django chooses EMAIL_BACKEND: name=dotted.path of a function
# returning the client, e.g. MARKET_CLIENTS=mturk=annotation.markets.mturk.fake.fake_client,
# prolific=annotation.markets.prolific.fake.fake_client. A market not named here uses its real client.
MARKET_CLIENTS = env_pairs("MARKET_CLIENTS")
# Empty: MTurk's own sites, which its folder names (annotation/markets/mturk/identity.py).
MTURK_SUBMIT_ORIGINS = env_list("MTURK_SUBMIT_ORIGINS", [])
PROLIFIC_API_TOKEN = env_str("PROLIFIC_API_TOKEN")
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL", "https://api.prolific.com")
# Studies are created (and billed) in PROLIFIC_PROJECT_ID; the balance read is its workspace's.
# PROLIFIC_WORKSPACE_ID is optional and, when set, must be that workspace.
PROLIFIC_PROJECT_ID = env_str("PROLIFIC_PROJECT_ID")
PROLIFIC_WORKSPACE_ID = env_str("PROLIFIC_WORKSPACE_ID")
# The workspace's currency: every Prolific job is booked in it, and publishing checks the workspace agrees.
PROLIFIC_CURRENCY = env_str("PROLIFIC_CURRENCY", "GBP")
# Machine annotators of the openai_compatible backend (annotation/machines/chat.py): any server of the
# chat completions API (vLLM, Ollama, llama.cpp's server, a hosted provider). The key is read here
# only, never stored; temperature, price and requests per minute are the annotator's own settings.
MACHINE_CHAT_BASE_URL = env_str("MACHINE_CHAT_BASE_URL")
MACHINE_CHAT_MODEL = env_str("MACHINE_CHAT_MODEL")
MACHINE_CHAT_API_KEY = env_str("MACHINE_CHAT_API_KEY")
MACHINE_CHAT_TIMEOUT = env_int("MACHINE_CHAT_TIMEOUT", 30, minimum=1)
# The https origin markets send workers to (task pages are under /annotate/jobs/<id>/).
MARKET_PUBLIC_URL = env_str("MARKET_PUBLIC_URL", f"https://{STANCEWORK_DOMAIN}" if STANCEWORK_DOMAIN else "")
WORKER_TOKEN_MAX_AGE = env_int("WORKER_TOKEN_MAX_AGE", 4 * 60 * 60)
# Empty: the sites each installed market shows our worker pages in (its provider's `frame_ancestors`).
WORKER_FRAME_ANCESTORS = env_list("WORKER_FRAME_ANCESTORS", [])
LEDGER_STALE_SECONDS = env_int("LEDGER_STALE_SECONDS", 10 * 60)
# Every live market job is synced with its market this often (its state follows the market's).
MARKET_SYNC_SECONDS = env_int("MARKET_SYNC_SECONDS", 10 * 60, minimum=1)
CELERY_IMPORTS = ["annotation.ledger.tasks", "annotation.work.jobs", "annotation.work.syncing"]
# Celery beat (`celery -A config beat`): the sweeper re-queues stale ledger rows and asks the
# market about unclear ones; reconciliation compares every active market job with its market.
CELERY_BEAT_SCHEDULE = {
    "sweep-ledger": {
        "task": "annotation.sweep_ledger",
        "schedule": float(env_int("LEDGER_SWEEP_SECONDS", 5 * 60)),
    },
    "reconcile-market-jobs": {
        "task": "annotation.reconcile_market_jobs",
        "schedule": float(env_int("RECONCILE_SECONDS", 60 * 60)),
    },
    "fail-silent-crawls": {"task": "crawler.fail_silent_runs", "schedule": 60.0},
    "sync-live-jobs": {"task": "annotation.sync_live_jobs", "schedule": float(MARKET_SYNC_SECONDS)},
}

# Backups (backups/): `manage.py backup` writes a pg_dump (custom format) and an archive of
# RELEASES_DIR into BACKUP_DIR and keeps the newest BACKUP_KEEP; the compose `backup` service runs
# the same every BACKUP_INTERVAL_SECONDS from beat, on its own queue (only it has pg_dump and the volume).
BACKUP_DIR = env_path("BACKUP_DIR", VAR_DIR / "backups")
BACKUP_KEEP = env_int("BACKUP_KEEP", 7, minimum=1)
BACKUP_INTERVAL_SECONDS = env_int("BACKUP_INTERVAL_SECONDS", 24 * 60 * 60, minimum=60)
BACKUP_QUEUE = "backups"
CELERY_BEAT_SCHEDULE["backup"] = {
    "task": "backups.create_backup",
    "schedule": float(BACKUP_INTERVAL_SECONDS),
    # A backup nobody ran within its interval is dropped: the next one is due anyway.
    "options": {"queue": BACKUP_QUEUE, "expires": float(BACKUP_INTERVAL_SECONDS)},
}

# The REST API (/api/): token or session login, the admin's named permissions, JSON pages of 100 rows
# by cursor with their total count (a CSV download streams every row instead).
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.Needs"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.CountedCursorPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Stancework API",
    "DESCRIPTION": "Script jobs, results, aggregation, releases and crawls. Authenticate with "
    "`Authorization: Token <key>` (manage.py drf_create_token USER).",
    "VERSION": "1",
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}
