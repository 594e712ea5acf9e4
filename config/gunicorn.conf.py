"""gunicorn's settings wherever the app is served: the image, docker-compose.yml, bench/load.py and the
production smoke test (`gunicorn --config config/gunicorn.conf.py …`; workers are each caller's own).

Threaded workers: a sync worker is held for the whole of a request, which on this app waits on
PostgreSQL and Redis for most of its time (a worker page costs about 5 ms of CPU), so 4 sync workers
served 68 requests/s at 200 users with p95 3 s while using under half a core. Four threads each
served 122 requests/s (p95 1.6 s) on the same loaded machine, and kept-alive connections cut the CPU
per request (bench/load.py). Each thread holds its own database connection (CONN_MAX_AGE).
"""

worker_class = "gthread"
threads = 4
# Longer than a person waits between two pages, and than a proxy keeps an idle connection to us:
# a connection closed by us just as the client reuses it fails that request (status 0 in the load).
keepalive = 75
