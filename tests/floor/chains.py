# Log records as a board makes them (mystery.chain, the firmware's own
# module), and the messages a bridge wraps them in.
import json

from mystery import chain

CASINO = "riverside"


def records(count, start_prev=chain.GENESIS, first_seq=1, tag="A1"):
    made, prev = [], start_prev
    for seq in range(first_seq, first_seq + count):
        record = chain.link({"ev": "setting", "name": "wager_cents", "was": None,
                             "value": 100 * seq, "note": tag}, seq, prev)
        made.append(record)
        prev = record["hash"]
    return made


def topic(table, kind="event"):
    return "uth/%s/%s/%s" % (CASINO, table, kind)


def message(table, record):
    return json.dumps({"table": table, "record": record}).encode()
