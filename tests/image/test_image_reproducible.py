"""The Pico image is reproducible: built again from a copy of this checkout in another folder,
with the MicroPython tree at another path too, it is the same file byte for byte, and it
holds no path, user or host name of either build, and its banner's date is the commit's.

Minutes long (a whole image build): marked image_build, run by `make test-image` after
`make image`. The second build reuses the first's picotool and mpy-cross (tools, not what
the image holds) and compiles the image itself again.
"""

import datetime
import getpass
import hashlib
import os
import re
import shutil
import socket
import subprocess

import pytest

from uthctl import firmware_image, firmware_sources

pytestmark = pytest.mark.image_build

ROOT = firmware_image.ROOT
BOARD = "rp2040_pico"
FIRST = ROOT / "build" / "images" / BOARD / "firmware.uf2"
# What the build reads from a checkout (the builder runs from this one).
COPIED = ("firmware", "boards/" + BOARD, "pyproject.toml")


def copy_checkout(target):
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy(source, target / name)


def first_epoch():
    # The banner's date the first build used (its commit's time, test_firmware_image.py).
    return int((FIRST.parent / "source_date_epoch").read_text())


def printable_strings(data, least=6):
    return [match.decode() for match in re.findall(rb"[\x20-\x7e]{%d,}" % least, data)]


@pytest.fixture(scope="module")
def second(tmp_path_factory):
    if not FIRST.is_file():
        pytest.fail("no %s: run make image first (make test-image does)" % FIRST, pytrace=False)
    other = tmp_path_factory.mktemp("another-checkout") / "uth"
    other.mkdir()
    copy_checkout(other)
    # The unpacked MicroPython tree at another path (hard links: nothing writes into it).
    tree = firmware_sources.unpacked("micropython")
    moved = other / "build" / "sources" / tree.parent.name / tree.name
    moved.parent.mkdir(parents=True)
    subprocess.run(["cp", "-al", str(tree), str(moved)], check=True)
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(first_epoch()))
    done = subprocess.run(
        [str(ROOT / ".venv" / "bin" / "python"), "-c",
         "import sys; from uthctl.firmware_image import build_image; "
         "build_image(root=sys.argv[1], build=sys.argv[1] + '/build', micropython=sys.argv[2], "
         "tools=sys.argv[3])", str(other), str(moved), str(ROOT / "build")],
        env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout + done.stderr
    return other, other / "build" / "images" / BOARD / "firmware.uf2"


def test_a_second_build_elsewhere_is_the_same_image_byte_for_byte(second):
    _, uf2 = second
    first, again = FIRST.read_bytes(), uf2.read_bytes()
    assert hashlib.sha256(again).hexdigest() == hashlib.sha256(first).hexdigest()
    recorded = (FIRST.parent / "firmware.uf2.sha256").read_text().split()[0]
    assert recorded == hashlib.sha256(first).hexdigest()


def test_the_image_holds_no_path_user_host_or_build_time(second):
    other, _ = second
    text = "\n".join(printable_strings(FIRST.read_bytes()))
    for place in (str(ROOT), str(other), str(ROOT.parent), "/home/", "/tmp/", "/work/"):
        assert place not in text, place
    for name in {getpass.getuser(), socket.gethostname()} - {"", "root"}:
        assert not re.search(r"\b%s\b" % re.escape(name), text), name
    day = datetime.datetime.fromtimestamp(first_epoch(), datetime.timezone.utc).date()
    assert re.findall(r"MicroPython v1\.28\.0 on (\d{4}-\d\d-\d\d)", text) == [day.isoformat()]
