"""Stancework settings: one file, driven by the environment (the helpers of config/env.py fail
loudly on a bad value).

Defaults give the embedded platform: SQLite under var/, Celery tasks in-process, the embedded
search backend. Set DATABASE_URL / REDIS_URL for a deployment.

The file is in sections, one per concern (paths; security and addresses; Django's apps and pages;
database; Celery and cache; logging; search; crawler; markets and money; machine annotators;
backups; the REST API). The convention, kept by every section:
- each environment variable is read once, in this file, by one `env_*` helper call;
- directly above the read, one comment documents it, in the form
  `# NAME: what it means. Default: its default.` (continuation lines start with `#   `);
- comments not in that form say why a setting is as it is, and name no variable's default.
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

# ── Paths ────────────────────────────────────────────────────────────────────────────────────────
BASE_DIR = Path(__file__).resolve().parent.parent
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

# ── Security and addresses ───────────────────────────────────────────────────────────────────────
# DEBUG: Django's debug mode, and the embedded defaults that go with it; off in a deployment. Default: true.
DEBUG = env_bool("DEBUG", default=True)
# SECRET_KEY: Django's secret key (read by config.env.secret_key). Required when DEBUG is off.
#   Default: in DEBUG, one generated once into STANCEWORK_VAR_DIR/secret_key.
SECRET_KEY = secret_key(DEBUG, VAR_DIR)
# WORKER_PSEUDONYM_KEY: HMAC key of worker pseudonyms in exports and logs (annotation.work.pseudonyms).
#   Changing it changes every pseudonym (the ones stored on workers must then be refilled:
#   annotation.work.records.fill_worker_pseudonyms). Required when DEBUG is off.
#   Default: in DEBUG, derived from SECRET_KEY.
WORKER_PSEUDONYM_KEY = env_str("WORKER_PSEUDONYM_KEY")
if not DEBUG and not WORKER_PSEUDONYM_KEY:
    # Refused at start-up (and so by `check --deploy`), not first noticed at export time.
    raise ConfigError(
        "WORKER_PSEUDONYM_KEY must be set when DEBUG is off (the HMAC key of worker pseudonyms)"
    )
# STANCEWORK_DOMAIN: the public domain the TLS proxy (deploy/Caddyfile) serves: the one allowed
#   host and the https origin markets send workers to, unless ALLOWED_HOSTS or MARKET_PUBLIC_URL
#   say otherwise. Default: unset.
STANCEWORK_DOMAIN = env_hostname("STANCEWORK_DOMAIN")
# ALLOWED_HOSTS: comma-separated host names the platform answers to.
#   Default: STANCEWORK_DOMAIN; without it 127.0.0.1 and localhost in DEBUG, none otherwise.
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS",
    [STANCEWORK_DOMAIN] if STANCEWORK_DOMAIN else (["127.0.0.1", "localhost"] if DEBUG else []),
)
# CSRF_TRUSTED_ORIGINS: comma-separated origins trusted for unsafe requests. Default: none.
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# HOST: the address `make run` serves on. Default: 127.0.0.1.
HOST = env_str("HOST", "127.0.0.1")
# PORT: the port `make run` serves on. Default: 8000.
PORT = env_int("PORT", 8000, minimum=1)
# PUBLIC_URL: where people reach the platform: invitation links and the demo's login name it.
#   Default: https://STANCEWORK_DOMAIN behind the TLS proxy, else http://HOST:PORT.
PUBLIC_URL = env_str(
    "PUBLIC_URL", f"https://{STANCEWORK_DOMAIN}" if STANCEWORK_DOMAIN else f"http://{HOST}:{PORT}"
).rstrip("/")
# MAX_REQUEST_BYTES: the largest request body Django reads (there are no file uploads);
#   deploy/Caddyfile refuses larger bodies with 413 at the proxy from the same variable, so both
#   ends agree. Default: 2621440 (2.5 MiB).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_REQUEST_BYTES", 2_621_440, minimum=1024)
# WORKER_PAGE_MAX_BODY_BYTES: worker pages take small form posts; anything larger is refused before
#   it is read (413). Default: 262144 (256 KiB).
WORKER_PAGE_MAX_BODY_BYTES = env_int("WORKER_PAGE_MAX_BODY_BYTES", 256 * 1024)
# SECURE_HSTS_PRELOAD: ask browsers to preload HSTS (only when DEBUG is off). Default: false.
#   It stays off unless asked for: once on the browsers' preload list, every subdomain of the domain
#   must serve HTTPS for months, even after removal. That is the domain owner's call, not this app's,
#   so the deploy check that asks for it (W021) is silenced until it is set.
_hsts_preload = env_bool("SECURE_HSTS_PRELOAD", default=False)
# Deployment hardening, on whenever DEBUG is off. The proxy header is trusted because only the TLS
# proxy reaches gunicorn (docker-compose.yml's edge network), and Caddy overwrites the header itself.
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    # SECURE_SSL_REDIRECT: redirect plain HTTP to HTTPS (only when DEBUG is off). Default: true.
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    # SECURE_HSTS_SECONDS: how long browsers keep to HTTPS (only when DEBUG is off). Default: 30 days.
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 60 * 60 * 24 * 30)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = _hsts_preload
SILENCED_SYSTEM_CHECKS = [] if _hsts_preload else ["security.W021"]
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"

# ── Django's apps and pages ──────────────────────────────────────────────────────────────────────
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
# STATIC_ROOT: where `collectstatic` gathers the static files. Default: staticfiles/ in the checkout.
STATIC_ROOT = env_path("STATIC_ROOT", BASE_DIR / "staticfiles")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# ── Database ─────────────────────────────────────────────────────────────────────────────────────
# DATABASE_URL: the database, as a URL (postgres://user@host:5432/name, sqlite:///path).
#   Default: SQLite at STANCEWORK_VAR_DIR/stancework.sqlite3.
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'stancework.sqlite3'}")
# Connections persist across requests (each gunicorn thread keeps its own for DB_CONN_MAX_AGE seconds),
# and one that died meanwhile (a PostgreSQL restart or failover) is found by a SELECT 1 on its first
# use in a request and replaced, instead of failing that request.
DATABASES = {
    "default": dj_database_url.parse(
        DATABASE_URL,
        # DB_CONN_MAX_AGE: seconds a connection is kept open between requests. Default: 60.
        conn_max_age=env_int("DB_CONN_MAX_AGE", 60),
        # DB_CONN_HEALTH_CHECKS: check a kept connection on its first use in a request. Default: true.
        conn_health_checks=env_bool("DB_CONN_HEALTH_CHECKS", default=True),
    )
}
# On PostgreSQL a statement's values travel apart from it (server-side binding), and a statement run
# twice on a connection is prepared there: parsed and planned once per connection, not on every run.
# That halved PostgreSQL's CPU under bench/load.py's simulated participants and spared the web tier
# quoting every value into the SQL.
# DB_PREPARED_STATEMENTS: server-side binding and prepared statements on PostgreSQL; a pooler that
#   cannot keep prepared statements (PgBouncer in transaction mode before 1.21) needs false. Default: true.
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
CELERY_IMPORTS = ["annotation.ledger.tasks", "annotation.work.jobs", "annotation.work.syncing"]

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

# ── Search (search/) ─────────────────────────────────────────────────────────────────────────────
# SEARCH_BACKEND: "embedded" (in-process) or "elasticsearch". Default: embedded.
SEARCH_BACKEND = env_str("SEARCH_BACKEND", "embedded")
# SEARCH_INDEX_DIR: where the embedded backend keeps its indexes. Default: STANCEWORK_VAR_DIR/search.
SEARCH_INDEX_DIR = env_path("SEARCH_INDEX_DIR", VAR_DIR / "search")
# ELASTICSEARCH_URL: the Elasticsearch server. Default: http://127.0.0.1:9200.
ELASTICSEARCH_URL = env_str("ELASTICSEARCH_URL", "http://127.0.0.1:9200")
# SEARCH_INDEX_PREFIX: the prefix of the Elasticsearch index names. Default: stancework.
SEARCH_INDEX_PREFIX = env_str("SEARCH_INDEX_PREFIX", "stancework")
# SEARCH_SYNC: keep indexes in step with corpus saves through a Celery task enqueued after commit.
#   Default: true.
SEARCH_SYNC = env_bool("SEARCH_SYNC", default=True)
# SEARCH_RANKING: candidate ranking: "best" (the MiniLM fine-tuned by `train_ranker` if trained, else
#   the packaged MiniLM, both fused with BM25; BM25 alone without requirements-dense.txt), "hybrid"
#   (the packaged MiniLM; BM25 with a warning without the extra) or "bm25". Default: best.
SEARCH_RANKING = env_str("SEARCH_RANKING", "best")
# WEB_SEARCH_SOURCE: where web perspectives are searched: "brave", or a path to an offline sentences
#   file. Default: empty, none.
WEB_SEARCH_SOURCE = env_str("WEB_SEARCH_SOURCE", "")
# WEB_SEARCH_API_KEY: the key of the web search API. Default: unset.
WEB_SEARCH_API_KEY = env_str("WEB_SEARCH_API_KEY")

# ── Crawler (crawler/): who we say we are, where crawl state lives, how politely we fetch ────────
# CRAWLER_CONTACT: the address the crawler gives site owners. Default: crawler@stancework.invalid.
CRAWLER_CONTACT = env_str("CRAWLER_CONTACT", "crawler@stancework.invalid")
# CRAWLER_USER_AGENT: the crawler's User-Agent.
#   Default: "Stancework research crawler (+mailto:CRAWLER_CONTACT)".
CRAWLER_USER_AGENT = env_str("CRAWLER_USER_AGENT", f"Stancework research crawler (+mailto:{CRAWLER_CONTACT})")
# CRAWLER_DIR: the crawls' JOBDIRs and HTTP cache. Default: STANCEWORK_VAR_DIR/crawler.
CRAWLER_DIR = env_path("CRAWLER_DIR", VAR_DIR / "crawler")
# CRAWLER_HTTPCACHE: keep fetched pages in the HTTP cache. Default: true.
CRAWLER_HTTPCACHE = env_bool("CRAWLER_HTTPCACHE", default=True)
# CRAWLER_DOWNLOAD_DELAY_MS: overrides every spider's own per-site delay when >= 0.
#   Default: -1, the per-site delays.
CRAWLER_DOWNLOAD_DELAY_MS = env_int("CRAWLER_DOWNLOAD_DELAY_MS", -1)
# CRAWLER_AUTOTHROTTLE: Scrapy's AutoThrottle. Default: true.
CRAWLER_AUTOTHROTTLE = env_bool("CRAWLER_AUTOTHROTTLE", default=True)
# CRAWLER_PROGRESS_SECONDS: a crawl reports (its heartbeat) and reads its stop request this often.
#   Default: 5.
CRAWLER_PROGRESS_SECONDS = env_int("CRAWLER_PROGRESS_SECONDS", 5, minimum=1)
# CRAWLER_HEARTBEAT_LIMIT_SECONDS: a crawl silent this long is failed (by beat's task, and before a
#   new crawl of its site). Default: 120.
CRAWLER_HEARTBEAT_LIMIT_SECONDS = env_int("CRAWLER_HEARTBEAT_LIMIT_SECONDS", 120, minimum=1)
# CRAWLER_WAYBACK_URL: the Wayback Machine (its CDX API and snapshots). Default: https://web.archive.org.
CRAWLER_WAYBACK_URL = env_str("CRAWLER_WAYBACK_URL", "https://web.archive.org")
# CRAWLER_EXTRA_ORIGINS: origins (scheme://host:port; host:* for every port) crawls may reach besides
#   their sites' own hosts: a test rig's copies of sites on this machine. Default: empty, and then
#   loopback and private addresses are reached only by the saved-pages server a crawl starts itself.
CRAWLER_EXTRA_ORIGINS = env_list("CRAWLER_EXTRA_ORIGINS", [])

# ── Markets and money (annotation/markets/, annotation/ledger/) ──────────────────────────────────
# The crowd markets a job can name (annotation.market_interface.registry). A market added here works end to
# end: its one class makes its paying calls and supplies its reconciliation step and URL parameters.
ANNOTATION_MARKETS = {
    "inhouse": "annotation.markets.inhouse.market.InhouseMarket",
    "simulated": "annotation.markets.simulated.market.SimulatedMarket",
    "mturk": "annotation.markets.mturk.market.MTurkMarket",
    "prolific": "annotation.markets.prolific.market.ProlificMarket",
}
# MARKET_CLIENTS: each market's client chosen by path, as Django chooses EMAIL_BACKEND:
#   name=dotted.path of a function returning the client, comma-separated, e.g.
#   mturk=annotation.markets.mturk.fake.fake_client,prolific=annotation.markets.prolific.fake.fake_client.
#   Default: none: every market uses its real client.
MARKET_CLIENTS = env_pairs("MARKET_CLIENTS")
# MARKET_PUBLIC_URL: the https origin markets send workers to (task pages are under /annotate/jobs/<id>/).
#   Default: https://STANCEWORK_DOMAIN, else empty.
MARKET_PUBLIC_URL = env_str("MARKET_PUBLIC_URL", f"https://{STANCEWORK_DOMAIN}" if STANCEWORK_DOMAIN else "")
# MARKET_SYNC_SECONDS: every live market job is synced with its market this often (its state follows
#   the market's). Default: 600.
MARKET_SYNC_SECONDS = env_int("MARKET_SYNC_SECONDS", 10 * 60, minimum=1)
# WORKER_TOKEN_MAX_AGE: seconds a worker's page token stays valid. Default: 14400 (4 hours).
WORKER_TOKEN_MAX_AGE = env_int("WORKER_TOKEN_MAX_AGE", 4 * 60 * 60)
# WORKER_FRAME_ANCESTORS: comma-separated sites that may show our worker pages in a frame.
#   Default: empty: the sites each installed market shows them in (its provider's `frame_ancestors`).
WORKER_FRAME_ANCESTORS = env_list("WORKER_FRAME_ANCESTORS", [])
# LEDGER_STALE_SECONDS: a ledger row left in flight this long is re-queued by the sweeper. Default: 600.
LEDGER_STALE_SECONDS = env_int("LEDGER_STALE_SECONDS", 10 * 60)
# MTURK_ENABLED: offer MTurk; AWS announced that MTurk closes on 2026-09-30, so with it on the system
#   checks warn. Default: false.
MTURK_ENABLED = env_bool("MTURK_ENABLED", default=False)
# MTURK_SANDBOX: use MTurk's sandbox; the AWS credentials are the standard AWS_* variables. Default: true.
MTURK_SANDBOX = env_bool("MTURK_SANDBOX", default=True)
# MTURK_LOCALES: comma-separated ISO country codes of the workers MTurk admits (GB, not UK).
#   Default: US,GB,CA,NZ,AU.
MTURK_LOCALES = env_list("MTURK_LOCALES", ["US", "GB", "CA", "NZ", "AU"])
# MTURK_MIN_APPROVED_HITS: the approved HITs a worker needs. Default: 1000.
MTURK_MIN_APPROVED_HITS = env_int("MTURK_MIN_APPROVED_HITS", 1000)
# MTURK_MIN_APPROVAL_RATE: the approval rate (percent) a worker needs. Default: 95.
MTURK_MIN_APPROVAL_RATE = env_int("MTURK_MIN_APPROVAL_RATE", 95)
# MTURK_QUIZ_QUALIFICATION_ID: the qualification a worker earns by passing the quiz. Default: unset.
MTURK_QUIZ_QUALIFICATION_ID = env_str("MTURK_QUIZ_QUALIFICATION_ID")
# MTURK_SOFT_BLOCK_QUALIFICATION_ID: the qualification that keeps a blocked worker out. Default: unset.
MTURK_SOFT_BLOCK_QUALIFICATION_ID = env_str("MTURK_SOFT_BLOCK_QUALIFICATION_ID")
# MTURK_SUBMIT_ORIGINS: comma-separated origins MTurk's task pages submit to.
#   Default: empty: MTurk's own sites, which its folder names (annotation/markets/mturk/identity.py).
MTURK_SUBMIT_ORIGINS = env_list("MTURK_SUBMIT_ORIGINS", [])
# PROLIFIC_API_TOKEN: the Prolific API token. Default: unset.
PROLIFIC_API_TOKEN = env_str("PROLIFIC_API_TOKEN")
# PROLIFIC_API_URL: the Prolific API. Default: https://api.prolific.com.
PROLIFIC_API_URL = env_str("PROLIFIC_API_URL", "https://api.prolific.com")
# PROLIFIC_PROJECT_ID: the project studies are created (and billed) in. Default: unset.
PROLIFIC_PROJECT_ID = env_str("PROLIFIC_PROJECT_ID")
# PROLIFIC_WORKSPACE_ID: optional; when set, it must be the project's workspace, whose balance is
#   read. Default: unset.
PROLIFIC_WORKSPACE_ID = env_str("PROLIFIC_WORKSPACE_ID")
# PROLIFIC_CURRENCY: the workspace's currency: every Prolific job is booked in it, and every paying
#   call (publish, extend, bonus, pay) checks the workspace agrees. Default: GBP.
PROLIFIC_CURRENCY = env_str("PROLIFIC_CURRENCY", "GBP")
# Celery beat (`celery -A config beat`): the sweeper re-queues stale ledger rows and asks the
# market about unclear ones; reconciliation compares every active market job with its market.
CELERY_BEAT_SCHEDULE = {
    "sweep-ledger": {
        "task": "annotation.sweep_ledger",
        # LEDGER_SWEEP_SECONDS: how often the ledger's sweeper runs. Default: 300.
        "schedule": float(env_int("LEDGER_SWEEP_SECONDS", 5 * 60)),
    },
    "reconcile-market-jobs": {
        "task": "annotation.reconcile_market_jobs",
        # RECONCILE_SECONDS: how often every active market job is reconciled with its market. Default: 3600.
        "schedule": float(env_int("RECONCILE_SECONDS", 60 * 60)),
    },
    "fail-silent-crawls": {"task": "crawler.fail_silent_runs", "schedule": 60.0},
    "sync-live-jobs": {"task": "annotation.sync_live_jobs", "schedule": float(MARKET_SYNC_SECONDS)},
}

# ── Machine annotators (annotation/machines/chat.py) ─────────────────────────────────────────────
# The openai_compatible backend speaks to any server of the chat completions API (vLLM, Ollama,
# llama.cpp's server, a hosted provider). Temperature, price and requests per minute are the
# annotator's own settings.
# MACHINE_CHAT_BASE_URL: the chat completions server. Default: unset.
MACHINE_CHAT_BASE_URL = env_str("MACHINE_CHAT_BASE_URL")
# MACHINE_CHAT_MODEL: the model asked. Default: unset.
MACHINE_CHAT_MODEL = env_str("MACHINE_CHAT_MODEL")
# MACHINE_CHAT_API_KEY: the server's key, read here only, never stored. Default: unset.
MACHINE_CHAT_API_KEY = env_str("MACHINE_CHAT_API_KEY")
# MACHINE_CHAT_TIMEOUT: seconds a chat request may take. Default: 30.
MACHINE_CHAT_TIMEOUT = env_int("MACHINE_CHAT_TIMEOUT", 30, minimum=1)

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
CELERY_BEAT_SCHEDULE["backup"] = {
    "task": "backups.create_backup",
    "schedule": float(BACKUP_INTERVAL_SECONDS),
    # A backup nobody ran within its interval is dropped: the next one is due anyway.
    "options": {"queue": BACKUP_QUEUE, "expires": float(BACKUP_INTERVAL_SECONDS)},
}

# ── The REST API (/api/) ───────────────────────────────────────────────────────────────────────────
# token or session login, the admin's named permissions, JSON pages of 100 rows
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
