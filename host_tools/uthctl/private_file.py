# The one writer of every secret and state file uthctl keeps (the floor's
# users, accounts, settings and broker files, the tables' record keys, a
# bridge's state): for its owner alone (mode 600), and whole or not at all;
# with group=GID, for its owner and that group to read (640: the broker's).
# The text goes to a temporary file in the same folder (so the rename cannot
# cross file systems), is synced, renamed over the old file, and the folder
# is synced so the rename itself survives a power cut. A write that fails
# part way (a full disk, a crash) leaves the old file as it was.
import os
import tempfile
from pathlib import Path

MODE = 0o600
SHARED_MODE = 0o640


def write_private(path, text, group=None):
    # text: str (UTF-8) or bytes; group: a group id that may read it too.
    path = Path(path)
    data = text.encode() if isinstance(text, str) else bytes(text)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix="." + path.name,
                                             suffix=".part")
    try:
        if group is not None:  # the group set before a byte is written
            os.fchown(descriptor, -1, group)
        os.fchmod(descriptor, MODE if group is None else SHARED_MODE)
        _write_all(descriptor, data)
        os.fsync(descriptor)
    except BaseException:
        os.close(descriptor)
        os.unlink(temporary)
        raise
    os.close(descriptor)
    try:
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise
    _sync_folder(path.parent)


def append_private(path, text):
    # The file's text with `text` after it, written whole (no append in place,
    # which a failure part way would leave half a line of).
    path = Path(path)
    old = path.read_text() if path.exists() else ""
    write_private(path, old + text)


def _write_all(descriptor, data):
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view):]


def _sync_folder(folder):
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
