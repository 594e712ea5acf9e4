"""What annotation tells the layers above it. An upward need is a signal, not an import."""

from __future__ import annotations

from django.dispatch import Signal

# Sent once per job, inside the transaction that marks it complete (`job_id=`). Receivers that
# start work should do so on commit (Celery's `delay_on_commit`), as aggregation does.
job_completed = Signal()

# Sent by each live quality check to learn the current decisions of the job's label model on some of
# its items (`job=`, `items=`: a query of their ids), in the task type's decided labels. A receiver
# returns {"model": its name, "labels": {item id: label}} for the items it has decided; with none
# answering, no item is decided and the checks compare answers with the other workers' majority.
label_decisions = Signal()
