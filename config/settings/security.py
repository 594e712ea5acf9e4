"""Security and addresses: DEBUG and the keys, the hosts and URLs the platform answers on, the
largest request it reads, and the HTTPS hardening that goes with DEBUG off."""

from config.env import ConfigError, env_bool, env_hostname, env_int, env_list, env_str, secret_key
from config.settings.paths import VAR_DIR

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
