# The firmware's host runtime (uthctl/unix_port.py): MicroPython's unix port built
# from the pinned sources as a 32-bit program with asyncio frozen in, once per
# content; and each board's heap as its board file states it (uthctl/boards/heaps.py).
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from uthctl import unix_port
from uthctl.boards import REPO, heaps, sim_build

MICROPYTHON = Path(sys.executable).parent / "micropython"


def run(script, heap=None):
    command = [str(MICROPYTHON)] + (["-X", "heapsize=" + heap] if heap else []) + ["-c", script]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60,
                          env={"MICROPYPATH": ".frozen"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_installed_micropython_is_the_32_bit_port_with_asyncio_frozen():
    # A board's small ints are 31-bit: sys.maxsize is 2**31 - 1 there, 2**63 - 1 on 64-bit.
    found = run("import sys, asyncio; print(sys.maxsize, sys.implementation.version[:2])")
    assert found == "2147483647 (1, 28)"
    # Its banner names MicroPython's release, not the commit of the checkout it was built in.
    assert "; MicroPython v1.28.0 on " in run("import sys; print(sys.version)")


def test_the_installed_micropython_is_the_one_built_from_the_pinned_sources():
    assert MICROPYTHON.read_bytes() == unix_port.built().read_bytes()


@pytest.mark.parametrize("board,name", [("rp2040_pico", "HEAP_BYTES"),
                                        ("esp32_devkitc", "WROOM_HEAP_BYTES"),
                                        ("esp32_devkitc", "HEAP_BYTES")])
def test_the_port_runs_at_each_boards_heap_and_no_more(board, name):
    budget = heaps.budget(board, name)
    total = int(run("import gc; print(gc.mem_free() + gc.mem_alloc())", heaps.heapsize(budget)))
    assert budget <= total < budget + 128


def test_the_picos_heap_is_the_official_images():
    # 245,888 bytes: gc.mem_free() + gc.mem_alloc() on MicroPython v1.28.0's RPI_PICO
    # image, as ../shared/firmware-sources/README.md measured it on the emulated Pico.
    assert heaps.budget("rp2040_pico") == 245_888
    assert heaps.smallest() == ("rp2040_pico", 245_888)


def test_the_build_key_covers_the_archive_the_flags_and_the_manifest(tmp_path):
    other = tmp_path / "manifest.py"
    other.write_text(unix_port.MANIFEST.read_text() + "# changed\n")
    key = unix_port.build_key("a" * 64)
    assert unix_port.build_key("b" * 64) != key
    assert unix_port.build_key("a" * 64, other) != key
    assert unix_port.build_key("a" * 64) == key


def test_a_second_build_finds_the_first_and_builds_nothing(monkeypatch, tmp_path):
    from uthctl import firmware_sources

    _archive, digest = firmware_sources.checked_archive("micropython")
    cached = tmp_path / "unix-port" / unix_port.build_key(digest) / unix_port.DONE
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"built before")
    monkeypatch.setattr(unix_port, "_build", lambda *args: pytest.fail("built again"))
    assert unix_port.built(tmp_path) == cached


def test_without_gcc_multilib_the_setup_says_so_in_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(unix_port, "can_compile_32bit", lambda: False)
    with pytest.raises(unix_port.PortError) as error:
        unix_port.built(tmp_path)
    assert "gcc-multilib" in str(error.value) and "\n" not in str(error.value)


def test_the_virtual_boards_overhead_fits_what_its_board_file_adds():
    # bench/sim_overhead.py: the virtual board's boot and board, less a real board's modules.
    firmware, sim = sim_build.compiled(REPO)
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "flash.img")
        env = dict(os.environ, MICROPYPATH=os.pathsep.join([".frozen", str(firmware), str(sim)]),
                   UTH_SIM_FLASH=image, UTH_SIM_RTC=os.path.join(tmp, "rtc"), UTH_SIM_RATE="30")
        subprocess.run([str(MICROPYTHON), "-c", "import simboot; simboot.new_image(%r)" % image],
                       env=env, check=True, timeout=60)
        used = {}
        for kind in ("sim", "board"):
            done = subprocess.run([str(MICROPYTHON), "-X", "heapsize=1M",
                                   str(REPO / "bench" / "sim_overhead.py"), kind], env=env,
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0, done.stderr
            used[kind] = json.loads(done.stdout)["used"]
    overhead = used["sim"] - used["board"]
    assert 0 < overhead <= heaps.SIM_OVERHEAD
    assert heaps.sim_heapsize() == heaps.heapsize(heaps.budget("rp2040_pico") + heaps.SIM_OVERHEAD)
