# Under CI=true a skipped test fails the run unless tests/ci_skips.py names it:
# a part missing from the machine (node, PostgreSQL, a browser) must not pass
# for green. Every run, CI or not, ends with the count of skips and each one
# named with its reason. Registered by tests/conftest.py.
import fnmatch
import os

import pytest
from ci_skips import ALLOWED


def ci_mode():
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def allowed_reason(nodeid):
    for pattern, why in ALLOWED.items():
        if fnmatch.fnmatchcase(nodeid, pattern):
            return why
    return None


def skip_reason(report):
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


class SkipGate:
    def __init__(self):
        self.skips = []  # (nodeid, reason, why it may skip in CI or None)

    def _record(self, report):
        if report.skipped and not hasattr(report, "wasxfail"):
            self.skips.append((report.nodeid, skip_reason(report), allowed_reason(report.nodeid)))

    def pytest_runtest_logreport(self, report):
        self._record(report)

    def pytest_collectreport(self, report):
        self._record(report)

    def refused(self):
        return [skip for skip in self.skips if skip[2] is None]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session):
        if ci_mode() and self.refused() and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter):
        if not self.skips:
            return
        write = terminalreporter.write_line
        write("%d skipped:" % len(self.skips))
        for nodeid, reason, allowed in self.skips:
            write("  %s: %s%s" % (nodeid, reason,
                                  " (may skip in CI: tests/ci_skips.py)" if allowed else ""))
        refused = len(self.refused())
        if refused and ci_mode():
            write("CI=true: %d of these skips are not in tests/ci_skips.py, so the run fails"
                  % refused, red=True, bold=True)
        elif refused:
            write("(with CI=true, %d of these would fail the run: tests/ci_skips.py)" % refused)
