"""The project's own Pico firmware image: MicroPython's rp2 port with the controller frozen in.

`make image BOARD=rp2040_pico` (tools/build_image.py) builds
`build/images/rp2040_pico/firmware.uf2` and `firmware.uf2.sha256` from the pinned sources
(firmware_sources.py): picotool and mpy-cross first, each once per content, then the image
from a staged copy of what it freezes (boards/rp2040_pico/manifest.py, the firmware and
table/build_info). Everything the build writes goes under build/, none into the unpacked
trees. The image is cached by the hash of everything that goes into it (its key), so a
second build with nothing changed only checks that key.

Reproducible: no absolute path, user, host or time reaches the image. Every compiler runs
with -ffile-prefix-map for each folder the build reads, the banner's date is
SOURCE_DATE_EPOCH (the checkout's commit time) and its version MicroPython's own tag, never
this checkout's git state.
"""

import hashlib
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from . import firmware_sources
from .build_mpy import BUILD_INFO, build_hash, project_version
from .logged_run import PROGRESS_EVERY_S, StepFailed, run_logged

ROOT = firmware_sources.ROOT
PORT_BOARD = {"rp2040_pico": "RPI_PICO"}
# MicroPython v1.28.0 (e0e9fbb1), as firmware-sources/README.md pins it.
MICROPY_TAG = "v1.28.0"
MICROPY_HASH = "e0e9fbb1"
TOOLS = ("arm-none-eabi-gcc", "cmake", "g++", "make")
DEBIAN_PACKAGES = ("cmake gcc-arm-none-eabi libnewlib-arm-none-eabi"
                   " libstdc++-arm-none-eabi-newlib g++")
JOBS = os.environ.get("UTH_IMAGE_JOBS", "2")
_PERCENT = re.compile(rb"^\[\s*(\d+)%\]")


class ImageError(Exception):
    """The image cannot be built: the message says why in one line."""


def missing_tools():
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if "arm-none-eabi-gcc" not in missing and not _arm_cxx_library():
        missing.append("the Arm C++ library")
    return missing


def _arm_cxx_library():
    # pico-sdk compiles one C++ file (new/delete), so the image needs the Arm
    # C++ library's headers, which gcc-arm-none-eabi does not pull in.
    if shutil.which("arm-none-eabi-g++") is None:
        return False
    done = subprocess.run(["arm-none-eabi-g++", "-print-file-name=libstdc++.a"],
                          capture_output=True, text=True)
    return done.returncode == 0 and os.path.isabs(done.stdout.strip())


def check_tools():
    missing = missing_tools()
    if missing:
        raise ImageError("make image: %s missing: apt-get install -y %s"
                         % (", ".join(missing), DEBIAN_PACKAGES))


def source_epoch(root=ROOT):
    # The checkout's commit time (a shallow clone has it too), or $SOURCE_DATE_EPOCH.
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    done = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%ct", "HEAD"],
                          capture_output=True, text=True)
    if done.returncode or not done.stdout.strip():
        raise ImageError("make image: %s is not a git checkout: set SOURCE_DATE_EPOCH" % root)
    return int(done.stdout.strip())


def stage(board, root, folder):
    # The manifest, the board file and the firmware laid out as in the checkout, with
    # table/build_info.py written in, so the manifest's relative paths find them all.
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(root / "firmware", folder / "firmware",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    board_folder = folder / "boards" / board
    board_folder.mkdir(parents=True)
    for name in ("manifest.py", "board.py"):
        shutil.copy(root / "boards" / board / name, board_folder / name)
    (folder / "firmware" / BUILD_INFO).write_text(
        "# Written by the image build: what `status` reports of this build.\n"
        "VERSION = %r\nBUILD = %r\n" % (project_version(root), build_hash(board, root)))
    return board_folder / "manifest.py"


def tree_digest(folder):
    # SHA-256 over every file under folder: its path from there, its length, its bytes.
    digest = hashlib.sha256()
    for path in sorted(p for p in Path(folder).rglob("*") if p.is_file()):
        data = path.read_bytes()
        digest.update(b"%s\n%d\n" % (path.relative_to(folder).as_posix().encode(), len(data)))
        digest.update(data)
    return digest.hexdigest()


def tool_versions():
    return "".join(subprocess.run([tool, "--version"], capture_output=True, text=True)
                   .stdout.split("\n")[0] + "\n" for tool in TOOLS)


def image_key(staged, epoch, archives):
    # Everything that goes into the image: what the manifest freezes, the sources'
    # archives, this builder, the banner's date and the tools' versions.
    digest = hashlib.sha256()
    for part in (tree_digest(staged), *archives, Path(__file__).read_text(), str(epoch),
                 tool_versions()):
        digest.update(part.encode() + b"\0")
    return digest.hexdigest()


def prefix_map(folders):
    return " ".join("-ffile-prefix-map=%s=%s" % (path, name) for path, name in folders)


def build_env(epoch, folders):
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(epoch), MICROPY_GIT_TAG=MICROPY_TAG,
               MICROPY_GIT_HASH=MICROPY_HASH, PYTHONDONTWRITEBYTECODE="1",
               LC_ALL="C", TZ="UTC")
    flags = prefix_map(folders)
    for name in ("CFLAGS", "CXXFLAGS", "ASMFLAGS"):
        env[name] = flags
    # No git above the unpacked trees: a build inside a checkout never reads its state.
    env["GIT_CEILING_DIRECTORIES"] = ":".join(str(path.parent) for path, _ in folders)
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    return env


def run(command, env, log, say=None, step=None):
    # The command's output into the log, with a progress line every
    # PROGRESS_EVERY_S (logged_run.py), so a build of minutes shows it is working.
    with open(log, "ab") as out:
        try:
            run_logged(command, env, out, say, step)
        except StepFailed as failed:
            raise ImageError("make image: %s failed (exit %d); its log: %s"
                             % (Path(str(command[0])).name, failed.returncode, log)) from None


def picotool(micropython, build, env, log, say=None):
    # picotool without USB (the build only turns the ELF into a UF2), once per content.
    source = firmware_sources.unpacked("picotool", build)
    prefix = build / "tools" / source.parent.name
    if not (prefix / "picotool" / "picotoolConfig.cmake").is_file():
        work = build / "tools" / (source.parent.name + "-build")
        shutil.rmtree(work, ignore_errors=True)
        run(["cmake", "-S", source, "-B", work, "-DPICOTOOL_NO_LIBUSB=1",
             "-DCMAKE_INSTALL_PREFIX=%s" % prefix, "-DPICOTOOL_FLAT_INSTALL=1",
             "-DPICO_SDK_PATH=%s" % (micropython / "lib" / "pico-sdk")], env, log, say,
            "picotool (once)")
        run(["make", "-C", work, "-j" + JOBS, "install"], env, log, say, "picotool (once)")
        shutil.rmtree(work, ignore_errors=True)
    return prefix / "picotool"


def mpy_cross(micropython, build, env, log, say=None):
    # MicroPython's own compiler for the frozen modules, built outside its tree.
    out = build / "tools" / ("mpy-cross-" + micropython.parent.name)
    program = out / "mpy-cross"
    if not program.is_file():
        run(["make", "-C", micropython / "mpy-cross", "-j" + JOBS, "BUILD=%s" % out], env, log,
            say, "mpy-cross (once)")
    return program


def prepare(board, root, out):
    # The staged tree's manifest, the image's key and the banner's date.
    out.mkdir(parents=True, exist_ok=True)
    archives = [firmware_sources.checked_archive(name)[1] for name in firmware_sources.ARCHIVES]
    epoch = source_epoch(root)
    manifest = stage(board, root, out / "stage")
    return manifest, image_key(out / "stage", epoch, archives), epoch


def up_to_date(out, key):
    key_file = out / "key"
    return ((out / "firmware.uf2").is_file() and key_file.is_file()
            and key_file.read_text().strip() == key)


def build_image(board="rp2040_pico", root=ROOT, build=None, micropython=None, tools=None,
                say=None):
    """Builds (or finds cached) the board's image; returns its folder under build/images."""
    say = say or _say
    root = Path(root).resolve()
    build = Path(build).resolve() if build else root / "build"
    tools_build = Path(tools).resolve() if tools else build
    if board not in PORT_BOARD:
        raise ImageError("make image: no image for BOARD=%s (one of %s)"
                         % (board, ", ".join(PORT_BOARD)))
    check_tools()
    out = build / "images" / board
    manifest, key, epoch = prepare(board, root, out)
    uf2 = out / "firmware.uf2"
    if up_to_date(out, key):
        say("%s: image up to date (key %s)" % (board, key[:12]))
        return out
    micropython = Path(micropython) if micropython else firmware_sources.unpacked(
        "micropython", tools_build)
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    log = out / "build.log"
    log.write_text("")
    folders = [(micropython, "micropython"), (work, "build"), (out / "stage", "stage"),
               (tools_build / "tools", "tools")]
    env = build_env(epoch, folders)
    say("%s: building the image, 1-4 minutes on an idle 2-core machine and more on a busy "
        "one; a line every %d s says how far (log %s)" % (board, PROGRESS_EVERY_S, log))
    env["MICROPY_MPYCROSS"] = str(mpy_cross(micropython, tools_build, env, log, say))
    tool = picotool(micropython, tools_build, env, log, say)
    # The port's Makefile adds to CMAKE_ARGS itself: picotool's folder goes by the environment.
    env["picotool_DIR"] = str(tool)
    run(["make", "-C", micropython / "ports" / "rp2", "BOARD=" + PORT_BOARD[board],
         "-j" + JOBS, "BUILD=%s" % work, "FROZEN_MANIFEST=%s" % manifest], env, log, say,
        "the image")
    shutil.copy(work / "firmware.uf2", uf2)
    digest = hashlib.sha256(uf2.read_bytes()).hexdigest()
    (out / "firmware.uf2.sha256").write_text("%s  firmware.uf2\n" % digest)
    (out / "key").write_text(key + "\n")
    (out / "source_date_epoch").write_text("%d\n" % epoch)
    shutil.rmtree(work, ignore_errors=True)
    say("%s: %s  sha256 %s" % (board, uf2.relative_to(root) if uf2.is_relative_to(root)
                               else uf2, digest))
    return out


def _say(text):
    print(text, flush=True)  # under make the output is a pipe: each line as it comes


def main(argv=None):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--board", default="rp2040_pico")
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to build from")
    parser.add_argument("--build", type=Path, help="its build folder (ROOT/build)")
    parser.add_argument("--tools", type=Path,
                        help="the build folder whose sources and tools to use (--build)")
    args = parser.parse_args(argv)
    try:
        build_image(args.board, args.root, args.build, tools=args.tools)
    except (ImageError, firmware_sources.SourcesError) as error:
        print(error, file=sys.stderr)
        return 1
    return 0
