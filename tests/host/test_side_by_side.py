# tools/side_by_side.py, which runs make test's two lanes at once: a lane
# stops at its first failure, the run's status is a failure's, the second
# lane's output comes whole after it, and a runner killed with SIGKILL
# leaves none of its commands running.
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RUNNER = [sys.executable, str(REPO / "tools" / "side_by_side.py")]


def run(tmp_path, *lanes):
    args = [item for lane in lanes for item in ("--lane", *lane)]
    return subprocess.run(RUNNER + ["--logs", str(tmp_path / "lanes"), *args],
                          capture_output=True, text=True, timeout=60)


def test_both_lanes_pass_and_the_second_lanes_output_follows_whole(tmp_path):
    done = run(tmp_path, ["echo first-lane"], ["echo second-a", "echo second-b"])
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert out.index("first-lane") < out.index("==== lane 1") < out.index("second-a") \
        < out.index("second-b")


def test_a_lane_stops_at_its_first_failure_and_the_run_fails(tmp_path):
    done = run(tmp_path, ["true"], ["sh -c 'exit 3'", "printf %s%s never run"])
    assert done.returncode == 3
    assert "neverrun" not in done.stdout  # what the second command would print
    assert "FAILED  sh -c 'exit 3'" in done.stdout


def test_a_runner_killed_leaves_no_command_running(tmp_path):
    marker = tmp_path / "pid"
    script = "echo $$ > %s; exec sleep 300" % marker
    runner = subprocess.Popen(RUNNER + ["--logs", str(tmp_path / "lanes"), "--lane", "true",
                                        "--lane", "sh -c '%s'" % script])
    deadline = time.monotonic() + 30
    while not (marker.exists() and marker.read_text().strip()):
        assert time.monotonic() < deadline and runner.poll() is None
        time.sleep(0.05)
    pid = int(marker.read_text())
    runner.send_signal(signal.SIGKILL)
    runner.wait()
    deadline = time.monotonic() + 10
    while _alive(pid):
        assert time.monotonic() < deadline, "the lane's command outlived its runner"
        time.sleep(0.05)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open("/proc/%d/stat" % pid) as stat:  # a zombie is gone but for its reaping
        return stat.read().split(")")[-1].split()[0] != "Z"
