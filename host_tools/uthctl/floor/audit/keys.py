# A table's records on the floor held against its key file, DIR/keys/<table>.json
# (analysis/record_auth.py): a record rewritten in the database, its hash and
# every later hash recomputed, no longer carries its key's authenticator
# unless the key was taken too. A table without a key file, or whose records
# are all unsigned, cannot be told from a rewritten one: it is `unsigned`,
# which the audit never calls verified (docs/floor-design.md, "The audit across tables").
from pathlib import Path

from ...analysis import record_auth

CHECKED, UNSIGNED, FAILED = "checked", "unsigned", "failed"


def key_path(keys_dir, table):
    return Path(keys_dir) / ("%s.json" % table)


def load_table_keys(keys_dir, table):
    # ({key id: key}, problem): no file is ({}, None); a bad one is a problem.
    path = key_path(keys_dir, table)
    if not path.exists():
        return {}, None
    try:
        return record_auth.load_keys(path, table), None
    except record_auth.KeyFileError as error:
        return {}, str(error)


def head_keys(keys_dir, table):
    # The keys a board's `head` may be signed with: held and not replaced.
    keys, _ = load_table_keys(keys_dir, table)
    path = key_path(keys_dir, table)
    replaced = record_auth.replaced_keys(path, table) if keys else set()
    return {kid: key for kid, key in keys.items() if kid not in replaced}


def signatures(records, keys_dir, table):
    # {"state", "signed", "unsigned", "key_id", "problems", "text"}.
    keys, problem = load_table_keys(keys_dir, table)
    if problem:
        return _verdict(FAILED, {"signed": 0, "unsigned": 0, "key_id": None}, [problem])
    if not keys:
        found = {"signed": 0, "unsigned": len(records), "key_id": None}
        stripped = stripped_after_key(records)
        if stripped:
            return _verdict(FAILED, found, stripped)
        return _verdict(UNSIGNED, found, [], "no key file %s: the records cannot be "
                        "authenticated" % key_path(keys_dir, table))
    checked = dict(record_auth.check_records(records, keys), checked=True)
    problems = checked.pop("problems")
    if problems:
        return _verdict(FAILED, checked, problems)
    if not checked["signed"]:
        return _verdict(UNSIGNED, checked, [], "no record is signed though the key file holds "
                        "a key: the board has not been given it, or the authenticators were "
                        "taken off (the board's live head tells which)")
    return _verdict(CHECKED, checked, [], "%d records signed, each checked with its key%s" % (
        checked["signed"], ", %d from before the board had a key" % checked["unsigned"]
        if checked["unsigned"] else ""))


def stripped_after_key(records):
    # Without the keys, still: the board signs its `key` record and every
    # record after it, so a log holding one and later records without "auth"
    # had them taken off (or is not the board's).
    keyed = next((r["seq"] for r in records if r.get("ev") == "key"), None)
    bare = [r["seq"] for r in records if keyed is not None and r["seq"] >= keyed
            and r.get("auth") is None]
    if not bare:
        return []
    return ["records %s carry no authenticator though the log holds the board's key "
            "record %d: the board signs it and every record after it" % (
                _seqs(bare), keyed)]


def _seqs(seqs):
    return ", ".join(map(str, seqs[:5])) + (" and %d more" % (len(seqs) - 5)
                                            if len(seqs) > 5 else "")


def _verdict(state, counts, problems, text=None):
    return dict(counts, state=state, problems=["signatures: " + p for p in problems],
                text=text or "; ".join(problems))
