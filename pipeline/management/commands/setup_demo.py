"""Everything `make run` needs after migrating: the release imported, the demo pipeline run over the
saved debate pages with the simulated crowd, and a staff login printed."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from corpus.models import Claim
from corpus.services import already_imported
from pipeline.demo import done_steps, reused_line, run_demo
from pipeline.models import StepRun, StepState
from pipeline.services import PipelineError

STAFF_USERNAME = "admin"


class Command(BaseCommand):
    _reused: set[str] = set()
    help = "Import the PERSPECTRUM release, run the simulated demo pipeline, and create a staff login."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--username", default=STAFF_USERNAME)
        parser.add_argument("--no-pipeline", action="store_true", help="skip the demo pipeline run")
        parser.add_argument(
            "--url", default=None, help="where the platform will be served (default: the PUBLIC_URL setting)"
        )

    def handle(self, *args: Any, username: str, no_pipeline: bool, url: str | None, **options: Any) -> None:
        release_dir = settings.PERSPECTRUM_DIR
        if (release_dir / "perspectrum_with_answers_v1.0.json").exists():
            self._import_once(release_dir)
        elif not Claim.objects.filter(text_missing=False).exists():
            target = settings.DATA_DIR / "perspectrum"
            self.stdout.write(f"{release_dir} has no release; downloading it into {target}")
            try:
                call_command("import_perspectrum", str(target), download=True, stdout=self.stdout)
            except CommandError as error:
                self.stderr.write(f"The release was not imported: {error}")
        if not no_pipeline:
            self._run_demo_pipeline()
        self._print_login(username, (url or settings.PUBLIC_URL).rstrip("/"))

    def _import_once(self, release_dir: Path) -> None:
        """Import the release unless these very files were imported before (by checksum)."""
        done = already_imported(release_dir)
        if done is not None:
            self.stdout.write(f"{done}: already imported, not imported again")
            return
        call_command("import_perspectrum", str(release_dir), stdout=self.stdout)

    def _run_demo_pipeline(self) -> None:
        self._say("Demo pipeline over the saved debate pages, with the SIMULATED crowd:")
        self._reused = done_steps()
        try:
            run_demo(on_step_end=self._say_step)
        except PipelineError as error:
            self.stderr.write(
                f"The demo pipeline stopped: {error}. The platform starts anyway; see the admin."
            )
            return
        self._say("  the home page links every step, job, dashboard and release")

    def _say_step(self, step: StepRun) -> None:
        if step.name in self._reused and step.state == StepState.DONE:
            self._say(reused_line(step))
        else:
            self._say(f"  {step.name}: {step.state} — {step.message}")

    def _say(self, line: str) -> None:
        """One line, shown now: a pipe (make, a log collector) would otherwise hold it back."""
        self.stdout.write(line)
        self.stdout.flush()

    def _print_login(self, username: str, url: str) -> None:
        password_file = settings.VAR_DIR / "staff_password"
        user = User.objects.filter(username=username).first()
        if user is None or not password_file.exists():
            password = secrets.token_urlsafe(12)
            user = user or User(username=username, email=f"{username}@localhost")
            user.is_staff = user.is_superuser = True
            user.set_password(password)
            user.save()
            settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
            password_file.write_text(password)
            password_file.chmod(0o600)
        self.stdout.write(
            f"Staff login for {url}/ : {username} / {password_file.read_text().strip()}"
            f"  (stored in {password_file})"
        )
