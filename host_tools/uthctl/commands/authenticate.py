# uthctl authenticate --port PORT (--image FIRMWARE.uf2 | --build DIR): is the
# program the board runs the approved one? A fresh random seed goes to the
# board's `authenticate` command; its answer is compared with the digest
# computed here from the approved image or build (analysis/program_digest.py).
# Prints match or mismatch; exit 0 on a match, 1 on a mismatch (--json: one
# object with both digests), and the code files a board running a build has
# beside it, which the check does not cover (docs/host-link.md).
import json

from ..analysis.program_digest import new_seed, verdict
from ..errors import UthctlError, expecting
from .boardquery import add_board_arguments, open_link

AUTH_TIMEOUT = 120.0  # seconds: the whole program read a piece at a time


def add_parser(sub):
    parser = sub.add_parser("authenticate", help="check that the board runs the approved "
                            "program: a random seed, the board's digest, the expected one")
    add_board_arguments(parser)
    approved = parser.add_mutually_exclusive_group(required=True)
    approved.add_argument("--image", metavar="FIRMWARE.uf2",
                          help="the approved firmware image (a board running it)")
    approved.add_argument("--build", metavar="DIR",
                          help="the approved build folder (make build's, e.g. "
                          "build/rp2040_pico: a board the build was deployed to)")
    return parser


@expecting(OSError)
def run(args):
    """uthctl authenticate: check that the board runs the approved program."""
    seed = new_seed()
    with open_link(args) as link:
        reply = link.command("authenticate", seed=seed, timeout=max(args.timeout, AUTH_TIMEOUT))
    if not reply.get("ok"):
        raise UthctlError("the board refused authenticate: %s" % reply.get("error", "no reason"))
    found = verdict(reply, seed, image=args.image, build=args.build)
    if args.json:
        print(json.dumps(found))
    else:
        print(format_verdict(found))
    return 0 if found["match"] else 1


def format_verdict(found):
    word = "match" if found["match"] else "MISMATCH"
    lines = [
        "%s: the board's program %s the approved one" % (
            word, "is" if found["match"] else "is NOT"),
        "seed      %s" % found["seed"],
        "board     %s (%s, %s bytes)" % (found["answered"], found["program"], found["bytes"]),
        "expected  %s (%s, %d bytes)" % (found["expected"], found["expected_program"],
                                         found["expected_bytes"])]
    if found.get("others") is not None:
        lines.append("other code on the board, beside the program and NOT covered by this "
                     "check: %s" % (", ".join(found["others"]) or "none"))
    return "\n".join(lines)
