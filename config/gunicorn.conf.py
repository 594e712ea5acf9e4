"""gunicorn's settings wherever the app is served: the image, docker-compose.yml, bench/load.py and the
production smoke test (`gunicorn --config config/gunicorn.conf.py …`; workers are each caller's own).

Threaded workers: a sync worker is held for the whole of a request, which on this app waits on
PostgreSQL and Redis for most of its time, so sync workers left most of a core idle while requests
queued. Four threads each served nearly twice the requests with half the p95 on the same loaded
machine, and kept-alive connections cut the CPU per request (bench/load.py measures both). Each
thread holds its own database connection (CONN_MAX_AGE).
"""

worker_class = "gthread"
threads = 4
# Longer than a person waits between two pages, and than a proxy keeps an idle connection to us:
# a connection closed by us just as the client reuses it fails that request (status 0 in the load).
keepalive = 75
