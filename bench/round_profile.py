# Where the `round` command's time goes: each step the link and the store take
# for bench/round_command.py's round, timed apart (median of RUNS, in ms), on
# the emulated Pico (.venv/bin/python bench/pico_round.py bench/round_profile.py)
# or on the unix port (as round_command.py, with bench/ on MICROPYPATH). The
# steps are the firmware's own functions called in the order HostLink._round
# and MysteryBonus.settle_round call them; the commit runs on the board's
# store, so each run commits a round.
import gc
import json
import time

import round_command as bench  # bench/ (on the chip, copied beside it by pico_round.py)

RUNS = 9


def _median(times):
    times.sort()
    return times[len(times) // 2] / 1000


def _timed(name, step, found):
    gc.collect()
    start = time.ticks_us()
    out = step()
    found.setdefault(name, []).append(time.ticks_diff(time.ticks_us(), start))
    return out


def _one_run(line, found, link, said):
    from mystery import chain, settlement, table_rules, wagers
    from table import hostlink
    from table.jsoncheck import strict_json

    bonus = link.table.bonus
    store = bonus.store
    view = memoryview(line)
    _timed("grammar", lambda: strict_json(view), found)
    command = _timed("loads", lambda: hostlink._loads(view), found)
    _timed("finite", lambda: hostlink._finite(command), found)
    data = {k: v for k, v in command.items() if k not in ("cmd", "id")}
    rules = table_rules.in_force(bonus.meter.setting)
    round_ = _timed("checks", lambda: settlement.parse_round(
        settlement.on_the_table(data, rules)), found)
    result = _timed("settle", lambda: settlement.settle_parsed(round_), found)

    def meters():
        counted = store.wagers.copy() if store.wagers else wagers.WagerMeters()
        counted.add(round_, result)
        return counted
    counted = _timed("meters", meters, found)
    event = _timed("record", lambda: settlement.record(round_, result, bonus.meter.round),
                   found)
    linked = _timed("hash", lambda: chain.link(event, 1, store.head_hash), found)
    _timed("record_text", lambda: json.dumps(linked, separators=(",", ":")), found)
    _timed("meters_text", lambda: json.dumps({"log_seq": 1, "log_hash": linked["hash"],
                                              "wagers": counted.to_record()},
                                             separators=(",", ":")), found)
    records = _timed("commit", lambda: bonus._commit([event], counted), found)
    reply = {"ok": True, "reply": "round", "seq": records[0]["seq"],
             "seats": result["seats"], "round": result["round"]}
    _timed("reply", lambda: link.send(reply), found)
    gc.collect()
    start = time.ticks_us()
    link.feed(line + b"\n", time.ticks_ms())
    found.setdefault("whole", []).append(time.ticks_diff(time.ticks_us(), start))
    assert json.loads(said[-1])["ok"], said[-1]


def main():
    table, link, where = bench._controller()
    table.bonus.meter.settings["paytables"] = bench.TABLES
    said = bench._replies(link)
    line = json.dumps(dict(bench.ROUND, cmd="round")).encode()
    link.feed(line + b"\n", time.ticks_ms())  # the modules loaded, a first round counted
    found = {}
    for _ in range(RUNS):
        _one_run(line, found, link, said)
    print(json.dumps({"where": where, "ms": {k: _median(v) for k, v in found.items()}}))


main()
