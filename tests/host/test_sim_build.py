# The virtual board's own build (host_tools/uthctl/boards/sim_build.py): the
# firmware and the board's modules compiled once per content, reused while
# nothing changes, built again when one byte of a source does, and a source
# that does not compile named rather than run.
import shutil
from pathlib import Path

import pytest
from build_identity import sources_hash

from uthctl.boards import sim_build

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "project"
    for part in ("firmware", "boards/sim"):
        shutil.copytree(ROOT / part, root / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", root)
    return root


def _built(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())


def test_the_build_holds_every_module_compiled_and_is_reused(project, tmp_path):
    firmware, board = sim_build.compiled(project, tmp_path / "cache")
    sources = sorted(p.relative_to(project / "firmware").with_suffix(".mpy").as_posix()
                     for p in (project / "firmware").rglob("*.py") if p.name != "main.py")
    assert set(sources) <= set(_built(firmware))
    assert {"board.mpy", "main.py", "table/build_info.mpy"} <= set(_built(firmware))
    assert _built(board) == sorted(p.with_suffix(".mpy").name
                                   for p in (project / "boards" / "sim").glob("*.py")
                                   if p.name != "board.py")
    stamp = (firmware / "table" / "app.mpy").stat().st_mtime_ns
    assert sim_build.compiled(project, tmp_path / "cache") == (firmware, board)
    assert (firmware / "table" / "app.mpy").stat().st_mtime_ns == stamp  # not compiled again


def test_one_byte_changed_is_a_new_build_with_its_own_hash(project, tmp_path):
    first, _ = sim_build.compiled(project, tmp_path / "cache")
    clock = project / "firmware" / "table" / "clock.py"
    clock.write_bytes(clock.read_bytes() + b"\n")
    second, _ = sim_build.compiled(project, tmp_path / "cache")
    assert second != first
    info = (second / "table" / "build_info.mpy").read_bytes()
    assert sources_hash("sim", project).encode() in info  # the hash `status` reports


def test_a_source_that_does_not_compile_is_named(project, tmp_path):
    (project / "firmware" / "table" / "clock.py").write_text("def broken(:\n")
    with pytest.raises(OSError, match="clock.py"):
        sim_build.compiled(project, tmp_path / "cache")
    assert not list((tmp_path / "cache").glob("*/sim"))  # nothing half built is kept
