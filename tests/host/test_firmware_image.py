"""The image build's key and cache (uthctl/firmware_image.py), without building an image."""

import os

import pytest

from uthctl import firmware_image

BOARD = "rp2040_pico"


def key_of(tmp_path, name, root=firmware_image.ROOT):
    staged = tmp_path / name
    firmware_image.stage(BOARD, root, staged)
    return firmware_image.image_key(staged, 1_700_000_000, ["a" * 64, "b" * 64])


def test_the_key_follows_every_frozen_file_and_nothing_else(tmp_path):
    import shutil

    first = key_of(tmp_path, "one")
    assert key_of(tmp_path, "two") == first  # staged again: the same content, the same key
    copy = tmp_path / "checkout"
    shutil.copytree(firmware_image.ROOT / "firmware", copy / "firmware")
    shutil.copytree(firmware_image.ROOT / "boards" / BOARD, copy / "boards" / BOARD)
    shutil.copy(firmware_image.ROOT / "pyproject.toml", copy)
    assert key_of(tmp_path, "three", copy) == first  # another folder, the same key
    board = copy / "boards" / BOARD / "board.py"
    board.write_text(board.read_text() + "\n")
    assert key_of(tmp_path, "four", copy) != first


def test_the_staged_tree_freezes_build_info_of_this_build(tmp_path):
    from uthctl.build_mpy import build_hash, project_version

    manifest = firmware_image.stage(BOARD, firmware_image.ROOT, tmp_path / "stage")
    info = (tmp_path / "stage" / "firmware" / "table" / "build_info.py").read_text()
    assert "VERSION = %r" % project_version() in info
    assert "BUILD = %r" % build_hash(BOARD) in info
    assert manifest.read_text() == (firmware_image.ROOT / "boards" / BOARD /
                                   "manifest.py").read_text()


def test_an_unknown_board_is_one_line(tmp_path):
    with pytest.raises(firmware_image.ImageError, match="no image for BOARD=sim"):
        firmware_image.build_image("sim", build=tmp_path)


def test_a_second_make_image_with_nothing_changed_rebuilds_nothing(tmp_path):
    out = firmware_image.ROOT / "build" / "images" / BOARD
    uf2 = out / "firmware.uf2"
    _, key, _ = firmware_image.prepare(BOARD, firmware_image.ROOT, tmp_path / "images")
    if not firmware_image.up_to_date(out, key):
        pytest.skip("the image is not this checkout's: make image (make test builds it first)")
    said = []
    before = uf2.stat().st_mtime_ns
    firmware_image.build_image(BOARD, say=said.append)
    assert len(said) == 1 and "up to date" in said[0], said
    assert uf2.stat().st_mtime_ns == before


def test_the_banners_date_is_the_commits_time(monkeypatch):
    import subprocess

    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    head = subprocess.run(["git", "-C", str(firmware_image.ROOT), "show", "-s", "--format=%ct",
                           "HEAD"], capture_output=True, text=True, check=True).stdout
    assert firmware_image.source_epoch() == int(head)
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1234567890")
    assert firmware_image.source_epoch() == 1234567890


def test_outside_a_git_checkout_the_date_must_be_given(monkeypatch, tmp_path):
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    with pytest.raises(firmware_image.ImageError, match="SOURCE_DATE_EPOCH"):
        firmware_image.source_epoch(tmp_path)


def test_the_boards_extent_of_the_built_image_is_its_uf2_files_pages():
    import struct

    from table.flash_image import FLASH_START, image_length
    from uthctl.analysis.program_digest import uf2_image

    uf2 = firmware_image.ROOT / "build" / "images" / BOARD / "firmware.uf2"
    if not uf2.is_file():
        pytest.skip("no image: make image (make test builds it first)")
    image = uf2_image(uf2)
    padded = image + b"\xff" * 4096  # flash goes on past the image

    def word(address):
        return struct.unpack_from("<I", padded, address - FLASH_START)[0]
    assert image_length(word) == len(image)


def test_the_extent_of_the_official_image_is_its_uf2_files_pages():
    # Its binary info packs MicroPython's pin names at odd addresses, which a
    # board's machine.mem32 refuses to read: the `.mpy` path's authenticate
    # looks at the image's extent first.
    import struct

    from table.flash_image import FLASH_START, image_length
    from uthctl.analysis.program_digest import uf2_image
    from uthctl.boards import pico_image

    try:
        uf2 = pico_image.official_firmware()
    except pico_image.PicoUnavailable as why:
        pytest.skip(str(why))
    image = uf2_image(uf2)
    padded = image + b"\xff" * 4096

    def mem32(address):
        if address % 4:
            raise ValueError("address %x is not aligned to 4 bytes" % address)
        return struct.unpack_from("<I", padded, address - FLASH_START)[0]
    assert image_length(mem32) == len(image)


def test_a_failed_build_step_names_its_log(tmp_path):
    log = tmp_path / "build.log"
    firmware_image.run(["sh", "-c", "echo linking"], dict(os.environ), log)
    assert "linking" in log.read_text()
    with pytest.raises(firmware_image.ImageError, match="failed .exit 3.; its log"):
        firmware_image.run(["sh", "-c", "exit 3"], dict(os.environ), log)
