# The bridge's one remembered fact: the last record the broker acknowledged,
# (seq, hash), in a small file replaced whole (private_file), so a restarted
# bridge resumes from the board's log after it.
import json
from pathlib import Path

from ..errors import InputError
from ..private_file import write_private


def load(path, table):
    """The (seq, hash) the bridge last published for table, or None."""
    # (seq, hash), or None when nothing was published yet.
    path = Path(path)
    if not path.exists():
        return None
    try:
        state = json.loads(path.read_text())
        seq, digest = state["seq"], state["hash"]
    except (ValueError, KeyError, TypeError):
        raise InputError("%s is not a bridge state file ({\"table\", \"seq\", \"hash\"}); "
                         "remove it to publish the board's whole log again" % path) from None
    if state.get("table") != table:
        raise InputError("%s is table %r's state, not table %r's"
                         % (path, state.get("table"), table))
    return seq, digest


def save(path, table, anchor):
    """Keep the (seq, hash) last published for table, privately and whole."""
    write_private(path, json.dumps({"table": table, "seq": anchor[0], "hash": anchor[1]}))
