# The bridge's small parts: its state file, its account file, the broker URL
# and the floor's topic names; each bad input refused with what to do.
import json
import logging
import os
import threading

import pytest
from board_standin import StandInBoard
from servers import free_port

from uthctl.bridge import anchor_state
from uthctl.bridge.table_bridge import Bridge
from uthctl.cli import main as uthctl
from uthctl.errors import BoardRefusal
from uthctl.links.board_link import Link
from uthctl.wire import topics
from uthctl.wire.mqtt import parse_broker, read_credentials, write_credentials

HASH = "ab" * 32


def test_the_state_file_keeps_the_last_record_acknowledged(tmp_path):
    path = tmp_path / "bridge-3.json"
    assert anchor_state.load(path, "3") is None
    anchor_state.save(path, "3", (41, HASH))
    assert anchor_state.load(path, "3") == (41, HASH)
    assert not (tmp_path / "bridge-3.json.part").exists()


def test_another_tables_state_file_is_refused(tmp_path):
    path = tmp_path / "bridge.json"
    anchor_state.save(path, "4", (2, HASH))
    with pytest.raises(ValueError, match="table '4'.s state, not table '3'"):
        anchor_state.load(path, "3")


@pytest.mark.parametrize("text", ["", "{", "[]", '{"table": "3", "seq": 1}'])
def test_a_broken_state_file_is_refused_saying_how_to_start_again(tmp_path, text):
    path = tmp_path / "bridge.json"
    path.write_text(text)
    with pytest.raises(ValueError, match="remove it to publish the board's whole log again"):
        anchor_state.load(path, "3")


def test_credentials_are_written_for_their_owner_alone(tmp_path):
    path = tmp_path / "table-3.json"
    write_credentials(path, "table-3", "s3cret")
    assert os.stat(path).st_mode & 0o077 == 0
    assert read_credentials(path) == ("table-3", "s3cret")


def test_credentials_others_can_read_are_refused(tmp_path):
    path = tmp_path / "table-3.json"
    write_credentials(path, "table-3", "s3cret")
    os.chmod(path, 0o644)
    with pytest.raises(ValueError, match="chmod 600"):
        read_credentials(path)


@pytest.mark.parametrize("body", [{"username": "x"}, {"username": 1, "password": "p"}, []])
def test_credentials_without_an_account_are_refused(tmp_path, body):
    path = tmp_path / "c.json"
    write_credentials(path, "u", "p")
    path.write_text(json.dumps(body))
    with pytest.raises(ValueError, match="needs"):
        read_credentials(path)


@pytest.mark.parametrize("url, expected", [
    ("mqtt://127.0.0.1:1884", ("127.0.0.1", 1884, False)),
    ("mqtt://localhost", ("localhost", 1883, False)),
    ("mqtts://floor.example", ("floor.example", 8883, True))])
def test_broker_urls(url, expected):
    assert parse_broker(url) == expected


@pytest.mark.parametrize("url", ["http://127.0.0.1:1883", "mqtt://", "127.0.0.1:1883",
                                 "mqtt://table-3:pw@127.0.0.1:1883", "mqtt://192.0.2.7:1883",
                                 "mqtt://floor.example"])
def test_bad_broker_urls_are_refused(url):
    with pytest.raises(ValueError, match="--broker"):
        parse_broker(url)


def test_a_password_in_the_broker_url_is_refused_before_anything_runs(capsys):
    code = uthctl(["bridge", "--port", "/dev/null", "--broker", "mqtt://u:pw@127.0.0.1:1",
                   "--table", "3", "--casino", "riverside", "--credentials", "/nonexistent"])
    assert code == 2
    assert "no account in the URL" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["", "a/b", "+", "#", "x" * 33, "table 3"])
def test_names_that_would_break_a_topic_are_refused(name):
    with pytest.raises(ValueError, match="1 to 32 letters"):
        topics.check_name(name)


def test_topics_name_casino_table_and_kind():
    assert topics.topic("riverside", "3", "event") == "uth/riverside/3/event"
    assert topics.parse("uth/riverside/3/meters") == ("riverside", "3", "meters")
    assert topics.parse("uth/riverside/3/other") is None
    assert topics.user_of("3") == "table-3"


@pytest.mark.parametrize("nonce", [None, 7, "", "00", "zz" * 8, "ab" * 33, "AB" * 8])
def test_a_head_request_without_a_nonce_of_hex_digits_never_reaches_the_board(tmp_path, nonce,
                                                                              caplog):
    caplog.set_level(logging.INFO, logger="uthctl")
    bridge = Bridge("unused", "mqtt://127.0.0.1:1883", ("table-3", "p"), "riverside", "3",
                    tmp_path / "bridge-3.json")
    board = StandInBoard([], {"log_seq": 0})
    bridge.link = Link(board.path, timeout=2.0)
    try:
        bridge.answer(json.dumps({"cmd": "head", "nonce": nonce}))
        bridge.link.command("ping")  # the board has read all the bridge sent it
    finally:
        bridge.link.close()
        board.close()
    assert "refused a head request without a nonce of 16-64 hex digits" in caplog.text
    assert [request["cmd"] for request in board.asked] == ["ping"]


def _bridge_whose_step(tmp_path, raises):
    # A bridge (its broker nowhere) whose every step raises the next of
    # `raises`; once they are spent, the step asks the loop to stop.
    bridge = Bridge("unused", "mqtt://127.0.0.1:%d" % free_port(), ("table-3", "p"),
                    "riverside", "3", tmp_path / "bridge-3.json")
    stop, steps = threading.Event(), []

    def step():
        steps.append(len(steps))
        if len(steps) > len(raises):
            stop.set()
            return
        raise raises[len(steps) - 1]

    bridge.step = step
    return bridge, stop, steps


def test_a_board_refusal_is_asked_again(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="uthctl")
    bridge, stop, steps = _bridge_whose_step(
        tmp_path, [BoardRefusal("the board refused `meters`: busy")])
    bridge.run(stop)
    assert len(steps) == 2
    assert "board: the board refused `meters`: busy; asking again" in caplog.text


def test_a_programming_error_ends_the_bridge_rather_than_being_retried_for_ever(tmp_path):
    # A ValueError from the bridge's own code is a bug: it ends the run with
    # its traceback (and the service manager's restart policy takes over)
    # instead of being said and retried every 0.5 s for ever.
    bridge, stop, steps = _bridge_whose_step(tmp_path, [ValueError("a bug")] * 3)
    with pytest.raises(ValueError, match="a bug"):
        bridge.run(stop)
    assert len(steps) == 1
