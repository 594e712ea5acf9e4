"""Building a release from the releases page: a background operation (operations.registry) whose log
shows each stage as it ends, so the page follows the build while it runs and no web request waits on it."""

from __future__ import annotations

from export.splits import SplitPlan, SplitPlanError
from operations.registry import OperationFailedError, Progress, register

BUILD_RELEASE = "export.build_release"


class _StageLines:
    """A stream for config.progress.Lines: each finished stage becomes one step of the operation."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress

    def write(self, text: str, /) -> object:
        self.progress.step(text.strip())
        return None

    def isatty(self) -> bool:
        return False


@register(BUILD_RELEASE)
def build_release_operation(
    progress: Progress, version: str, notes: str = "", split_seed: int | None = None
) -> None:
    """Build release `version` (re-splitting the claims with `split_seed` first, when given)."""
    # Here, not above: Django imports this module whenever it starts (the export app registers the
    # operation), and the release services load the exporters, the checks and NumPy.
    from config.progress import Lines
    from export.services import ReleaseExistsError, ReleaseVersionError, build_release

    try:
        plan = None if split_seed is None else SplitPlan(seed=split_seed)
        release = build_release(version, split_plan=plan, notes=notes, progress=Lines(_StageLines(progress)))
    except (ReleaseExistsError, ReleaseVersionError, SplitPlanError) as error:
        raise OperationFailedError(str(error)) from None
    progress.step(f"release {release.version}: {len(release.files)} files")
    progress.result("release", release.version)
