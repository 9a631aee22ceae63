# The generator in the table (docs/mystery.md, "The generator"): a board
# never seeded draws from its own source as before and says so; `seed`, in
# service mode only, instantiates the generator from the board's entropy and
# the host's; from then on every secret comes from the generator, never as
# raw source bytes; its state outlives a restart, moving on at each boot;
# it is in no reply, event or log record; a damaged state or a failed
# health check is a fault that stops play.
import binascii

import tmpdir
from mystery import drbg
from table_rig import Rig

HOST = "c3" * 32  # the technician's host's randomness (64 hex digits, the least taken)
RAW = b"\x27\x0f"  # the board's source, stuck: what a weak source could give at worst


def stuck(n):
    return (RAW * n)[:n]


def _seeded(root):
    rig = Rig(root, random_bytes=stuck)
    rig.configure("A1")
    rig.enter_service()
    reply = rig.command(cmd="seed", entropy=HOST)[-1]
    assert reply["ok"] and reply["drbg"] == "instantiated", reply
    return rig


def _redraw_by_configuring(rig, times):
    # In service mode each change of configuration closes the untouched
    # cycle and draws the next: the salts and values drawn, in turn.
    drawn = []
    for n in range(times):
        assert rig.command(cmd="config", mystery=("A2", "A1")[n % 2])[-1]["ok"]
        meter = rig.table.bonus.meter
        drawn.append((meter._hit_value, meter._salt))
    return drawn


@tmpdir.within
def test_a_board_never_seeded_draws_from_its_source_as_before_and_says_so(root):
    rig = Rig(root, random_bytes=stuck)
    assert rig.command(cmd="status")[-1]["drbg"] == "not_instantiated"
    rig.configure("A1")
    assert rig.table.bonus.meter._salt == binascii.hexlify(stuck(16)).decode()
    assert rig.table.bonus.store.drbg is None


@tmpdir.within
def test_seed_is_taken_only_in_service_mode_and_only_as_even_hex_of_64_to_128_digits(root):
    rig = Rig(root, random_bytes=stuck)
    rig.configure("A1")
    seq = rig.table.bonus.store.head_seq
    reply = rig.command(cmd="seed", entropy=HOST)[-1]
    assert not reply["ok"] and "service mode" in reply["error"], reply
    rig.enter_service()
    seq += 1  # service mode entered: a record
    for bad in (None, 7, "c3" * 31, "c3" * 64 + "00", "C3" * 32, "c3" * 32 + "0", "zz" * 32):
        reply = rig.command(cmd="seed", entropy=bad)[-1]
        assert not reply["ok"] and "lower-case hex" in reply["error"], (bad, reply)
    assert rig.table.bonus.store.head_seq == seq and rig.events("seed") == []
    assert rig.command(cmd="status")[-1]["drbg"] == "not_instantiated"


@tmpdir.within
def test_a_seeded_board_draws_every_secret_from_the_generator(root):
    rig = _seeded(root)
    assert rig.events("seed")[-1]["was"] == "not_instantiated"
    assert rig.command(cmd="status")[-1]["drbg"] == "instantiated"
    drawn = _redraw_by_configuring(rig, 6)
    raw = binascii.hexlify(stuck(64)).decode()
    # A stuck source gives one salt and one value for ever; the generator does not.
    assert len(set(salt for _, salt in drawn)) == 6 and len(set(v for v, _ in drawn)) > 1
    for _, salt in drawn:
        assert salt not in raw, salt
    reply = rig.command(cmd="seed", entropy="5a" * 64)[-1]  # more randomness, later
    assert reply["ok"] and rig.events("seed")[-1]["was"] == "instantiated", reply


@tmpdir.within
def test_the_state_outlives_a_restart_and_moves_on_at_every_boot(root):
    rig = _seeded(root)
    _redraw_by_configuring(rig, 2)
    kept = rig.table.bonus.store.drbg.to_record()
    again = Rig(root, random_bytes=stuck)  # a restart on the same flash
    expected = drbg.from_record(kept)
    expected.generate(0, b"boot")
    assert again.table.bonus.store.drbg.to_record() == expected.to_record()
    assert again.command(cmd="status")[-1]["drbg"] == "instantiated"
    third = Rig(root, random_bytes=stuck)
    assert third.table.bonus.store.drbg.to_record() != expected.to_record()


@tmpdir.within
def test_the_state_and_the_hosts_randomness_are_in_nothing_the_board_sends(root):
    rig = _seeded(root)
    states = [rig.table.bonus.store.drbg.to_record()]
    for _ in range(4):
        _redraw_by_configuring(rig, 1)
        states.append(rig.table.bonus.store.drbg.to_record())
    rig.leave_service()
    rig.command(cmd="status")
    rig.command(cmd="meters")
    rig.command(cmd="log", since=0)
    secrets = [HOST] + [part for state in states for part in state[:2]]
    assert len(rig.lines) > 20
    for line in rig.lines:
        for secret in secrets:
            # Any 16 hex digits of a secret would be a leak: search its pieces.
            for at in range(0, len(secret) - 15, 16):
                assert secret[at:at + 16] not in line, line


@tmpdir.within
def test_a_failed_health_check_is_a_fault_and_no_round_plays(root):
    Rig(root).configure("A1")
    real = drbg.health_check
    drbg.health_check = lambda: False
    try:
        rig = Rig(root)
    finally:
        drbg.health_check = real
    status = rig.command(cmd="status")[-1]
    assert status["state"] == "fault" and "known-answer" in status["fault"], status
    rig.chip(2)
    rig.press_lock()
    assert rig.events("round") == [] and rig.table.bonus.store.head_seq == 0


@tmpdir.within
def test_a_damaged_or_missing_state_on_flash_is_a_fault(root):
    import os

    rig = _seeded(root)
    bonus = rig.table.bonus
    damaged = drbg.HmacDrbg(b"\x00" * 5, b"\x01" * 32, 1)  # a state no generator has
    bonus.store.commit(bonus.meter, [], drbg=damaged)
    status = Rig(root).command(cmd="status")[-1]
    assert status["state"] == "fault" and "generator" in status["fault"], status
    os.remove(root + "/drbg." + "ab"[bonus.store.drbg_copy])
    status = Rig(root).command(cmd="status")[-1]
    assert status["state"] == "fault" and "unreadable" in status["fault"], status


@tmpdir.within
def test_a_new_board_seeded_at_installation_draws_its_first_value_from_the_generator(root):
    rig = Rig(root, random_bytes=stuck)
    rig.enter_service()  # a new board: not configured, the key takes it to service mode
    assert rig.command(cmd="seed", entropy=HOST)[-1]["ok"]
    assert rig.command(cmd="config", mystery="A1")[-1]["ok"]
    assert rig.table.bonus.meter._salt not in binascii.hexlify(stuck(64)).decode()
    assert [r["ev"] for r in rig.table.bonus.log_since(0)][:3] == ["seed", "config", "reset"]
