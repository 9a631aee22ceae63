# The checkout uthctl runs from: its firmware, boards/ and build/, found from
# this file's place (host_tools/uthctl/), by the boards and the builds alike.
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# uthctl builds, deploys and runs the firmware from the project's own files, so
# it is installed from a checkout with `pip install -e` (as `make setup` does).
# A copy installed without them (a wheel) would fail at its first board file
# with a traceback; it says so in one line instead.
if not (REPO / "boards" / "sim" / "board.py").is_file():
    raise SystemExit("uthctl: the project's checkout is not beside this copy (no %s): install "
                     "it from a checkout with `pip install -e CHECKOUT` (as `make setup` does)"
                     % (REPO / "boards"))
