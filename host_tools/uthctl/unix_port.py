"""The firmware's host runtime: MicroPython's unix port built as a 32-bit program.

A board's heap is 32-bit (4-byte words, 16-byte GC blocks, 31-bit small ints), so the
logic tests, the virtual board, the heap census and the benchmarks run the unix port of
the pinned sources (firmware_sources.py) built with MICROPY_FORCE_32BIT=1 and asyncio
frozen in (tools/unix_port_manifest.py). The build goes to build/unix-port/<key>/,
outside the unpacked tree, where key covers the archive's hash, the build's flags and
the manifest: a second `make setup` finds it and builds nothing.
"""

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import firmware_sources
from .logged_run import StepFailed, run_logged

ROOT = firmware_sources.ROOT
MANIFEST = ROOT / "tools" / "unix_port_manifest.py"
# The 32-bit build as ../shared/firmware-sources/README.md gives it; the foreign
# function interface, TLS and btree are left out (no board has them).
FLAGS = ("VARIANT=standard", "MICROPY_FORCE_32BIT=1", "MICROPY_PY_FFI=0",
         "MICROPY_PY_SSL=0", "MICROPY_PY_BTREE=0")
MULTILIB = ("make setup: the 32-bit MicroPython needs gcc-multilib: "
            "apt-get install gcc-multilib (as root), then make setup again")
DONE = "micropython"
RECIPE = "2"  # how _build builds, in the key: a change to it builds again


class PortError(Exception):
    """A build that cannot be made here: the message says why in one line."""


def build_key(archive_digest, manifest=MANIFEST):
    digest = hashlib.sha256(archive_digest.encode())
    digest.update(RECIPE.encode())
    digest.update("\n".join(FLAGS).encode())
    digest.update(Path(manifest).read_bytes())
    return digest.hexdigest()[:16]


def can_compile_32bit(cc="cc"):
    # gcc-multilib gives gcc its 32-bit C library; without it `-m32` cannot link.
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "probe.c"
        source.write_text("int main(void) { return 0; }\n")
        try:
            done = subprocess.run([cc, "-m32", str(source), "-o", str(Path(folder) / "probe")],
                                  capture_output=True)
        except OSError:
            return False
        return done.returncode == 0


def _make(folder, *args, log, tree, step):
    # The unpacked tree sits inside this checkout: without a ceiling, the build's
    # `git describe` would name this project's commit as MicroPython's version.
    env = dict(os.environ, GIT_CEILING_DIRECTORIES=str(tree.parent))
    try:
        run_logged(["make", "-C", str(folder), "-j%d" % (os.cpu_count() or 2), *args], env, log,
                   _say, step)
    except StepFailed:
        raise PortError("make setup: the 32-bit MicroPython did not build; see %s"
                        % log.name) from None


def _say(line):
    # Progress to stderr: make setup keeps stdout for the program's path.
    print(line, file=sys.stderr, flush=True)


def _build(tree, target):
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    _say("make setup: building MicroPython's unix port as a 32-bit program, once (1-4 "
         "minutes; log %s)" % (partial / "build.log"))
    with open(partial / "build.log", "wb") as log:
        cross = partial / "mpy-cross"
        _make(tree / "mpy-cross", "BUILD=" + str(cross), log=log, tree=tree, step="mpy-cross")
        _make(tree / "ports" / "unix", *FLAGS, "BUILD=" + str(partial / "port"),
              "FROZEN_MANIFEST=" + str(MANIFEST),
              "MICROPY_MPYCROSS=" + str(cross / "mpy-cross"),
              "MICROPY_MPYCROSS_DEPENDENCY=" + str(cross / "mpy-cross"), log=log, tree=tree,
              step="the unix port")
    shutil.copy2(partial / "port" / "micropython", partial / DONE)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)


def built(build=None):
    """The 32-bit micropython's path, built now if this content never was."""
    build = Path(build) if build else ROOT / "build"
    _archive, digest = firmware_sources.checked_archive("micropython")
    target = build / "unix-port" / build_key(digest)
    if (target / DONE).is_file():
        return target / DONE
    if not can_compile_32bit():
        raise PortError(MULTILIB)
    _build(firmware_sources.unpacked("micropython", build), target)
    return target / DONE


def install(into):
    """Builds (or finds) the port and puts it at `into`, e.g. .venv/bin/micropython."""
    program = built()
    into = Path(into)
    if into.is_file() and into.read_bytes() == program.read_bytes():
        return into
    into.unlink(missing_ok=True)
    shutil.copy2(program, into)
    return into


def main(argv=None):
    """`python tools/unix_port.py [INSTALL_PATH]`: prints the built program's path."""
    args = sys.argv[1:] if argv is None else argv
    try:
        print(install(args[0]) if args else built())
    except (PortError, firmware_sources.SourcesError) as error:
        print(error, file=sys.stderr)
        return 1
    return 0
