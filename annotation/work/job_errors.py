"""What a job's creation or lifecycle refuses, each with a message for the person who asked."""


class JobError(ValueError):
    """A job that cannot be created as asked."""


class NoItemsError(JobError):
    """The filters choose no items: there is nothing to annotate (a pipeline step then makes no job)."""


class JobStateError(RuntimeError):
    """An action the job's current state does not allow."""


class BudgetError(JobError):
    """Publishing would cost more than the job's budget allows."""
