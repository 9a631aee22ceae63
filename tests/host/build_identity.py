# What a board's firmware should report of itself in `status`, computed here
# from the sources rather than by tools/build_mpy.py: the project's version,
# and the build's hash as docs/boards.md describes it (SHA-256 over every firmware .py
# file and the board's board.py, sorted by path from the project's root, each
# as "path\nlength\n" and then its bytes).
import hashlib
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]


def sources_hash(board, root=REPO):
    files = list((root / "firmware").rglob("*.py"))
    files += list((root / "boards" / board).glob("board.py"))
    digest = hashlib.sha256()
    for name in sorted(path.relative_to(root).as_posix() for path in files):
        data = (root / name).read_bytes()
        digest.update(name.encode() + b"\n" + str(len(data)).encode() + b"\n" + data)
    return digest.hexdigest()


BUILDS = {"sim": "sim", "pico": "rp2040_pico", "esp32": "esp32_devkitc"}


def expected_identity(target_name):
    # The virtual board runs this checkout's sim build (boards/sim_build.py);
    # the emulated Pico the rp2040_pico build that `make deploy` copied to it;
    # the emulated ESP32 the esp32_devkitc build its flash file was made with.
    build = sources_hash(BUILDS[target_name])
    return {"version": VERSION, "build": build}
