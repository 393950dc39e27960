"""Runs schemathesis (PyPI) against `almanac serve`'s OpenAPI document: generated
requests to every operation, with a bounded number of examples, must get no 5xx,
only documented statuses and content types, and bodies that match the schema.

The server gets a user, a read-write API token, a calendar and an event first, so
generated requests reach real resources as well as missing ones."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from almanac_server import AlmanacServer  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    parser.add_argument("--examples", type=int, default=20)
    parser.add_argument("--st", default="st", help="the schemathesis command (its own virtualenv: it needs the real urllib3)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as data:
        server = AlmanacServer(arguments.almanac, data, "anna")
        try:
            created = subprocess.run([arguments.almanac, "token", "create", "schemathesis", "--scope", "read-write", "--data", data],
                                     capture_output=True, text=True, check=True).stdout
            token = next(line.strip() for line in created.splitlines() if line.strip().startswith("alm_"))
            headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"}

            def call(method, path, body=None):
                request = urllib.request.Request(server.base + path, method=method, headers=headers,
                                                 data=json.dumps(body).encode() if body is not None else None)
                with urllib.request.urlopen(request) as response:
                    return json.loads(response.read() or b"null")

            calendar = call("POST", "/api/v1/calendars", {"title": "Trainings", "timeZone": "Europe/Berlin"})
            call("POST", "/api/v1/events", {"calendarId": calendar["id"], "title": "Spin", "start": "2026-12-01T18:00:00",
                                            "timeZone": "Europe/Berlin", "duration": "PT1H", "rrule": "FREQ=WEEKLY;COUNT=10"})
            command = [arguments.st, "run", server.base + "/api/v1/openapi.json", "--url", server.base,
                       "-H", "Authorization: Bearer " + token,
                       "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance",
                       "--max-examples", str(arguments.examples), "--phases", "examples,fuzzing,stateful", "--workers", "2",
                       "--request-timeout", "30", "--suppress-health-check", "all"]
            print("$ " + " ".join(command[:2] + ["<openapi.json>"] + command[3:]).replace(token, "<token>"), flush=True)
            # The hooks give schemathesis a serializer for POST /imip's message/rfc822 body.
            here = os.path.dirname(os.path.abspath(__file__))
            environment = {**os.environ, "SCHEMATHESIS_HOOKS": "schemathesis_hooks",
                           "PYTHONPATH": here + os.pathsep + os.environ.get("PYTHONPATH", "")}
            status = subprocess.run(command, env=environment).returncode
        finally:
            stopped = server.stop()
        if stopped != 0:
            raise SystemExit(f"FAIL: almanac serve exited with {stopped}")
        if status != 0:
            raise SystemExit(f"FAIL: schemathesis reported problems (exit {status})")
        print("OK: schemathesis found no server error and no response outside the schema")


if __name__ == "__main__":
    main()
