"""What the browser tests share: counted checks, waiting, the JSON API with a token,
and headless Chromium (Debian's chromium and chromium-driver) driven by selenium."""
import json
import os
import urllib.error
import urllib.request

# Checks are counted by the interop scripts' helpers: the browser scripts put
# Tests/Interop on the path (for almanac_server too) before importing this.
import interop_support
from interop_support import check  # noqa: F401
from axe_selenium_python import Axe
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By


def checks():
    """How many checks have passed."""
    return interop_support.checks


def heading(driver):
    """The page's h1, or "" while a navigation has not brought it yet (waits poll this)."""
    # Read in the page in one step: an element found first may be gone by the time its text is asked.
    return driver.execute_script("const h = document.querySelector('h1'); return h ? h.textContent.trim() : ''")


def wait_for(condition, what, seconds=10):
    """Waits as the interop scripts do, polling faster (a page changes within milliseconds).
    An element found a moment before a navigation replaced it (stale) counts as not yet:
    the next poll finds the new page's."""
    def settled():
        try:
            return condition()
        except StaleElementReferenceException:
            return False
    interop_support.wait_for(settled, what, seconds, poll=0.1)


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


def sign_in(driver, server):
    """Signs the server's user in to the web calendar through its form."""
    driver.get(server.base + "/")
    driver.find_element(By.NAME, "user").send_keys(server.user)
    driver.find_element(By.NAME, "password").send_keys(server.password)
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wait_for(lambda: "/calendar" in driver.current_url, "signed in")


SCREENSHOTS = ".build/screenshots"
WCAG_AA = "{runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa']}}"


def violations(driver):
    """What axe-core (axe-selenium-python) finds against WCAG 2 A and AA (the rules of axe-core 3.1, which the package ships) on the page
    as it is: a list of (rule, impact, the first elements' selectors)."""
    Axe(driver).inject()
    driver.set_script_timeout(60)
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"axe.run(document, {WCAG_AA}).then(r => done(r), e => done({{error: String(e)}}));")
    if "error" in result:
        raise SystemExit(f"FAIL: axe-core did not run: {result['error']}")
    found = result["violations"]
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]]) for v in found]


def audit(driver, name):
    """Saves the page's screenshot as .build/screenshots/NAME-WIDTH.png and checks that
    axe-core finds no WCAG A or AA violation on it."""
    width = driver.execute_script("return window.innerWidth")
    os.makedirs(SCREENSHOTS, exist_ok=True)
    driver.save_screenshot(os.path.join(SCREENSHOTS, f"{name}-{width}.png"))
    found = violations(driver)
    check(not found, f"{name} at {width} px: axe-core finds no WCAG A/AA violation {found or ''}")


def audit_pages(server, pages, signed_in):
    """Every page of `pages` ((name, path) pairs) at 390 and 1280 px, signed in or not:
    its screenshot, no axe-core violation, and nothing wider than the screen."""
    for width in (390, 1280):
        driver = browser(width=width)
        try:
            if signed_in:
                sign_in(driver, server)
            for name, path in pages:
                driver.get(server.base + path)
                check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                      f"{name} at {width} px: nothing wider than the screen")
                audit(driver, name)
        finally:
            driver.quit()
