"""The pinned sources: used only when their hash matches SHA256SUMS, unpacked once."""

import hashlib
import io
import tarfile

import pytest

from uthctl import firmware_sources
from uthctl.firmware_sources import SourcesError


def make_archive(folder, name, text):
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:xz") as tar:
        body = text.encode()
        info = tarfile.TarInfo(f"{name.removesuffix('-src.tar.xz')}/hello.txt")
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    (folder / name).write_bytes(data.getvalue())
    return hashlib.sha256(data.getvalue()).hexdigest()


@pytest.fixture
def sources(tmp_path):
    folder = tmp_path / "firmware-sources"
    folder.mkdir()
    name = firmware_sources.ARCHIVES["picotool"]
    digest = make_archive(folder, name, "pinned\n")
    (folder / "SHA256SUMS").write_text(f"{digest}  {name}\n")
    return folder


def test_an_archive_matching_its_hash_is_unpacked_once(sources, tmp_path):
    tree = firmware_sources.unpacked("picotool", build=tmp_path / "build", folder=sources)
    assert (tree / "hello.txt").read_text() == "pinned\n"
    (tree / "hello.txt").write_text("touched\n")
    again = firmware_sources.unpacked("picotool", build=tmp_path / "build", folder=sources)
    assert again == tree and (again / "hello.txt").read_text() == "touched\n"


def test_a_changed_archive_is_refused_naming_it(sources, tmp_path):
    make_archive(sources, firmware_sources.ARCHIVES["picotool"], "changed\n")
    with pytest.raises(SourcesError, match="picotool-2.2.0-src.tar.xz has changed"):
        firmware_sources.unpacked("picotool", build=tmp_path / "build", folder=sources)


def test_a_missing_archive_is_refused_naming_it(sources, tmp_path):
    (sources / firmware_sources.ARCHIVES["picotool"]).unlink()
    with pytest.raises(SourcesError, match="picotool-2.2.0-src.tar.xz is missing"):
        firmware_sources.checked_archive("picotool", folder=sources)


def test_the_shared_archives_match_their_sums():
    folder = firmware_sources.sources_folder()
    if not (folder / "SHA256SUMS").is_file():
        pytest.skip(f"no firmware sources at {folder}")
    for name in firmware_sources.ARCHIVES:
        path, digest = firmware_sources.checked_archive(name, folder)
        assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
