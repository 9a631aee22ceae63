# uthctl par WAGER PAYTABLE: the par sheet of one side wager's paytable.
import json

from uth import paytables
from uth.round import BAD_BEAT_MODES

from ..analysis.par import format_sheet, par_sheet
from ..errors import UthctlError, expecting, taken_as
from .progress import Progress


def add_parser(sub):
    parser = sub.add_parser("par", help="exact par sheet (Bad Beat: or a seeded Monte Carlo)")
    parser.add_argument("wager", choices=("trips", "bad_beat", "play_the_board", "ultimate_pairs"))
    # Letters in either case, as cards are.
    parser.add_argument("paytable", metavar="PAYTABLE", type=str.upper, help="letter, e.g. E")
    parser.add_argument("--deals", type=int, metavar="N",
                        help="Bad Beat: estimate by a Monte Carlo of N deals instead of the "
                        "exact count")
    parser.add_argument("--seed", type=int, metavar="S",
                        help="Bad Beat Monte Carlo seed (default: a random one, recorded)")
    parser.add_argument("--bad-beat-mode", choices=BAD_BEAT_MODES, default="two_way",
                        help="Bad Beat rule setting (rules.md)")
    return parser


@expecting()
def run(args):
    """uthctl par: exact par sheet (Bad Beat: or a seeded Monte Carlo)."""
    if args.deals is not None and args.deals <= 0:
        raise UthctlError("--deals must be a positive number of deals")
    if (args.deals is not None or args.seed is not None) and args.wager != "bad_beat":
        raise UthctlError("--deals and --seed are for Bad Beat's Monte Carlo; %s is counted "
                          "exactly" % args.wager)
    with taken_as(None):  # a letter the firmware carries no paytable for
        paytables.get(args.wager, args.paytable)
    progress = Progress("%s %s" % (args.wager, args.paytable))
    try:
        sheet = par_sheet(args.wager, args.paytable, deals=args.deals, seed=args.seed,
                          progress=progress, bad_beat_mode=args.bad_beat_mode)
    finally:
        progress.close()
    print(json.dumps(sheet) if args.json else format_sheet(sheet))
