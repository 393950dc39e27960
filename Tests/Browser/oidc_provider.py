"""An OpenID Connect provider on 127.0.0.1 for the sign-in tests, written with joserfc
(which makes and signs the keys and tokens): discovery, a JWK set, an authorization
endpoint that signs in whoever the test says is at the browser, and a token endpoint
that checks the client's secret, the redirect URI and the PKCE verifier (S256) before
it answers with a signed ID token. Counts every request, so the tests see how often
Almanac fetched the discovery document and the keys."""
import base64
import hashlib
import json
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from joserfc import jwt
from joserfc.jwk import ECKey, OKPKey, RSAKey


class Provider:
    def __init__(self, client_id, client_secret):
        self.client_id = client_id
        self.client_secret = client_secret
        self.keys = {}
        self.published = []
        self.add_key(RSAKey.generate_key(2048, parameters={"kid": "rsa-1", "use": "sig"}), "RS256")
        self.add_key(ECKey.generate_key("P-256", parameters={"kid": "ec-1", "use": "sig"}), "ES256")
        self.add_key(OKPKey.generate_key("Ed25519", parameters={"kid": "ed-1", "use": "sig"}), "EdDSA")
        self.requests = {}
        self.codes = {}
        # Who is at the browser: the claims the next authorization signs in (None: the
        # person refuses, and the browser comes back with error=access_denied).
        self.person = None
        # While set, the provider keeps the browser on a page of its own (a person who
        # has not finished signing in there).
        self.holding = False
        # The last answer sent back to the callback (its URL, code and state included).
        self.last_redirect = None
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def add_key(self, key, algorithm, publish=True):
        self.keys[key.kid] = (key, algorithm)
        if publish:
            self.published.append(key.kid)

    def rotate(self):
        """A new RSA key, published in the key set, that tokens are signed with from now."""
        kid = "rsa-" + secrets.token_hex(4)
        self.add_key(RSAKey.generate_key(2048, parameters={"kid": kid, "use": "sig"}), "RS256")
        return kid

    def count(self, path):
        with self.lock:
            return self.requests.get(path, 0)

    def token(self, claims=None, kid="rsa-1", **overrides):
        """A signed access token for the API: the issuer's, for `almanac-api`, an hour long."""
        now = int(time.time())
        body = {"iss": self.issuer, "aud": "almanac-api", "iat": now, "exp": now + 3600,
                "scope": "openid almanac:read-write"}
        body.update(claims or {})
        body.update(overrides)
        key, algorithm = self.keys[kid]
        return jwt.encode({"alg": algorithm, "kid": kid, "typ": "at+jwt"}, body, key, algorithms=[algorithm])

    def public_pem(self, kid="rsa-1"):
        return self.keys[kid][0].as_pem(private=False)

    def handler(self):
        provider = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def answer(self, status, body, headers=()):
                data = json.dumps(body).encode() if not isinstance(body, bytes) else body
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                url = urllib.parse.urlsplit(self.path)
                with provider.lock:
                    provider.requests[url.path] = provider.requests.get(url.path, 0) + 1
                if url.path == "/.well-known/openid-configuration":
                    self.answer(200, {
                        "issuer": provider.issuer, "jwks_uri": provider.issuer + "/jwks",
                        "authorization_endpoint": provider.issuer + "/authorize",
                        "token_endpoint": provider.issuer + "/token",
                        "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                        "id_token_signing_alg_values_supported": ["RS256", "ES256", "EdDSA"],
                    }, [("Cache-Control", "public, max-age=300")])
                elif url.path == "/jwks":
                    keys = [provider.keys[kid][0].as_dict(private=False) for kid in provider.published]
                    self.answer(200, {"keys": keys}, [("Cache-Control", "public, max-age=300")])
                elif url.path == "/authorize":
                    self.authorize(dict(urllib.parse.parse_qsl(url.query)))
                else:
                    self.answer(404, {"error": "not_found"})

            def authorize(self, query):
                redirect = query.get("redirect_uri", "")
                if query.get("client_id") != provider.client_id or not redirect.endswith("/login/oidc/callback"):
                    return self.answer(400, {"error": "invalid_request"})
                if (query.get("response_type") != "code" or query.get("code_challenge_method") != "S256"
                        or "openid" not in query.get("scope", "").split()):
                    return self.answer(400, {"error": "invalid_request"})
                if provider.holding:
                    page = b"<!doctype html><title>Provider</title><h1>Sign in at the provider</h1>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(page)))
                    self.end_headers()
                    self.wfile.write(page)
                    return
                if provider.person is None:
                    answer = {"error": "access_denied", "error_description": "The person said no",
                              "state": query.get("state", "")}
                else:
                    code = secrets.token_urlsafe(24)
                    with provider.lock:
                        provider.codes[code] = (dict(provider.person), query.get("nonce"),
                                                query.get("code_challenge"), redirect)
                    answer = {"code": code, "state": query.get("state", "")}
                provider.last_redirect = redirect + "?" + urllib.parse.urlencode(answer)
                self.send_response(302)
                self.send_header("Location", provider.last_redirect)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                url = urllib.parse.urlsplit(self.path)
                with provider.lock:
                    provider.requests[url.path] = provider.requests.get(url.path, 0) + 1
                if url.path != "/token":
                    return self.answer(404, {"error": "not_found"})
                length = int(self.headers.get("Content-Length", "0"))
                form = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                expected = "Basic " + base64.b64encode(
                    f"{provider.client_id}:{urllib.parse.quote(provider.client_secret, safe='')}".encode()).decode()
                if self.headers.get("Authorization") != expected:
                    return self.answer(401, {"error": "invalid_client"})
                with provider.lock:
                    found = provider.codes.pop(form.get("code", ""), None)  # a code works once
                if found is None or form.get("grant_type") != "authorization_code":
                    return self.answer(400, {"error": "invalid_grant"})
                person, nonce, challenge, redirect = found
                verifier = form.get("code_verifier", "")
                derived = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if derived != challenge or form.get("redirect_uri") != redirect:
                    return self.answer(400, {"error": "invalid_grant"})
                now = int(time.time())
                claims = {"iss": provider.issuer, "aud": provider.client_id, "iat": now, "exp": now + 300,
                          "nonce": nonce, **person}
                key, algorithm = provider.keys["rsa-1"]
                id_token = jwt.encode({"alg": algorithm, "kid": "rsa-1"}, claims, key, algorithms=[algorithm])
                self.answer(200, {"access_token": provider.token(person), "token_type": "Bearer",
                                  "expires_in": 3600, "id_token": id_token})

        return Handler
