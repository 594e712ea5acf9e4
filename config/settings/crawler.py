"""The crawler (crawler/): who it says it is, where crawl state lives, how politely it fetches."""

from config.env import env_bool, env_int, env_list, env_path, env_str
from config.settings.paths import VAR_DIR

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
