# python tools/side_by_side.py --lane CMD [CMD ...] --lane CMD [CMD ...]:
# runs the lanes at once, the commands of a lane one after another (a lane
# stops at its first failure, as make would). `make test` runs its suites in
# two lanes: the board tests, which wait on boards more than they compute,
# beside the floor's tests and the logic modules on the unix port.
#
# The first lane writes to this terminal as it goes; each other lane's
# output is kept in a log beside the build and shown whole when that lane
# ends, so no two suites' lines interleave. Every command ends with this
# process (the parent-death signal, as the boards' processes do), so a run
# killed at a time limit leaves no suite behind. The exit status is the
# first failure's, 0 when every command passed.
import argparse
import shlex
import shutil
import sys
import threading
import time
from pathlib import Path

from uthctl.boards.supervisor import spawn_with_parent_death


def run_lane(number, commands, log_folder, results):
    out = None if number == 0 else open(log_folder / ("lane-%d.log" % number), "wb")
    try:
        for command in commands:
            started = time.monotonic()
            words = shlex.split(command)
            words[0] = shutil.which(words[0]) or words[0]  # the wrapper execs, without PATH
            process = spawn_with_parent_death(words, stdout=out,
                                              stderr=None if out is None else out)
            status = process.wait()
            results.append((number, command, status, time.monotonic() - started))
            if status:
                return
    finally:
        if out is not None:
            out.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description="Runs lanes of commands side by side.")
    parser.add_argument("--lane", nargs="+", action="append", required=True, metavar="CMD")
    parser.add_argument("--logs", default="build/lanes", help="the other lanes' output")
    args = parser.parse_args(argv)
    log_folder = Path(args.logs)
    log_folder.mkdir(parents=True, exist_ok=True)
    results = []
    # Each lane on a thread of its own, which lives as long as its commands:
    # the parent-death signal follows the thread that started the process.
    lanes = [threading.Thread(target=run_lane, args=(n, commands, log_folder, results))
             for n, commands in enumerate(args.lane)]
    for lane in lanes:
        lane.start()
    for number, lane in enumerate(lanes):
        lane.join()
        if number:
            log = log_folder / ("lane-%d.log" % number)
            print("\n==== lane %d: %s" % (number, " ; ".join(args.lane[number])), flush=True)
            sys.stdout.buffer.write(log.read_bytes())
            sys.stdout.flush()
    print("\nside by side:")
    for number, command, status, seconds in sorted(results):
        print("  lane %d  %s  %s  %.0f s" % (number, "ok    " if status == 0 else
                                            "FAILED", command, seconds))
    failed = [status for _, _, status, _ in results if status]
    ran = sum(len(commands) for commands in args.lane)
    if len(results) < ran and not failed:
        return 1  # a lane ended without a status: never a pass
    return failed[0] if failed else 0


if __name__ == "__main__":
    sys.exit(main())
