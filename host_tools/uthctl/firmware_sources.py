"""The pinned firmware sources: MicroPython and picotool as archives beside the checkout.

`../shared/firmware-sources/` (or $UTH_FIRMWARE_SOURCES) holds each archive and a
SHA256SUMS file. An archive is used only after its hash matches that file, and is unpacked
once per content into `build/sources/<archive>-<hash>/`, so every build reads the same
tree and a second build unpacks nothing.
"""

import hashlib
import os
import shutil
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHIVES = {
    "micropython": "micropython-1.28.0-src.tar.xz",
    "picotool": "picotool-2.2.0-src.tar.xz",
}
# micropython-lib's modules (python-stdlib, from the pinned MicroPython tree)
# that the logic tests on the unix port check the firmware against: hmac, for
# the record key's MAC (tests/logic/test_recordkey_mac.py, put on the path by
# tests/mp_each.py). The firmware itself imports none of them.
REFERENCE_LIBRARIES = ("hmac",)
COMPLETE = ".unpacked"


class SourcesError(Exception):
    """A missing or changed archive: the message names it in one line."""


def sources_folder():
    default = ROOT.parent / "shared" / "firmware-sources"
    return Path(os.environ.get("UTH_FIRMWARE_SOURCES", default))


def pinned_hashes(folder):
    sums = folder / "SHA256SUMS"
    if not sums.is_file():
        raise SourcesError(f"firmware sources: {sums} is missing (../shared beside the checkout)")
    hashes = {}
    for line in sums.read_text().splitlines():
        if line.strip():
            digest, name = line.split()
            hashes[name.lstrip("*")] = digest
    return hashes


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checked_archive(name, folder=None):
    """The path of archive `name` ("micropython", "picotool") and its hash, once checked."""
    folder = Path(folder) if folder else sources_folder()
    filename = ARCHIVES[name]
    expected = pinned_hashes(folder).get(filename)
    path = folder / filename
    if expected is None:
        raise SourcesError(f"firmware sources: {filename} is not listed in {folder}/SHA256SUMS")
    if not path.is_file():
        raise SourcesError(f"firmware sources: {path} is missing")
    actual = file_sha256(path)
    if actual != expected:
        raise SourcesError(
            f"firmware sources: {path} has changed (sha256 {actual[:16]}..., "
            f"SHA256SUMS says {expected[:16]}...)"
        )
    return path, actual


def unpacked(name, build=None, folder=None):
    """The folder holding archive `name`'s tree, unpacked now if this content never was."""
    archive, digest = checked_archive(name, folder)
    build = Path(build) if build else ROOT / "build"
    # Each archive holds one folder, named as the archive without "-src.tar.xz".
    stem = ARCHIVES[name].removesuffix("-src.tar.xz")
    target = build / "sources" / f"{stem}-{digest[:12]}"
    if (target / COMPLETE).is_file():
        return target / stem
    # Unpacked beside the target and renamed, so a stopped unpack is never taken for whole.
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tarfile.open(archive) as tar:
        tar.extractall(partial, filter="tar")
    (partial / COMPLETE).write_text(digest + "\n")
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target / stem


def library_folders(build=None, folder=None):
    """The folders of REFERENCE_LIBRARIES in the pinned MicroPython tree, each holding NAME.py."""
    stdlib = unpacked("micropython", build, folder) / "lib" / "micropython-lib" / "python-stdlib"
    return [stdlib / name for name in REFERENCE_LIBRARIES]


def main(argv=None):
    """`python tools/firmware_sources.py NAME`: prints the unpacked tree's path."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or args[0] not in ARCHIVES:
        print(f"usage: firmware_sources.py {{{','.join(ARCHIVES)}}}", file=sys.stderr)
        return 2
    try:
        print(unpacked(args[0]))
    except SourcesError as error:
        print(error, file=sys.stderr)
        return 1
    return 0
