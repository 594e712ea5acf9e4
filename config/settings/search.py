"""Search (search/): the backend, its indexes, the candidate ranking and the web search source."""

from config.env import env_bool, env_path, env_str
from config.settings.paths import VAR_DIR

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
