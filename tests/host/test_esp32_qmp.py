# QMP's `stop` on this kit's QEMU, which the emulated ESP32's supervisor asks
# before it kills QEMU at a power-off or a cut, so that the flash file holds
# every flash operation the chip finished (uthctl/boards/qemu_qmp.py). Here
# the esp32 machine on an erased flash file: its ROM finds nothing to boot
# and goes on trying, and QMP answers all the same, in about a second.
import subprocess
import time

import pytest

from uthctl.boards import esp32_flash, esp32_uart, qemu_qmp
from uthctl.boards.supervisor import kill_and_reap, spawn_with_parent_death

WHY_NOT = esp32_flash.unavailable()


@pytest.fixture
def qemu(tmp_path):
    if WHY_NOT is not None:
        pytest.skip(str(WHY_NOT))
    flash = tmp_path / "flash.bin"
    # The board's size: at 4 MB this QEMU stops, "failed to read the initial flash content".
    flash.write_bytes(b"\xff" * esp32_flash.FLASH_SIZE)
    qmp = tmp_path / "qmp.sock"
    command = [str(esp32_flash.qemu()), "-L", str(esp32_flash.kit() / esp32_flash.ROM_FOLDER),
               "-machine", "esp32", "-display", "none", "-monitor", "none",
               "-drive", "file=%s,if=mtd,format=raw" % flash, "-serial", "null"]
    command += esp32_uart.qmp_option(str(qmp))
    proc = spawn_with_parent_death(command, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60.0
        while not qmp.exists():
            assert proc.poll() is None, "QEMU ended: %s" % proc.returncode
            assert time.monotonic() < deadline, "no QMP socket"
            time.sleep(0.05)
        yield str(qmp)
    finally:
        kill_and_reap(proc)


def status(qmp):
    return qemu_qmp.ask(qmp, "query-status", timeout=30.0)[0]["return"]


def test_stop_pauses_a_running_qemu(qemu):
    assert status(qemu)["running"] is True
    assert qemu_qmp.stop(qemu, timeout=30.0) is True
    after = status(qemu)
    assert (after["running"], after["status"]) == (False, "paused")


def test_stop_with_no_qemu_listening_is_false(tmp_path):
    # The supervisor then kills QEMU as it is: a stop never keeps a power-off waiting.
    assert qemu_qmp.stop(str(tmp_path / "no.sock"), timeout=1.0) is False
