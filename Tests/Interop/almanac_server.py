"""Starts `almanac serve` for the interop scripts: a free loopback port, its own
data directory (or a shared PostgreSQL database), and the first user's generated
password read from its output (or given, for a user that exists already)."""
import base64
import http.client
import os
import re
import signal
import subprocess


class AlmanacServer:
    def __init__(self, almanac, data, user, database=None, password=None, extra=()):
        store = ["--database", database] if database else ["--data", data]
        self.process = subprocess.Popen([almanac, "serve", "--host", "127.0.0.1", "--port", "0", *store, "--quiet", *extra],
                                        stdout=subprocess.PIPE, text=True, env={**os.environ, "USER": user})
        lines = ""
        while "CalDAV:" not in lines:
            line = self.process.stdout.readline()
            if not line:
                raise SystemExit("FAIL: the server stopped before printing its URL")
            lines += line
        self.user = user
        self.password = password or re.search(r"with password (\S+)", lines).group(1)
        self.base = re.search(r"on (http://[^/\s]+)/", lines).group(1)
        self.port = int(self.base.rsplit(":", 1)[1])

    def stop(self):
        """SIGTERM, as an operator would; returns the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)


class BasicClient:
    """Plain HTTP/1.1 with Basic credentials: one connection per call, so a request
    never rides on a connection the other side closed. Returns (status, headers, body)."""

    def __init__(self, port, user, password):
        self.port = port
        self.auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body, headers={"Authorization": self.auth, **(headers or {})})
            response = connection.getresponse()
            return response.status, dict(response.getheaders()), response.read()
        finally:
            connection.close()
