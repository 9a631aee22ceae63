# Log records as a board makes them (mystery.chain, the firmware's own
# module), and the messages a bridge wraps them in.
import io
import json

from mystery import chain
from mystery.record import public_meters

CASINO = "riverside"


def records(count, start_prev=chain.GENESIS, first_seq=1, tag="A1"):
    made, prev = [], start_prev
    for seq in range(first_seq, first_seq + count):
        record = chain.link({"ev": "setting", "name": "wager_cents", "was": None,
                             "value": 100 * seq, "note": tag}, seq, prev)
        made.append(record)
        prev = record["hash"]
    return made


# The accounts of a log of settings only, which move no money: what the
# floor's check of a meters snapshot at the head of records() wants.
NO_MONEY = dict.fromkeys(("seeded", "contributed", "paid", "meter", "retained", "hits"), 0)


def topic(table, kind="event"):
    return "uth/%s/%s/%s" % (CASINO, table, kind)


def message(table, record):
    return json.dumps({"table": table, "record": record}).encode()


def simulated(name="B1", rounds=400, seed=7):
    # (records, meters): a table's log and its `meters` reply, made by the
    # firmware's own engine in memory (analysis/mystery_sim), so what the
    # meters say comes from the engine, not from the floor's arithmetic.
    from uthctl.analysis import mystery_sim

    stream = io.StringIO()
    sim = mystery_sim.simulate(name, rounds, 3, seed, log_stream=stream)
    made = [json.loads(line) for line in stream.getvalue().splitlines()]
    return made, dict(public_meters(sim.meter), log_seq=made[-1]["seq"],
                      log_hash=made[-1]["hash"], log_dropped=0)


def meters_message(table, meters):
    return json.dumps({"table": table, "meters": meters, "time": 0}).encode()


def keyed(keys, table="3"):
    # A key file for the table in the keys folder, as `floor add-table` makes
    # it: one new record key; its path.
    from uthctl.analysis import record_auth

    path = keys / ("%s.json" % table)
    record_auth.add_key(path, table)
    return path


def signed(made, key_file, table):
    # The records as a board with the table's newest key (record_auth's key
    # file) makes them: each carries "auth", the HMAC over its hash
    # (mystery.recordkey, the firmware's own computation).
    from mystery import recordkey
    from uthctl.analysis import record_auth

    kid, key = record_auth.newest_key(key_file, table)
    key = recordkey.parse_key(key)
    return [dict(record, auth=recordkey.record_auth(key, kid, record["hash"]))
            for record in made]


def forged_next(head, **fields):
    # What a second client with the table's account can make: a record with
    # seq one past the head, the head's hash as prev, and its own hash right.
    event = {"ev": "validated", "seat": 9, "award": 5_000_000_000, "employee": "E1",
             "slip": "S1"}
    event.update(fields)
    return chain.link(event, head["seq"] + 1, head["hash"])
