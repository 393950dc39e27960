"""What the browser tests share: counted checks, waiting, the JSON API with a token,
and headless Chromium (Debian's chromium and chromium-driver) driven by selenium."""
import json
import time
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

checks = 0


def check(condition, message):
    global checks
    if not condition:
        raise SystemExit("FAIL: " + message)
    checks += 1
    print("ok: " + message, flush=True)


def heading(driver):
    """The page's h1, or "" while a navigation has not brought it yet (waits poll this)."""
    # Read in the page in one step: an element found first may be gone by the time its text is asked.
    return driver.execute_script("const h = document.querySelector('h1'); return h ? h.textContent.trim() : ''")


def wait_for(condition, what, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise SystemExit("FAIL: timed out waiting for " + what)


def api(server, token):
    """A JSON API call with the token: (status, decoded body)."""
    def call(method, path, body=None):
        request = urllib.request.Request(server.base + path, method=method,
                                         headers={"Authorization": "Bearer " + token, "Content-Type": "application/json"},
                                         data=json.dumps(body).encode() if body is not None else None)
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")
    return call


def browser(user_agent=None, adapter=False, width=1280, zone=None, javascript=True):
    """Headless Chromium at `width`, in `zone` when given; `adapter` injects what a native
    shell does (a bridge that records what the page sends); without `javascript`, none runs."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},900"]:
        options.add_argument(flag)
    if user_agent:
        options.add_argument("--user-agent=" + user_agent)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_window_size(width, 900)
    if zone:
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": zone})
    if adapter:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__messages = [];
            window.nativeBridge = { platform: "ios", supportsComponent: (c) => c === "add-to-calendar",
                                    receive: (message) => window.__messages.push(JSON.parse(JSON.stringify(message))) };
        """})
    return driver
