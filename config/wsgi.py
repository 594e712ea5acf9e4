import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()


def import_what_requests_would() -> None:
    """What a worker's first request would import, imported as it starts: the URLconf (with the charts'
    matplotlib) and every market's module (MTurk's with boto3). Otherwise the first page a participant
    gets from each new gunicorn worker waits a second or more of CPU for them."""
    from annotation.market_interface.registry import get_market, market_names

    get_resolver().url_patterns  # noqa: B018 (the property imports the URL modules)
    for name in market_names():
        get_market(name)


import_what_requests_would()
