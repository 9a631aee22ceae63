# `uthctl floor audit`'s text says one thing throughout: a table whose
# records are signed and checked with its key file, and whose head was not
# asked of its board, is not verified though nothing failed (exit 3); its
# section's last line says so, not "AUDIT FAILED: 0 problems", and its record
# keys read as checked, as the summary says they were.
from audit_floor import TABLE, fill, played, signed_play

from uthctl.cli import main as uthctl


def _text_audit(capsys, floor_dir, db_url):
    capsys.readouterr()
    argv = ["floor", "--dir", str(floor_dir.folder)]
    argv += ["--db", db_url] if db_url else []
    code = uthctl(argv + ["audit"])
    return code, capsys.readouterr().out


def test_a_signed_table_with_its_head_unasked_reads_not_verified_throughout(
        capsys, floor_dir, store, db_url):
    _, records, meters = signed_play(floor_dir, 120)
    fill(store, records, meters)
    code, out = _text_audit(capsys, floor_dir, db_url)
    lines = out.rstrip("\n").split("\n")
    assert code == 3, out
    assert "NOT VERIFIED: nothing failed" in lines[0]
    assert "AUDIT FAILED" not in out
    section = out[out.index("=== Table %s ===" % TABLE):]
    assert "NOT CHECKED" not in section
    assert ("checked against the table's key file: %d records signed and verified"
            % len(records)) in section, section
    assert "    signatures checked: %d records signed, each checked with its key" \
        % len(records) in lines
    last = section.rstrip("\n").split("\n")
    assert last[-2] == "NOT VERIFIED: nothing failed, but not everything could be checked"
    assert last[-1].startswith("  - head unconfirmed: not asked"), last[-1]


def test_an_unsigned_table_says_why_in_its_last_lines(capsys, floor_dir, store, db_url):
    records, meters = played(120)
    fill(store, records, meters)
    code, out = _text_audit(capsys, floor_dir, db_url)
    assert code == 3 and "AUDIT FAILED" not in out, out
    tail = out.rstrip("\n").split("\n")[-3:]
    assert tail[0] == "NOT VERIFIED: nothing failed, but not everything could be checked"
    assert tail[1].startswith("  - signatures unsigned: no key file")
    assert tail[2].startswith("  - head unconfirmed: not asked")
