"""What annotation tells the layers above it. An upward need is a signal, not an import."""

from __future__ import annotations

from django.dispatch import Signal

# Sent once per job, inside the transaction that marks it complete (`job_id=`). Receivers that
# start work should do so on commit (Celery's `delay_on_commit`), as aggregation does.
job_completed = Signal()
