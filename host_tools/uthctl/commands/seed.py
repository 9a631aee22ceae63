# uthctl seed --port PORT: gives the board's random number generator 256 bits
# from this host's own random source (os.urandom), in service mode (the key
# switch held), at its installation and at any later visit (docs/host-link.md,
# "The generator's seed"). The board mixes them with 256 bits of its own; what
# was sent is never printed or kept, and the board answers only that its
# generator is instantiated.
import json
import os

from table.controller import SERVICE

from ..errors import Refusal, UthctlError, expecting
from .boardquery import add_board_arguments, ask, open_link

HOST_BYTES = 32  # 256 bits: a board with a weak source still starts from a strong seed


def add_parser(sub):
    parser = sub.add_parser("seed", help="give the board's random number generator 256 bits "
                            "of this host's randomness (service mode)")
    add_board_arguments(parser)
    return parser


@expecting(OSError)
def run(args):
    """uthctl seed: give the board's generator 256 bits of this host's randomness."""
    with open_link(args) as link:
        reply = seed(link)
    if args.json:
        print(json.dumps({"drbg": reply["drbg"], "seq": reply["seq"]}))
    else:
        print("generator  %s from the board's entropy and this host's (log record %d)"
              % (reply["drbg"], reply["seq"]))
    return 0


def seed(link):
    # The board's reply once its generator is seeded; Refusal when it will not be.
    status = ask(link, "status")
    if status["state"] != SERVICE:
        raise Refusal("not seeded: the generator is seeded in service mode (hold the key "
                      "switch; the table is %s)" % status["state"])
    reply = ask(link, "seed", entropy=os.urandom(HOST_BYTES).hex())
    if reply.get("drbg") != "instantiated":
        raise UthctlError("the board answers its generator is %r after a seed: it is not "
                          "this table's firmware, or the link is not to be trusted"
                          % (reply.get("drbg"),))
    return reply
