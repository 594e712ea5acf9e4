"""The database, from DATABASE_URL: kept connections, and the options each engine runs best with."""

import dj_database_url

from config.env import env_bool, env_int, env_str
from config.settings.paths import VAR_DIR

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
