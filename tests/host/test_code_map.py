# docs/development.md's map of the code names every folder a developer meets:
# each top-level folder, each under boards/, firmware/, tests/ and tools/, and
# each of host_tools/uthctl's parts. A folder is named by its path with a
# trailing slash, or by "name/" opening an indented line under its parent.
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LISTED_BELOW = ("boards", "firmware", "tests", "tools", "host_tools", "host_tools/uthctl")


def _layout():
    text = (ROOT / "docs" / "development.md").read_text()
    return text.split("## Layout", 1)[1].split("```")[1]


def _tracked_folders():
    # The folders git holds (a checkout's build/ or .venv/ are not code).
    files = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                           check=True).stdout.split()
    folders = set()
    for path in files:
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            parent = "/".join(parts[:depth - 1])
            if not folder.startswith(".") and (depth == 1 or parent in LISTED_BELOW):
                folders.add(folder)
    return folders


def _named(folder, layout):
    name = folder.rsplit("/", 1)[-1]
    return (folder + "/" in layout
            or re.search(r"^\s+" + re.escape(name) + r"/", layout, re.M) is not None)


def test_every_folder_is_on_the_map():
    layout = _layout()
    missing = sorted(f for f in _tracked_folders() if not _named(f, layout))
    assert not missing, "docs/development.md's layout does not name: %s" % ", ".join(missing)
