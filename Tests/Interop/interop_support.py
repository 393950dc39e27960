"""What the interop scripts share: counted checks, waiting, and a main that runs
scenarios in fresh data directories."""
import argparse
import os
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


def main(run, name, *more, postgres=None):
    """Parses --almanac, runs `run(almanac, data)` and each of `more` in a fresh temporary
    data directory, then `postgres(almanac, cluster)` when the test cluster is set
    (ALMANAC_TEST_POSTGRES, as `make test` sets it), and says how many checks passed."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    arguments = parser.parse_args()
    for scenario in (run, *more):
        with tempfile.TemporaryDirectory() as data:
            scenario(arguments.almanac, data)
    if postgres:
        cluster = os.environ.get("ALMANAC_TEST_POSTGRES")
        if cluster:
            postgres(arguments.almanac, cluster)
        else:
            print("note: no ALMANAC_TEST_POSTGRES; the PostgreSQL checks are skipped (make test runs them)")
    print(f"{name}: all {checks} checks passed")
