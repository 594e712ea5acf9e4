"""Run one action in many threads released together, each on its own database connection."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection

from annotation.work.assignments import NoWorkError


def race(count: int, act: Callable[[int], Any]) -> list[BaseException]:
    """Run `act(n)` in `count` threads released together; returns what they raised.

    Losing a race for work (`NoWorkError`) is an answer, not a failure, so it is not returned.
    """
    barrier, errors = threading.Barrier(count), []

    def run(n: int) -> None:
        try:
            barrier.wait()
            act(n)
        except NoWorkError:
            pass
        except BaseException as error:  # collected and re-raised by the test, never swallowed
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors
