# The `authenticate` command (table/authenticate.py): SHA-256 of the host's
# seed followed by the program's files in the documented order, computed here
# from docs/host-link.md's description alone; a piece at a time, one piece a
# turn of the link; seeds that are not 8 to 64 hex characters refused.
import json

import tmpdir
from program_files import FILES, expected, write_build, write_files
from table.program import PIECE, files_program
from table_rig import Rig

SEED = "00112233445566778899aabbccddeeff"


def rig_with_build(root):
    write_build(root)
    rig = Rig(root + "/meter")
    rig.link.program = files_program(root + "/lib", root + "/main.py")
    return rig


@tmpdir.within
def test_the_digest_is_the_seed_then_the_files_in_name_order(root):
    rig = rig_with_build(root)
    reply = rig.command(cmd="authenticate", seed=SEED, id=4)[-1]
    assert reply == {"ok": True, "reply": "authenticate", "seed": SEED, "program": "files",
                     "bytes": reply["bytes"], "digest": expected(SEED, FILES), "others": [],
                     "id": 4}
    other = "ffeeddccbbaa9988"
    again = rig.command(cmd="authenticate", seed=other)[-1]
    assert again["digest"] == expected(other, FILES) != reply["digest"]


@tmpdir.within
def test_code_beside_the_build_is_named_and_not_hashed(root):
    # /boot.py runs at every start and the root is on sys.path: such files are
    # named in the reply; the store's files and other data are not code.
    rig = rig_with_build(root)
    beside = {"boot.py": b"import standin\n", "standin.mpy": b"S", "pkg/mod.py": b"x = 1\n",
              "notes.txt": b"not code"}
    write_files(root, beside)
    reply = rig.command(cmd="authenticate", seed=SEED)[-1]
    assert reply["digest"] == expected(SEED, FILES)
    assert reply["others"] == ["boot.py", "pkg/mod.py", "standin.mpy"]


@tmpdir.within
def test_a_changed_byte_changes_the_digest(root):
    rig = rig_with_build(root)
    with open(root + "/lib/uth/cards.mpy", "r+b") as file:
        file.seek(PIECE + 3)
        file.write(b"D")
    changed = dict(FILES)
    changed["lib/uth/cards.mpy"] = b"C" * (PIECE + 3) + b"D" + b"C" * 3
    reply = rig.command(cmd="authenticate", seed=SEED)[-1]
    assert reply["digest"] == expected(SEED, changed) != expected(SEED, FILES)


@tmpdir.within
def test_it_hashes_one_piece_a_turn_and_the_link_answers_after(root):
    rig = rig_with_build(root)
    before = len(rig.lines)
    rig.link.feed(json.dumps({"cmd": "authenticate", "seed": SEED}).encode() + b"\n", rig.now)
    turns = 0
    while rig.link.busy():
        assert len(rig.lines) == before  # no reply until the last piece
        rig.link.poll(lambda: b"", rig.now)
        turns += 1
    # At least a turn per header and per piece of each file's bytes.
    pieces = sum(1 + (len(data) + PIECE - 1) // PIECE for data in FILES.values())
    assert turns >= pieces
    assert json.loads(rig.lines[-1])["digest"] == expected(SEED, FILES)
    assert rig.command(cmd="ping")[-1]["reply"] == "pong"


@tmpdir.within
def test_seeds_that_are_not_8_to_64_hex_characters_are_refused(root):
    rig = rig_with_build(root)
    for seed in ("0011223", "00" * 33, "0011223g", "001122334", 12345678, None):
        reply = rig.command(cmd="authenticate", seed=seed)[-1]
        assert reply["ok"] is False and "seed" in reply["error"], (seed, reply)
    assert rig.command(cmd="authenticate", seed="0" * 64)[-1]["ok"] is True
    assert rig.command(cmd="authenticate", seed="0A1b2C3d")[-1]["ok"] is True


@tmpdir.within
def test_a_board_that_names_no_program_refuses(root):
    rig = Rig(root)
    reply = rig.command(cmd="authenticate", seed=SEED)[-1]
    assert reply["ok"] is False and "no program" in reply["error"]


@tmpdir.within
def test_a_program_that_cannot_be_read_is_an_error_reply_and_play_goes_on(root):
    rig = Rig(root)
    rig.link.program = files_program(root + "/no-lib", root + "/main.py")
    reply = rig.command(cmd="authenticate", seed=SEED)[-1]
    assert reply["ok"] is False and "cannot be read" in reply["error"], reply
    assert rig.command(cmd="ping")[-1]["reply"] == "pong"
