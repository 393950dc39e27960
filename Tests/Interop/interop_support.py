"""What the interop scripts share: counted checks, waiting, and a main that runs a
scenario in a fresh data directory."""
import argparse
import tempfile
import time

checks = 0


def check(condition, message):
    global checks
    if not condition:
        raise SystemExit("FAIL: " + message)
    checks += 1
    print("ok: " + message, flush=True)


def wait_for(condition, what, seconds=40, poll=0.2):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(poll)
    raise SystemExit("FAIL: timed out waiting for " + what)


def main(run, name):
    """Parses --almanac, runs `run(almanac, data)` in a temporary data directory, and
    says how many checks passed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        run(arguments.almanac, data)
    print(f"{name}: all {checks} checks passed")
