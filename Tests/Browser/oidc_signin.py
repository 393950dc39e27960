"""Sign-in through OpenID Connect, end to end: a provider on 127.0.0.1 written with joserfc
(Tests/Browser/oidc_provider.py: real RS256, ES256 and EdDSA keys and tokens, discovery
and a JWK set with Cache-Control, the authorization code flow with PKCE) and `almanac
serve --oidc-issuer … --oidc-create-users --allow-private-identity`.

The API with the provider's access tokens:
- tokens signed with each of the three keys work; the first use makes the account,
  with the provider's display name and verified e-mail address;
- the scope claim decides: read-write writes, read reads only (403 insufficient_scope
  on a write), add only adds, none of Almanac's scopes is 403, admin for a non-admin
  stays read-write;
- refused with 401 and `error="invalid_token"`: a wrong `aud`, a wrong `iss`, an expired
  token, `alg: none`, HS256 signed with the RSA public key, a tampered payload, a key
  the provider never published, a disabled user's token, another identity (another
  `sub`) claiming a bound account (until an admin unbinds it: `identity: null`);
- key rotation: a token signed with a new key is accepted after one more fetch of the
  key set, and a flood of tokens naming unknown keys fetches it no more often.

The web sign-in in headless Chromium at 390 and 1280 px: the sign-in page's button,
the provider's redirect and back, the calendar as the provider's user; a refused
sign-in (`access_denied`), a callback with a forged state and a replayed callback each
end on the sign-in page with a message. Screenshots to .build/screenshots/, axe-core on
the sign-in page.

    .build/test-venv/bin/python Tests/Browser/oidc_signin.py --almanac .build/debug/almanac
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Interop"))
from almanac_server import AlmanacServer  # noqa: E402

import browser_support  # noqa: E402
from browser_support import audit, browser, check, heading, wait_for  # noqa: E402
from oidc_provider import Provider  # noqa: E402

CLIENT_SECRET = "s3cret/with:odd+chars"


def call(server, method, path, token=None, body=None, basic=None):
    """(status, headers, decoded body) of one API request."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    if basic:
        headers["Authorization"] = "Basic " + base64.b64encode(f"{basic[0]}:{basic[1]}".encode()).decode()
    request = urllib.request.Request(server.base + path, method=method, headers=headers,
                                     data=json.dumps(body).encode() if body is not None else None)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), json.loads(error.read() or b"null")


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def forged(header, claims, key=b""):
    """A token an attacker writes by hand (no library would sign these): `alg: none`, or
    an HMAC whose key is the provider's public key."""
    signing_input = b64(json.dumps(header).encode()) + "." + b64(json.dumps(claims).encode())
    signature = hmac.new(key, signing_input.encode(), hashlib.sha256).digest() if key else b""
    return signing_input + "." + b64(signature)


def payload(token):
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def api_checks(server, provider):
    lena = {"sub": "lena-0001", "preferred_username": "lena", "name": "Lena Park",
            "email": "Lena@Example.org", "email_verified": True}
    token = provider.token(lena)
    status, _, body = call(server, "POST", "/api/v1/calendars", token, {"title": "Runs", "timeZone": "Europe/Berlin"})
    check(status == 201, f"an RS256 access token writes, and its first use makes Lena's account: {status} {body}")
    admin = (server.user, server.password)
    status, _, account = call(server, "GET", "/api/v1/admin/users/lena", basic=admin)
    check(status == 200 and account.get("displayName") == "Lena Park" and account.get("emails") == ["lena@example.org"],
          f"her account has the provider's name and verified address: {account}")
    for kid in ("ec-1", "ed-1"):
        status, _, body = call(server, "GET", "/api/v1/calendars", provider.token(lena, kid=kid))
        check(status == 200 and [c["title"] for c in body["calendars"]] == ["Runs"],
              f"a token signed with {provider.keys[kid][1]} reads her calendars: {status}")

    # Scopes.
    read = provider.token(lena, scope="openid almanac:read")
    status, _, _ = call(server, "GET", "/api/v1/calendars", read)
    check(status == 200, "almanac:read reads")
    status, headers, _ = call(server, "POST", "/api/v1/calendars", read, {"title": "No"})
    check(status == 403, f"almanac:read does not write: {status}")
    status, headers, _ = call(server, "GET", "/api/v1/calendars", provider.token(lena, scope="openid profile"))
    check(status == 403 and 'error="insufficient_scope"' in headers.get("WWW-Authenticate", ""),
          f"a token with none of Almanac's scopes is 403 insufficient_scope: {status} {headers.get('WWW-Authenticate')}")
    status, _, _ = call(server, "GET", "/api/v1/admin/users", provider.token(lena, scope="almanac:admin"))
    check(status == 403, f"almanac:admin does not make Lena an admin: {status}")
    status, _, _ = call(server, "GET", "/api/v1/admin/users", provider.token(
        {"sub": "admin-sub", "preferred_username": server.user}, scope="almanac:admin"))
    check(status == 200, f"the admin's own admin-scoped token lists users: {status}")

    # Refusals: each 401 with the RFC 6750 challenge.
    now = int(time.time())
    refusals = [
        ("a wrong aud", provider.token(lena, aud="another-api")),
        ("a wrong iss", provider.token(lena, iss="http://127.0.0.1:1/other")),
        ("an expired token", provider.token(lena, iat=now - 7200, exp=now - 3600)),
        ("alg none", forged({"alg": "none", "typ": "JWT"}, payload(token))),
        ("HS256 keyed with the RSA public key", forged({"alg": "HS256", "kid": "rsa-1"}, payload(token),
                                                        provider.public_pem())),
        ("a tampered payload", token.split(".")[0] + "." + b64(json.dumps({**payload(token), "preferred_username": server.user}).encode())
         + "." + token.split(".")[2]),
        ("another identity claiming Lena's account", provider.token({**lena, "sub": "impostor-9"})),
        ("a token of 20 KB", provider.token({**lena, "padding": "x" * 20_000})),
        ("a user name that cannot be one", provider.token({"sub": "odd-1", "preferred_username": "lena/../anna"})),
    ]
    # A refused token counts as a failed attempt of its address (five are free), and a
    # good one forgets them: each refusal here follows a good request.
    for what, bad in refusals:
        status, headers, body = call(server, "GET", "/api/v1/calendars", bad)
        check(status == 401 and 'error="invalid_token"' in headers.get("WWW-Authenticate", ""),
              f"{what}: 401 invalid_token ({status}, {body.get('detail') if body else ''})")
        check(call(server, "GET", "/api/v1/calendars", token)[0] == 200, "Lena's good token still works")

    # The admin sees the binding and may undo it (say the person's identity at the
    # provider changed); the next sign-in binds the account again. Nothing else binds.
    status, _, account = call(server, "GET", "/api/v1/admin/users/lena", basic=admin)
    check(account.get("identity") == provider.issuer + " lena-0001", f"the admin sees Lena's binding: {account.get('identity')}")
    status, _, _ = call(server, "PATCH", "/api/v1/admin/users/lena", body={"identity": provider.issuer + " impostor-9"}, basic=admin)
    check(status == 400, f"an admin cannot bind an identity by hand: {status}")
    status, _, account = call(server, "PATCH", "/api/v1/admin/users/lena", body={"identity": None}, basic=admin)
    check(status == 200 and account.get("identity") is None, f"the admin unbinds Lena's account: {status} {account}")
    relinked = {**lena, "sub": "lena-0002"}
    check(call(server, "GET", "/api/v1/calendars", provider.token(relinked))[0] == 200,
          "her new identity signs in and binds the account")
    check(call(server, "GET", "/api/v1/calendars", token)[0] == 401, "her old identity no longer does")
    lena = relinked
    token = provider.token(lena)

    # Key rotation, and unknown keys that cause no more fetches.
    fetched = provider.count("/jwks")
    kid = provider.rotate()
    status, _, _ = call(server, "GET", "/api/v1/calendars", provider.token(lena, kid=kid))
    check(status == 200 and provider.count("/jwks") == fetched + 1,
          f"a token signed with a new key works after one more fetch of the key set ({provider.count('/jwks') - fetched})")
    from joserfc.jwk import RSAKey
    for number in range(10):
        stranger = RSAKey.generate_key(2048, parameters={"kid": f"unknown-{number}"})
        provider.add_key(stranger, "RS256", publish=False)
        status, _, _ = call(server, "GET", "/api/v1/calendars", provider.token(lena, kid=f"unknown-{number}"))
        check(status == 401, f"a key never published ({number}): {status}")
        call(server, "GET", "/api/v1/calendars", token)
    check(provider.count("/jwks") == fetched + 1,
          f"ten tokens naming unknown keys fetched the key set no more: {provider.count('/jwks') - fetched - 1} more")
    check(provider.count("/.well-known/openid-configuration") == 1, "discovery was fetched once (cached 300 s)")

    # A disabled user's token.
    status, _, _ = call(server, "PATCH", "/api/v1/admin/users/lena", body={"disabled": True}, basic=admin)
    check(status == 200, "the admin disables Lena")
    status, headers, body = call(server, "GET", "/api/v1/calendars", provider.token(lena))
    check(status == 401 and 'error="invalid_token"' in headers.get("WWW-Authenticate", "") and "disabled" in body["detail"],
          f"a disabled user's token is 401: {status} {body['detail']}")


def web_checks(server, provider):
    for width in (390, 1280):
        driver = browser(width=width)
        try:
            driver.get(server.base + "/")
            button = driver.find_element(By.CSS_SELECTOR, "a[href='/login/oidc']")
            check(button.text == "Sign in with 127.0.0.1", f"{width} px: the sign-in page offers the provider: {button.text}")
            check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                  f"{width} px: the sign-in page fits the screen")
            audit(driver, "sign-in-oidc")

            # Someone who refuses at the provider comes back to the sign-in page, told why.
            provider.person = None
            button.click()
            wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".sign-in [role=alert]"), "the refusal shown")
            alert = driver.find_element(By.CSS_SELECTOR, ".sign-in [role=alert]").text
            check("access_denied" in alert and "said no" not in alert and "/calendar" not in driver.current_url,
                  f"{width} px: a refused sign-in says so (the code only, not the text the link carries): {alert}")

            # Maria signs in at the provider and lands in her (new) calendar.
            provider.person = {"sub": f"maria-{width}", "preferred_username": f"maria{width}", "name": "Maria Rossi"}
            driver.find_element(By.CSS_SELECTOR, "a[href='/login/oidc']").click()
            wait_for(lambda: driver.current_url.startswith(server.base + "/calendar"), "signed in through the provider")
            check(driver.find_elements(By.CSS_SELECTOR, "form[action='/logout']"),
                  f"{width} px: Maria is signed in to the calendar")
            driver.save_screenshot(os.path.join(browser_support.SCREENSHOTS, f"oidc-calendar-{width}.png"))

            def refused(what, url, expected):
                driver.get(url)
                alert = driver.execute_script(
                    "const a = document.querySelector('.sign-in [role=alert]'); return a ? a.textContent : ''")
                check(expected in alert and not driver.find_elements(By.CSS_SELECTOR, "form[action='/logout']"),
                      f"{width} px: {what} signs no one in: {alert}")

            # Maria's own callback again, in a browser that is not signed in: its sign-in
            # was finished (the cookie that began it is gone), so it signs no one in.
            spent = provider.last_redirect
            driver.delete_all_cookies()
            refused("a replayed callback", spent, "not begun in this browser")
            # A sign-in begun here (its cookie set, the person still at the provider), and
            # a callback with another state: an attacker's code pushed into this browser.
            provider.holding = True
            driver.get(server.base + "/login/oidc")
            wait_for(lambda: heading(driver) == "Sign in at the provider", "the provider's page")
            refused("a forged state", server.base + "/login/oidc/callback?code=theirs&state=forged",
                    "does not match the one this browser began")
            provider.holding = False
        finally:
            driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    arguments = parser.parse_args()
    provider = Provider("almanac-web", CLIENT_SECRET)
    try:
        with tempfile.TemporaryDirectory() as data:
            secret_file = os.path.join(data, "client-secret")
            with open(secret_file, "w") as handle:
                handle.write(CLIENT_SECRET + "\n")
            # Without --allow-private-identity a loopback provider is never asked.
            strict = AlmanacServer(arguments.almanac, os.path.join(data, "strict"), "anna", extra=[
                "--oidc-issuer", provider.issuer, "--oidc-client-id", "almanac-web",
                "--oidc-client-secret-file", secret_file, "--oidc-audience", "almanac-api"])
            try:
                status, headers, body = call(strict, "GET", "/api/v1/calendars", provider.token({"sub": "a", "preferred_username": "anna"}))
                check(status == 503 and provider.count("/.well-known/openid-configuration") == 0,
                      f"a provider on loopback without --allow-private-identity is not asked: {status}")
            finally:
                strict.stop()
            server = AlmanacServer(arguments.almanac, os.path.join(data, "store"), "anna", extra=[
                "--oidc-issuer", provider.issuer, "--oidc-client-id", "almanac-web",
                "--oidc-client-secret-file", secret_file, "--oidc-audience", "almanac-api",
                "--oidc-create-users", "--allow-private-identity"])
            try:
                api_checks(server, provider)
                web_checks(server, provider)
            finally:
                server.stop()
            # A misconfiguration is refused at start, with the option named.
            wrong = subprocess.run([arguments.almanac, "serve", "--data", os.path.join(data, "wrong"), "--port", "0",
                                    "--oidc-issuer", provider.issuer, "--oidc-client-id", "x"],
                                   capture_output=True, text=True, timeout=60)
            check(wrong.returncode != 0 and "--oidc-client-secret-file" in wrong.stderr,
                  f"serve without the client secret refuses to start: {wrong.stderr.strip()}")
    finally:
        provider.stop()
    print(f"OpenID Connect sign-in: all {browser_support.checks()} checks passed")


if __name__ == "__main__":
    main()
