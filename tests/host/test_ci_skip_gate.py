# Under CI=true a skip not in tests/ci_skips.py fails the run; without it the
# run passes and names its skips; a deselected test is no skip; an allowed
# skip passes in CI too. Each case is a pytest of its own on a small file.
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CASES = "tests/host/skip_gate_cases/cases.py"
SKIPPED = CASES + "::test_that_skips"
WEAR = "tests/host/test_pico_flash_wear.py"


def pytest_run(tmp_path, ci, *args):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci:
        env["CI"] = "true"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "--basetemp", str(tmp_path / "run"), *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=300)


def test_a_skip_outside_the_list_fails_a_ci_run_and_is_named(tmp_path):
    done = pytest_run(tmp_path, True, CASES)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 passed, 1 skipped" in done.stdout
    assert "%s: a part this machine lacks" % SKIPPED in done.stdout
    assert "1 of these skips are not in tests/ci_skips.py, so the run fails" in done.stdout


def test_without_ci_the_same_skip_passes_and_is_named(tmp_path):
    done = pytest_run(tmp_path, False, CASES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped:" in done.stdout and SKIPPED in done.stdout
    assert "with CI=true, 1 of these would fail the run" in done.stdout


def test_a_deselected_test_is_no_skip(tmp_path):
    done = pytest_run(tmp_path, True, CASES, "-k", "passes")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed, 1 deselected" in done.stdout and "skipped" not in done.stdout


def test_a_skip_on_the_list_passes_a_ci_run(tmp_path):
    # The opt-in wear run, collected by a mark expression that does not name
    # pico_slow (make test's Pico lane), skips: allowed, with its reason.
    done = pytest_run(tmp_path, True, "-m", "pico", WEAR)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 skipped:" in done.stdout and "(may skip in CI: tests/ci_skips.py)" in done.stdout
