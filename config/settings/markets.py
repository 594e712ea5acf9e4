"""Markets and money (annotation/markets/, annotation/ledger/): the markets a job can name, their
clients and credentials, the workers' pages they send people to, and the ledger's patience."""

from config.env import env_bool, env_int, env_list, env_pairs, env_str
from config.settings.security import STANCEWORK_DOMAIN

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
#   Default: empty: the sites each installed market shows them in (each market's `frame_ancestors`).
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
