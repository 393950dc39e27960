#!/usr/bin/env python3
"""Two `almanac serve` processes on one PostgreSQL database.

Needs the throwaway cluster `scripts/with-test-postgres` starts (make test does):
ALMANAC_TEST_POSTGRES is its URL and ALMANAC_TEST_POSTGRES_STATE the file
`scripts/test-postgres` keeps it in. In a new database of that cluster, with two
servers A and B on loopback ports, checks that:

- a write through one process is visible through the other at once;
- sync tokens from either process are accepted by the other, and an incremental
  sync that runs while both processes write misses no change;
- two PUTs with the same If-Match, one through each process at the same moment,
  give exactly one success and one 412, every time;
- the python `caldav` client's scenario passes against each process;
- when the database crashes during a load and comes back, no acknowledged write
  is lost, requests meanwhile fail only with 503, and both servers serve again
  without being restarted;
- when the database drops the servers' connections mid-request, requests fail only
  with 503 and Retry-After, the servers reconnect, and nothing acknowledged is lost;
- when one server is killed (SIGKILL) in the middle of writes, every write it
  acknowledged is stored, as the other server shows;
- bookers racing through both processes for one slot get one booking and 409s, and
  for a class of 3 seats exactly 3 bookings, every round.

    scripts/with-test-postgres .build/client-venv/bin/python Tests/Interop/postgres_two_servers.py --almanac .build/debug/almanac
"""
import argparse
import os
import re
import subprocess
import sys
import threading
import time
import uuid

from almanac_server import AlmanacServer, BasicClient

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PASSWORD = "two-servers-secret"


def check(condition, message):
    if not condition:
        raise SystemExit("FAIL: " + message)
    print("ok:", message)


def Client(server, user):
    return BasicClient(server.port, user, PASSWORD)


def event(uid, summary, day=1):
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Almanac//Two servers//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:{uid}\r\nDTSTAMP:20261101T000000Z\r\nDTSTART:202612{day:02d}T100000Z\r\nDURATION:PT1H\r\n"
            f"SUMMARY:{summary}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n").encode()


def sync(client, collection, token):
    """One sync-collection REPORT: (status, token, {href: etag or None for a deletion})."""
    body = ('<?xml version="1.0" encoding="utf-8"?><d:sync-collection xmlns:d="DAV:">'
            f"<d:sync-token>{token or ''}</d:sync-token><d:sync-level>1</d:sync-level>"
            "<d:prop><d:getetag/></d:prop></d:sync-collection>")
    status, _, data = client.request("REPORT", collection, body, {"Content-Type": "application/xml", "Depth": "0"})
    text = data.decode()
    if status != 207:
        return status, None, {}
    changes = {}
    for response in re.findall(r"<d:response>(.*?)</d:response>", text, re.S | re.I):
        href = re.search(r"<d:href>(.*?)</d:href>", response, re.I).group(1)
        etag = re.search(r"<d:getetag>(.*?)</d:getetag>", response, re.I)
        changes[href] = etag.group(1).replace("&quot;", '"') if etag else None
    new_token = re.search(r"<d:sync-token>(.*?)</d:sync-token>", text, re.I).group(1)
    return status, new_token, changes


def psql(url, sql):
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", url, "-c", sql], check=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    arguments = parser.parse_args()
    cluster = os.environ.get("ALMANAC_TEST_POSTGRES")
    state = os.environ.get("ALMANAC_TEST_POSTGRES_STATE")
    if not cluster or not state:
        raise SystemExit("FAIL: run under scripts/with-test-postgres (ALMANAC_TEST_POSTGRES and ALMANAC_TEST_POSTGRES_STATE)")
    name = "two_servers_" + uuid.uuid4().hex[:8]
    psql(cluster, f"CREATE DATABASE {name}")
    database = cluster.rsplit("/", 1)[0] + "/" + name
    for user in ["alice", "interop"]:
        subprocess.run([arguments.almanac, "user", "add", user, "--database", database], input=PASSWORD + "\n", text=True,
                       check=True, stdout=subprocess.DEVNULL)
    a = AlmanacServer(arguments.almanac, None, "alice", database=database, password=PASSWORD)
    b = AlmanacServer(arguments.almanac, None, "alice", database=database, password=PASSWORD)
    try:
        run(a, b, state)
        racing_bookers(a, b)
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import caldav_client
        for label, server in [("A", a), ("B", b)]:
            caldav_client.run(server.base, PASSWORD)
            print(f"ok: the caldav client's scenario passes against process {label}")
        crash_during_load(a, b, state)
        connections_dropped(a, b, database)
        a = killed_mid_write(a, b, arguments.almanac, database)
    finally:
        codes = [a.stop(), b.stop()]
    check(codes == [0, 0], f"both servers stopped cleanly ({codes})")
    print("two servers on PostgreSQL: all checks passed")


def run(a, b, state):
    alice_a, alice_b = Client(a, "alice"), Client(b, "alice")
    collection = "/dav/calendars/alice/shared/"
    status, _, _ = alice_a.request("MKCALENDAR", collection)
    check(status == 201, f"calendar created through A ({status})")

    # A write through one process is visible through the other at once.
    status, headers, _ = alice_a.request("PUT", collection + "one.ics", event("one@two", "One"), {"Content-Type": "text/calendar"})
    check(status == 201, "PUT through A")
    status, headers_b, body = alice_b.request("GET", collection + "one.ics")
    check(status == 200 and headers_b["ETag"] == headers["ETag"] and body == event("one@two", "One"),
          "B serves the bytes and ETag A stored")

    # Sync tokens from either process work on the other.
    status, token_a, changes = sync(alice_a, collection, None)
    check(status == 207 and list(changes) == [collection + "one.ics"], "initial sync through A")
    alice_b.request("PUT", collection + "two.ics", event("two@two", "Two"), {"Content-Type": "text/calendar"})
    status, token_b, changes = sync(alice_b, collection, token_a)
    check(status == 207 and list(changes) == [collection + "two.ics"], "B accepts A's token and lists B's write")
    status, _, changes = sync(alice_a, collection, token_b)
    check(status == 207 and changes == {}, "A accepts B's token: nothing new")

    # Racing If-Match writers, one per process: exactly one wins each round.
    rounds = 25
    outcomes = []
    for round_number in range(rounds):
        status, headers, _ = alice_a.request("GET", collection + "one.ics")
        etag = headers["ETag"]
        barrier = threading.Barrier(2)
        results = [None, None]

        def write(index, client):
            barrier.wait()
            results[index] = client.request("PUT", collection + "one.ics", event("one@two", f"Round {round_number} by {index}"),
                                            {"Content-Type": "text/calendar", "If-Match": etag})[0]

        threads = [threading.Thread(target=write, args=(i, c)) for i, c in enumerate([alice_a, alice_b])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outcomes.append(tuple(sorted(results)))
    check(all(outcome == (204, 412) for outcome in outcomes),
          f"{rounds} rounds of racing If-Match PUTs through A and B: one 204 and one 412 each ({set(outcomes)})")

    # An incremental sync running while both processes write misses nothing.
    status, token, _ = sync(alice_a, collection, None)
    written = {}
    lock = threading.Lock()
    done = threading.Event()

    def writer(client, prefix):
        for index in range(40):
            name = f"{prefix}-{index}.ics"
            status, headers, _ = client.request("PUT", collection + name, event(f"{prefix}-{index}@two", name),
                                                {"Content-Type": "text/calendar"})
            if status == 201:
                with lock:
                    written[collection + name] = headers["ETag"]

    seen = {}

    def follower():
        nonlocal token
        clients = [alice_a, alice_b]
        turn = 0
        while True:
            finished = done.is_set()
            status, new_token, changes = sync(clients[turn % 2], collection, token)
            turn += 1
            if status == 207:
                seen.update(changes)
                token = new_token
            if finished:
                return

    writers = [threading.Thread(target=writer, args=(alice_a, "a")), threading.Thread(target=writer, args=(alice_b, "b"))]
    following = threading.Thread(target=follower)
    following.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join()
    done.set()
    following.join()
    check(len(written) == 80, f"80 concurrent PUTs through A and B acknowledged ({len(written)})")
    missed = [href for href, etag in written.items() if seen.get(href) != etag]
    check(not missed, f"an incremental sync following both processes saw every write with its ETag (missed {missed[:3]})")


def racing_bookers(a, b):
    """Bookers through A and B at once: the booking transaction locks the calendar's row
    in PostgreSQL, so the processes take turns and re-check the slot."""
    import base64
    import json
    import urllib.request

    def api(server, method, path, body=None):
        auth = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
        request = urllib.request.Request(server.base + path, method=method, data=json.dumps(body).encode() if body else None,
                                         headers={"Authorization": auth, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    status, calendar = api(a, "POST", "/api/v1/calendars", {"title": "Studio"})
    check(status == 201, "a studio calendar through A")
    status, kind = api(a, "POST", "/api/v1/booking-types", {"title": "Session", "durations": [60], "calendar": calendar["id"]})
    check(status == 201, "a booking type through A")
    status, yoga = api(b, "POST", "/api/v1/events", {"calendarId": calendar["id"], "title": "Yoga", "start": "2027-01-07T18:00:00Z",
                                                     "end": "2027-01-07T19:00:00Z", "rrule": "FREQ=WEEKLY;COUNT=20"})
    check(status == 201, "a weekly class through B")
    status, seated = api(b, "POST", "/api/v1/booking-types", {"title": "Yoga", "durations": [60], "calendar": calendar["id"],
                                                              "classEvent": yoga["id"], "capacity": 3})
    check(status == 201, "a class of 3 seats through B")

    def race(type_id, start, bookers):
        barrier = threading.Barrier(bookers)
        results = [None] * bookers

        def book(index):
            barrier.wait()
            results[index] = api([a, b][index % 2], "POST", "/api/v1/bookings",
                                 {"bookingType": type_id, "start": start, "name": f"Booker {index}", "email": f"b{index}-{start[:10]}@example.com"})[0]

        threads = [threading.Thread(target=book, args=(i,)) for i in range(bookers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return sorted(results)

    slots = [race(kind["id"], f"2027-01-{day:02d}T10:00:00Z", 6) for day in range(4, 9)]
    check(all(r == [201, 409, 409, 409, 409, 409] for r in slots), f"6 bookers of one slot through A and B: one booking each round ({slots})")
    seats = [race(seated["id"], f"2027-01-{day:02d}T18:00:00Z", 8) for day in (7, 14, 21)]
    check(all(r == [201] * 3 + [409] * 5 for r in seats), f"8 bookers of 3 seats through A and B: exactly 3 each round ({seats})")


def crash_during_load(a, b, state):
    """Writers on both processes; the database crashes and restarts under them."""
    clients = [Client(a, "alice"), Client(b, "alice")]
    collection = "/dav/calendars/alice/load/"
    status, _, _ = clients[0].request("MKCALENDAR", collection)
    check(status == 201, "load calendar created")
    stop = threading.Event()
    acknowledged, statuses, _, workers = load(clients, collection, "w", stop)
    time.sleep(2)
    before = len(acknowledged)
    subprocess.run([os.path.join(ROOT, "scripts", "test-postgres"), "crash", state], check=True)
    time.sleep(2)
    subprocess.run([os.path.join(ROOT, "scripts", "test-postgres"), "resume", state], check=True)
    resumed = len(acknowledged)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(acknowledged) - resumed < 40:
        time.sleep(0.2)
    stop.set()
    for worker in workers:
        worker.join()
    after = [href for href in list(acknowledged)[resumed:]]
    print(f"   statuses during the load: {statuses}")
    check(before > 0, f"writes were acknowledged before the crash ({before})")
    check(all(any(href.split("/")[-1].startswith(f"w{n}-") for href in after) for n in range(4)),
          f"both servers write again after the database restarts, without a restart of their own ({len(after)} writes)")
    check(set(statuses) <= {201, 503}, "while the database was down, requests failed only with 503")
    check(statuses.get(503, 0) > 0, "the outage was seen (some 503s)")
    check(a.process.poll() is None and b.process.poll() is None, "both server processes kept running")
    lost = all_stored(clients[0], acknowledged)
    check(not lost, f"all {len(acknowledged)} acknowledged writes are stored with their ETags (lost: {lost[:3]})")

def load(clients, collection, prefix, stop, threads=4):
    """Writers PUT new events until `stop` is set; returns (acknowledged {href: etag},
    statuses {status: count}, 503 answers without Retry-After, the threads)."""
    acknowledged, statuses, missing_retry = {}, {}, []
    lock = threading.Lock()

    def writer(thread_number):
        client = clients[thread_number % len(clients)]
        number = 0
        while not stop.is_set():
            number += 1
            name = f"{prefix}{thread_number}-{number}.ics"
            try:
                status, headers, _ = client.request("PUT", collection + name, event(f"{prefix}{thread_number}-{number}@load", name),
                                                    {"Content-Type": "text/calendar"})
            except OSError as error:
                status, headers = f"connection error {error.__class__.__name__}", {}
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if status == 201:
                    acknowledged[collection + name] = headers["ETag"]
                elif status == 503 and "Retry-After" not in headers:
                    missing_retry.append(name)
            if status != 201:
                time.sleep(0.05)

    workers = [threading.Thread(target=writer, args=(number,)) for number in range(threads)]
    for worker in workers:
        worker.start()
    return acknowledged, statuses, missing_retry, workers


def all_stored(client, acknowledged):
    lost = []
    for href, etag in acknowledged.items():
        status, headers, _ = client.request("GET", href)
        if status != 200 or headers.get("ETag") != etag:
            lost.append((href, status))
    return lost


def connections_dropped(a, b, database):
    """The database ends the servers' sessions (pg_terminate_backend) again and again
    under a load: only 503s with Retry-After, reconnection, nothing acknowledged lost."""
    clients = [Client(a, "alice"), Client(b, "alice")]
    collection = "/dav/calendars/alice/dropped/"
    status, _, _ = clients[0].request("MKCALENDAR", collection)
    check(status == 201, "calendar for the dropped-connections load created")
    stop = threading.Event()
    acknowledged, statuses, missing_retry, workers = load(clients, collection, "d", stop)
    for _ in range(10):
        time.sleep(0.3)
        subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", database, "-c",
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'almanac' AND pid <> pg_backend_pid()"],
                       check=True, stdout=subprocess.DEVNULL)
    time.sleep(1)
    before = len(acknowledged)
    time.sleep(2)
    stop.set()
    for worker in workers:
        worker.join()
    print(f"   statuses while connections were dropped: {statuses}")
    check(set(statuses) <= {201, 503}, "while connections were dropped, requests failed only with 503")
    check(not missing_retry, f"every 503 carried Retry-After (missing on {missing_retry[:3]})")
    check(len(acknowledged) > before, "the servers wrote again after the last drop, without a restart")
    check(a.process.poll() is None and b.process.poll() is None, "both server processes kept running")
    lost = all_stored(clients[1], acknowledged)
    check(not lost, f"all {len(acknowledged)} acknowledged writes are stored (lost: {lost[:3]})")


def killed_mid_write(a, b, almanac, database):
    """SIGKILL of server A while writers go through it: what A acknowledged is stored.
    Returns the server that replaces A."""
    clients = [Client(a, "alice")]
    collection = "/dav/calendars/alice/killed/"
    status, _, _ = Client(b, "alice").request("MKCALENDAR", collection)
    check(status == 201, "calendar for the SIGKILL load created")
    stop = threading.Event()
    acknowledged, statuses, _, workers = load(clients, collection, "k", stop, threads=6)
    time.sleep(2)
    a.process.kill()
    a.process.wait(timeout=30)
    stop.set()
    for worker in workers:
        worker.join()
    check(len(acknowledged) > 0, f"writes were acknowledged before the kill ({len(acknowledged)})")
    lost = all_stored(Client(b, "alice"), acknowledged)
    check(not lost, f"all {len(acknowledged)} writes acknowledged by the killed server are stored (lost: {lost[:3]})")
    return AlmanacServer(almanac, None, "alice", database=database, password=PASSWORD)


if __name__ == "__main__":
    main()
