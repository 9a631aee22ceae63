# uthctl seed and status against a running board, as a technician runs them
# at the table (docs/uthctl.md): a board never seeded says so and draws as
# before; the seed goes in only in service mode; after it the board says its
# generator is seeded, and plays on.
from cli_board import configured


def test_seed_in_service_mode_and_status_says_so(cli_table, capsys):
    table = cli_table
    configured(table, capsys)
    shown = table.run(capsys, "status")
    assert "generator      not seeded" in shown, shown
    assert table.run(capsys, "status", "--json")["status"]["drbg"] == "not_instantiated"
    refused = table.run(capsys, "seed", code=2)
    assert "service mode" in refused and "betting" in refused, refused

    table.key(True)
    given = table.run(capsys, "seed", "--json")
    table.key(False)
    assert given["drbg"] == "instantiated" and given["seq"] > 0, given
    shown = table.run(capsys, "status")
    assert "generator      HMAC_DRBG, seeded" in shown, shown
    table.play_round([1, 2])
    assert table.run(capsys, "status", "--json")["status"]["drbg"] == "instantiated"
