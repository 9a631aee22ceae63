# uthctl installed without its checkout (a wheel) says in one line what it
# lacks and how to install it, rather than a traceback from a board file.
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_uthctl_away_from_its_checkout_says_how_to_install_it(tmp_path):
    site = tmp_path / "lib" / "python" / "site-packages"  # as a wheel lays it out
    shutil.copytree(REPO / "host_tools" / "uthctl", site / "uthctl")
    for package in ("uth", "mystery", "table"):
        shutil.copytree(REPO / "firmware" / package, site / package)
    ran = subprocess.run([sys.executable, "-c", "from uthctl.cli import main; main()", "--help"],
                         cwd=tmp_path, env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 1, ran
    assert "Traceback" not in ran.stderr, ran.stderr
    boards = site.parent / "boards"
    assert ran.stderr.strip().splitlines() == [
        "uthctl: the project's checkout is not beside this copy (no %s): install it from a "
        "checkout with `pip install -e CHECKOUT` (as `make setup` does)" % boards]


def test_uthctl_in_its_checkout_starts():
    ran = subprocess.run([sys.executable, "-m", "uthctl.cli", "--help"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0, ran.stderr
    assert "usage: uthctl" in ran.stdout
