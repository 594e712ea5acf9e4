"""Where database, transactions and markets meet: views, tasks and commands call these modules.

Import a service from the module that defines it (`from annotation.work.jobs import create_job`).
The pure parts of planning a job (bundling, costs, amounts) live in `annotation.planning`.
"""
