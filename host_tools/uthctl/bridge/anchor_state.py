# The bridge's one remembered fact: the last record the broker acknowledged,
# (seq, hash), in a small file replaced whole, so a restarted bridge resumes
# from the board's log after it.
import json
import os
from pathlib import Path


def load(path, table):
    # (seq, hash), or None when nothing was published yet.
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text())
        seq, digest = state["seq"], state["hash"]
    except (ValueError, KeyError, TypeError):
        raise ValueError("%s is not a bridge state file ({\"table\", \"seq\", \"hash\"}); "
                         "remove it to publish the board's whole log again" % path) from None
    if state.get("table") != table:
        raise ValueError("%s is table %r's state, not table %r's"
                         % (path, state.get("table"), table))
    return seq, digest


def save(path, table, anchor):
    path = Path(path)
    temporary = path.with_name(path.name + ".part")
    with open(temporary, "w") as stream:
        json.dump({"table": table, "seq": anchor[0], "hash": anchor[1]}, stream)
        stream.flush()
        os.fsync(stream.fileno())
    temporary.replace(path)
