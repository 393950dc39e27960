#!/usr/bin/env python3
"""One user, address or endpoint cannot starve the others (issue 33), against the real
`almanac serve` binary with its real password hashing, on loopback:

1. Sign-in flood: 16 connections from 127.0.0.2 send Basic sign-ins with made-up
   user names as fast as they are answered (each costs a full password hash). A
   first sign-in from 127.0.0.3 (a wrong password, then the right one, each hashed)
   is answered within a generous bound, not after the flood's backlog.
2. Test pings into a tarpit: on a `--threads 2` server, two users' test pings to a
   receiver that accepts and never answers come back within their small budget, a
   user's second ping while the first runs is 429, and a third user's requests are
   answered meanwhile.
3. Unauthenticated chunked uploads: 40 connections POST 15 MiB chunked bodies to a
   booking link's cancel route; each is refused (411) before its body is read, and
   the server's resident memory stays flat.
4. The server's own interface addresses are no webhook or feed target without
   `--allow-private-*`.

The bounds are generous (they tell "waited behind the flood" from "did not", they do
not measure speed). Prints "ok: …" per check and exits 1 on the first failure.

    .build/client-venv/bin/python Tests/Interop/trust_fairness.py --almanac .build/debug/almanac
"""
import base64
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from almanac_server import AlmanacServer  # noqa: E402
from interop_support import check, main  # noqa: E402


passwords = {}


def basic(user, password):
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


class SourceConnection(http.client.HTTPConnection):
    """An HTTP connection from a chosen loopback source address."""

    def __init__(self, port, source, timeout=60):
        super().__init__("127.0.0.1", port, timeout=timeout, source_address=(source, 0))


def request(port, method, path, headers=None, body=None, source="127.0.0.1", timeout=60):
    connection = SourceConnection(port, source, timeout)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def add_user(almanac, data, name):
    output = subprocess.run([almanac, "user", "add", name, "--generate", "--data", data],
                            capture_output=True, text=True, check=True).stdout
    return re.search(r"Password: (\S+)", output).group(1)


class Tarpit:
    """Accepts every connection and never answers."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(64)
        self.port = self.listener.getsockname()[1]
        self.held = []
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.held.append(connection)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def sign_in_flood(almanac, data):
    server = AlmanacServer(almanac, data, "anna")
    passwords["anna"] = server.password
    try:
        port = server.port
        # A sign-in of an unknown user costs one hash: what that takes here (the median
        # of three), the unit of the bound below.
        samples = []
        for attempt in range(3):
            started = time.monotonic()
            status, _, _ = request(port, "GET", "/dav/", {"Authorization": basic(f"nobody-{attempt}", "x")},
                                   source="127.0.0.4")
            samples.append(time.monotonic() - started)
            check(status == 401, f"an unknown user is 401 ({samples[-1]:.2f} s: one hash)")
        one_hash = sorted(samples)[1]

        stop = threading.Event()
        flooded = []  # how long each of the flood's requests waited

        def flood(index):
            counter = 0
            while not stop.is_set():
                counter += 1
                started = time.monotonic()
                try:
                    request(port, "GET", "/dav/", {"Authorization": basic(f"made-up-{index}-{counter}", "guess")},
                            source="127.0.0.2", timeout=30)
                    flooded.append(time.monotonic() - started)
                except OSError:
                    pass

        threads = [threading.Thread(target=flood, args=(index,), daemon=True) for index in range(16)]
        for thread in threads:
            thread.start()
        time.sleep(3)  # the flood's backlog builds up
        try:
            waits = []
            for attempt in range(3):
                started = time.monotonic()
                status, _, _ = request(port, "GET", "/dav/", {"Authorization": basic("anna", f"wrong-{attempt}")},
                                       source="127.0.0.3")
                waits.append(time.monotonic() - started)
                check(status == 401, f"a wrong password from 127.0.0.3 is 401 during the flood ({waits[-1]:.2f} s)")
            started = time.monotonic()
            status, _, _ = request(port, "GET", "/dav/", {"Authorization": basic("anna", server.password)},
                                   source="127.0.0.3")
            waits.append(time.monotonic() - started)
            check(status in (200, 207), f"the right password from 127.0.0.3 signs in during the flood ({waits[-1]:.2f} s)")
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
        check(len(flooded) > 16, f"the flood was answered meanwhile ({len(flooded)} requests)")
        # Each of the flood's requests waits for the flood's own backlog (16 connections
        # on two hashing turns: about eight hashes); 127.0.0.3 waits for one turn and its
        # own hash. Judged against the flood's median under the same load, so the bound
        # holds on a slower or busier machine alike.
        flood_median = sorted(flooded)[len(flooded) // 2]
        check(max(waits) < flood_median / 2,
              f"127.0.0.3 never waited behind the flood: at most {max(waits):.2f} s, the flood's median "
              f"{flood_median:.2f} s (one hash alone: {one_hash:.2f} s)")
    finally:
        server.stop()


def pings_and_uploads(almanac, data):
    bob = add_user(almanac, data, "bob")
    carol = add_user(almanac, data, "carol")
    server = AlmanacServer(almanac, data, "anna", password=passwords["anna"],
                           extra=["--threads", "2", "--allow-private-webhooks"])
    tarpit = Tarpit()
    try:
        port = server.port
        hooks = {}
        for user, password in [("anna", server.password), ("bob", bob)]:
            status, _, body = request(port, "POST", "/api/v1/webhooks",
                                      {"Authorization": basic(user, password), "Content-Type": "application/json"},
                                      json.dumps({"url": f"http://127.0.0.1:{tarpit.port}/{user}"}))
            check(status == 201, f"{user} registers a webhook into the tarpit ({status})")
            hooks[user] = (password, json.loads(body)["id"])
        results = {}

        def ping(user, key):
            password, hook = hooks[user]
            started = time.monotonic()
            status, headers, body = request(port, "POST", f"/api/v1/webhooks/{hook}/test",
                                            {"Authorization": basic(user, password)}, body=b"")
            results[key] = (status, time.monotonic() - started, body)

        pingers = [threading.Thread(target=ping, args=(user, user)) for user in ("anna", "bob")]
        for pinger in pingers:
            pinger.start()
        time.sleep(0.5)
        second = threading.Thread(target=ping, args=("anna", "anna again"))
        second.start()
        # Carol's requests are answered while both pings hang in the tarpit.
        carols = []
        for _ in range(5):
            started = time.monotonic()
            status, _, _ = request(port, "GET", "/api/v1/calendars", {"Authorization": basic("carol", carol)})
            carols.append(time.monotonic() - started)
            check(status == 200, "carol's request is answered during the pings")
        for pinger in pingers + [second]:
            pinger.join(timeout=60)
        for user in ("anna", "bob"):
            status, seconds, body = results[user]
            answer = json.loads(body)
            check(status == 200 and answer["status"] is None and "no answer" in (answer["error"] or ""),
                  f"{user}'s ping into the tarpit gives up within its budget ({seconds:.1f} s): {answer}")
            # The budget is 4 s; pings of two users run side by side, not one after the other.
            check(seconds < 5.5, f"{user}'s ping held a worker {seconds:.1f} s (< 5.5)")
        check(results["anna again"][0] == 429, f"anna's second ping while the first runs is 429 ({results['anna again'][0]})")
        check(max(carols) < 3, f"carol waited at most {max(carols):.2f} s (< 3) while two pings hung")

        # Unauthenticated chunked uploads to a booking link's route: refused before reading.
        before = rss_kib(server.process.pid)
        statuses = []

        def upload():
            connection = socket.create_connection(("127.0.0.1", port), timeout=30)
            try:
                connection.sendall(b"POST /api/v1/bookings/bk_x/cancel HTTP/1.1\r\nHost: x\r\n"
                                   b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"%x\r\n" % (1 << 20) + b"a" * (1 << 20) + b"\r\n"
                answer = b""
                for _ in range(15):
                    try:
                        connection.sendall(chunk)
                    except OSError:
                        break
                connection.settimeout(30)
                try:
                    while b"\r\n" not in answer:
                        data = connection.recv(4096)
                        if not data:
                            break
                        answer += data
                except OSError:
                    pass
                statuses.append(answer.split(b" ")[1] if answer.startswith(b"HTTP/1.1 ") else b"none")
            finally:
                connection.close()

        uploaders = [threading.Thread(target=upload) for _ in range(40)]
        for uploader in uploaders:
            uploader.start()
        for uploader in uploaders:
            uploader.join(timeout=120)
        after = rss_kib(server.process.pid)
        check(all(status == b"411" for status in statuses) and len(statuses) == 40,
              f"40 unauthenticated chunked uploads are each refused with 411: {sorted(set(statuses))}")
        check(after - before < 64 * 1024, f"resident memory grew {(after - before) // 1024} MiB (< 64) for 600 MiB sent")
    finally:
        server.stop()


def own_addresses(almanac, data):
    server = AlmanacServer(almanac, data, "anna", password=passwords["anna"])
    try:
        addresses = subprocess.run(["ip", "-o", "-4", "addr", "show"], capture_output=True, text=True).stdout
        own = [line.split()[3].split("/")[0] for line in addresses.splitlines() if " inet " in line]
        own = [address for address in own if not address.startswith("127.")] or ["127.0.0.1"]
        for address in own:
            for path, body in [("/api/v1/webhooks", {"url": f"http://{address}:{server.port}/api/v1/calendars"}),
                               ("/api/v1/subscriptions", {"url": f"http://{address}:{server.port}/x.ics",
                                                          "title": "x"})]:
                status, _, answer = request(server.port, "POST", path,
                                            {"Authorization": basic("anna", server.password),
                                             "Content-Type": "application/json"}, json.dumps(body))
                check(status == 400, f"{path} refuses this server's own address {address} ({status}): {answer[:160]!r}")
    finally:
        server.stop()


def run(almanac, data):
    sign_in_flood(almanac, data)
    pings_and_uploads(almanac, data)
    own_addresses(almanac, data)


if __name__ == "__main__":
    main(run, "trust_fairness")
