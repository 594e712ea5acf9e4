"""Stancework settings, driven by the environment (the helpers of config/env.py fail loudly on a bad
value).

Defaults give the embedded platform: SQLite under var/, Celery tasks in-process, the embedded
search backend. Set DATABASE_URL / REDIS_URL for a deployment.

One module per concern, in the order below, which is also the order of the settings reference page
(docs_build/settings_reference.py): each module's `# ── Name ───` heading is its section there. A
module that needs another's value (a path, DEBUG, REDIS_URL) imports it by name. The convention,
kept by every module:
- each environment variable is read once, in these modules, by one `env_*` helper call;
- directly above the read, one comment documents it, in the form
  `# NAME: what it means. Default: its default.` (continuation lines start with `#   `);
- comments not in that form say why a setting is as it is, and name no variable's default.

Django reads a settings module's upper-case names, so each concern's are gathered here whole.
"""

from config.settings.paths import *
from config.settings.security import *
from config.settings.web import *
from config.settings.database import *
from config.settings.broker import *
from config.settings.logs import *
from config.settings.search import *
from config.settings.crawler import *
from config.settings.markets import *
from config.settings.machines import *
from config.settings.backups import *
from config.settings.schedule import *
from config.settings.api import *
