# uthctl provision, status and audit --key-file against a running board, as
# a technician runs them at the table (docs/uthctl.md): the key goes in only
# in service mode and only from an owner-only key file; the board names it by
# its id, which status shows; every record after it is signed, and the audit
# checks each against the file, a replacement included. No output shows the key.
import os

from cli_board import configured

from uthctl.analysis import record_auth


def _key_file(tmp_path):
    path = tmp_path / "table-1.keys"
    record_auth.add_key(path, "1")
    return path


def _round(table):
    table.play_round([1, 2])


def test_provision_status_and_audit_with_the_tables_key(cli_table, tmp_path, capsys):
    table = cli_table
    key_file = _key_file(tmp_path)
    first_id, first_key = record_auth.newest_key(key_file)
    outputs = []
    configured(table, capsys)
    refused = table.run(capsys, "provision", "--key-file", str(key_file), code=2)
    assert "service mode" in refused and "betting" in refused, refused
    outputs += [refused, table.run(capsys, "status")]
    assert "record key     none (unsigned" in outputs[-1], outputs[-1]

    given = table.provision(capsys, key_file)
    assert given["key_id"] == first_id, given
    _round(table)
    shown = table.run(capsys, "status")
    assert "record key     %s" % first_id in shown, shown

    unchecked = table.run(capsys, "audit")
    assert "records carry an authenticator, NOT CHECKED" in unchecked, unchecked
    report = table.run(capsys, "audit", "--key-file", str(key_file), "--json")
    assert report["ok"], report["failures"]
    # config, reset, service mode left and entered before the key; the key
    # record, service mode left and the round after it.
    assert (report["keys"]["unsigned"], report["keys"]["signed"]) == (4, 3), report["keys"]

    record_auth.add_key(key_file, "1")  # a replacement: the file keeps both
    second_id, second_key = record_auth.newest_key(key_file)
    table.key(True)
    replaced = table.run(capsys, "provision", "--key-file", str(key_file))
    table.key(False)
    assert "record key  %s given" % second_id in replaced, replaced
    _round(table)
    report = table.run(capsys, "audit", "--key-file", str(key_file), "--json")
    assert report["ok"], report["failures"]
    assert report["keys"]["key_id"] == report["keys"]["board_key_id"] == second_id
    outputs += [given, shown, unchecked, report, replaced]
    for output in map(str, outputs):
        assert first_key not in output and second_key not in output, output


def test_provision_refuses_a_key_file_others_can_read(cli_table, tmp_path, capsys):
    key_file = _key_file(tmp_path)
    os.chmod(key_file, 0o640)
    cli_table.key(True)
    error = cli_table.run(capsys, "provision", "--key-file", str(key_file), code=2)
    assert "can be read by others: chmod 600 it" in error, error
    assert cli_table.run(capsys, "status", "--json")["status"]["key_id"] is None


def _program_digest(table):
    with table.target.link(table.port, timeout=60.0) as link:
        reply = link.command("authenticate", seed="0123456789abcdef")
    assert reply["ok"], reply
    return reply


def test_the_program_digest_is_the_same_with_a_key_on_the_flash(cli_table, tmp_path, capsys):
    # `authenticate` hashes the program, never the store where the key lies:
    # its answer is the same before and after the key is given.
    before = _program_digest(cli_table)
    cli_table.provision(capsys, _key_file(tmp_path))
    after = _program_digest(cli_table)
    assert {k: v for k, v in after.items() if k != "id"} == {
        k: v for k, v in before.items() if k != "id"}
