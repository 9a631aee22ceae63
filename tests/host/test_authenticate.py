# `uthctl authenticate`: on each board the program it runs matches the
# approved one (the virtual board: its build's files, compared with a build
# made here by `make build`'s own builder; the emulated ESP32: the
# esp32_devkitc build's files the same way, its flash's test stand-ins named
# apart; the emulated Pico: the project's image, compared with
# build/images/rp2040_pico/firmware.uf2), and one byte
# changed in the approved copy, or an answer replayed to another seed, does
# not match. It answers in the fault state too.
import json
import shutil

import pytest

from uthctl import build_mpy
from uthctl.analysis import program_digest
from uthctl.boards import pico_image
from uthctl.cli import main as uthctl

pytestmark = pytest.mark.pico_quick


@pytest.fixture
def approved(tmp_path, target):
    # The approved program for the target's board, as a copy the test may change.
    if target.name == "sim":
        assert build_mpy.build(tmp_path / "build", "sim", "x64") == []
        return "--build", tmp_path / "build" / "sim"
    if target.name == "esp32":
        assert build_mpy.build(tmp_path / "build", "esp32_devkitc", "xtensawin") == []
        return "--build", tmp_path / "build" / "esp32_devkitc"
    copy = tmp_path / "firmware.uf2"
    shutil.copyfile(pico_image.project_image_path(), copy)
    return "--image", copy


# The code the board's flash holds beside its program, named in the reply and
# not covered by the digest: on the emulated ESP32, its bus stand-ins and the
# /boot.py that installs them (esp32_flash.STANDIN_MODULES, STANDIN_BOOT);
# None where the program is an image.
BESIDE = {"sim": [], "esp32": ["boot.py", "mcp23017_model.mpy", "standin.mpy"], "pico": None}


def flip_a_byte(kind, path):
    # One byte of the program's bytes, well inside it (not UF2 framing).
    if kind == "--image":
        at = 512 * 40 + 32 + 100  # in the 41st block's payload
    else:
        path = path / "lib" / "table" / "controller.mpy"
        at = path.stat().st_size // 2
    data = bytearray(path.read_bytes())
    data[at] ^= 0x01
    path.write_bytes(bytes(data))


def authenticate(table, capsys, kind, path):
    # (exit code, the --json verdict) of `uthctl authenticate` on the table's board.
    capsys.readouterr()
    code = uthctl(["authenticate", "--port", table.port, kind, str(path), "--json",
                   "--timeout", "%g" % table.target.wait(5.0)])
    return code, json.loads(capsys.readouterr().out)


def test_authenticate_matches_the_approved_program_and_not_a_changed_one(cli_table, capsys,
                                                                          approved):
    kind, path = approved
    code, found = authenticate(cli_table, capsys, kind, path)
    assert (code, found["match"]) == (0, True), found
    assert found["program"] == ("files" if kind == "--build" else "image")
    assert found["answered"] == found["expected"] and found["bytes"] == found["expected_bytes"]
    assert found["others"] == BESIDE[cli_table.target.name], found
    flip_a_byte(kind, path)
    code, changed = authenticate(cli_table, capsys, kind, path)
    assert (code, changed["match"]) == (1, False), changed
    assert changed["answered"] != changed["expected"]


def test_an_answer_replayed_to_another_seed_does_not_match(cli_table, approved):
    kind, path = approved
    option = {"--image": "image", "--build": "build"}[kind]
    with cli_table.target.link(cli_table.port, timeout=60.0) as link:
        reply = link.command("authenticate", seed="0123456789abcdef")
    assert program_digest.verdict(reply, "0123456789abcdef", **{option: path})["match"]
    assert not program_digest.verdict(reply, "fedcba9876543210", **{option: path})["match"]


@pytest.mark.target("sim")
def test_authenticate_answers_in_the_fault_state(tmp_path, target, capsys):
    # A flash that does not mount faults the controller; the program is still its build.
    from uthctl.boards.virtual import VirtualBoard

    assert build_mpy.build(tmp_path / "build", "sim", "x64") == []
    junk = tmp_path / "junk.img"
    junk.write_bytes(b"not a littlefs image\n" * 1000)
    board = VirtualBoard(flash=junk).start()
    try:
        assert board.wait_started()["state"] == "fault"
        capsys.readouterr()
        assert uthctl(["authenticate", "--port", board.serial_path, "--build",
                       str(tmp_path / "build" / "sim"), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["match"] is True
    finally:
        board.stop()
