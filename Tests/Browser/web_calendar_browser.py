"""The web calendar in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by selenium, against `almanac serve` on loopback.

Checks month and week grids for Sunday and Monday week starts, an event on a
DST-change day, a multi-day all-day event, three overlapping events side by side,
that a hostile title shows as text and runs nothing, the "Add to Calendar" bridge
(a test adapter on window receives the message; its reply makes the page send the
mark-added PUT with the CSRF token, checked on the server), the links menu without
a bridge, and that a PUT without the token is refused. Screenshots of month and
week at 390 and 1280 px go to .build/browser-artifacts/."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Interop"))
from almanac_server import AlmanacServer  # noqa: E402

XSS = '<img src=x onerror="window.__xss = 1">'
checks = 0


def check(condition, message):
    global checks
    if not condition:
        raise SystemExit("FAIL: " + message)
    checks += 1
    print("ok: " + message, flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--almanac", required=True)
    parser.add_argument("--artifacts", default=".build/browser-artifacts")
    arguments = parser.parse_args()
    os.makedirs(arguments.artifacts, exist_ok=True)
    with tempfile.TemporaryDirectory() as data:
        server = AlmanacServer(arguments.almanac, data, "anna")
        try:
            run(server, arguments.almanac, data, arguments.artifacts)
        finally:
            server.stop()
    print(f"web calendar in Chromium: all {checks} checks passed")


def api(server, token):
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


def browser(user_agent=None, adapter=False, width=1280):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", f"--window-size={width},900"]:
        options.add_argument(flag)
    if user_agent:
        options.add_argument("--user-agent=" + user_agent)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    if adapter:
        # What a native shell injects: an adapter that records what the page sends.
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": """
            window.__messages = [];
            window.nativeBridge = { platform: "ios", supportsComponent: (c) => c === "add-to-calendar",
                                    receive: (message) => window.__messages.push(JSON.parse(JSON.stringify(message))) };
        """})
    return driver


def sign_in(driver, server):
    driver.get(server.base + "/")
    driver.find_element(By.NAME, "user").send_keys(server.user)
    driver.find_element(By.NAME, "password").send_keys(server.password)
    driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
    wait_for(lambda: "/calendar" in driver.current_url, "signed in")


def wait_for(condition, what, seconds=10):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise SystemExit("FAIL: timed out waiting for " + what)


def run(server, almanac, data, artifacts):
    created = subprocess.run([almanac, "token", "create", "browser-test", "--scope", "read-write", "--data", data],
                             capture_output=True, text=True, check=True).stdout
    token = next(line.strip() for line in created.splitlines() if line.strip().startswith("alm_"))
    call = api(server, token)
    status, calendar = call("POST", "/api/v1/calendars", {"title": "Trainings", "timeZone": "Europe/Berlin", "color": "#E4572E"})
    check(status == 201, "a calendar made through the API")
    cid = calendar["id"]

    def event(body):
        status, made = call("POST", "/api/v1/events", {"calendarId": cid, "timeZone": "Europe/Berlin", **body})
        assert status == 201, made
        return made["id"]

    for title, start, end in [("Spin", "10:00", "11:00"), ("Yoga", "10:30", "12:00"), ("Stretch", "10:45", "11:15")]:
        event({"title": title, "start": f"2026-12-01T{start}:00", "end": f"2026-12-01T{end}:00"})
    # Berlin springs forward on 2026-03-29: 01:30 CET to 04:00 CEST is 2.5 hours of wall clock, 1.5 hours of time.
    event({"title": "Night shift", "start": "2026-03-29T01:30:00", "end": "2026-03-29T04:00:00"})
    event({"title": "Holidays", "start": "2026-12-24", "end": "2026-12-27"})
    xss = event({"title": XSS, "start": "2026-12-02T09:00:00", "end": "2026-12-02T10:00:00"})
    spin = event({"title": "Leg day", "start": "2026-12-03T18:00:00", "duration": "PT90M", "location": "Gym"})

    driver = browser()
    try:
        sign_in(driver, server)
        # Month grids.
        for first, expected_rows, first_day in [("monday", 6, "2026-10-26"), ("sunday", 5, "2026-11-01")]:
            driver.get(f"{server.base}/calendar?view=month&date=2026-11-29&firstWeekday={first}&tz=Europe/Berlin")
            headers = [h.get_attribute("abbr") for h in driver.find_elements(By.CSS_SELECTOR, "table.month th[role=columnheader]")]
            check(headers[0] == first.capitalize() and len(headers) == 7, f"month grid columns start on {first}")
            rows = driver.find_elements(By.CSS_SELECTOR, "table.month tbody tr[role=row]")
            check(len(rows) == expected_rows, f"November 2026 from {first}: {expected_rows} weeks")
            cells = driver.find_elements(By.CSS_SELECTOR, "table.month td[role=gridcell]")
            check(cells[0].get_attribute("data-date") == first_day, f"the grid from {first} starts on {first_day}")
            for width in (390, 1280):
                driver.set_window_size(width, 900)
                driver.save_screenshot(os.path.join(artifacts, f"month-{first}-{width}.png"))
            driver.set_window_size(1280, 900)

        # XSS: the title is text, nothing ran.
        driver.get(f"{server.base}/calendar?view=month&date=2026-12-01&tz=Europe/Berlin")
        texts = [a.text for a in driver.find_elements(By.CSS_SELECTOR, "ul.events a")]
        check(XSS in texts, "a hostile title shows as text")
        check(driver.execute_script("return window.__xss") is None, "and runs nothing")
        driver.get(f"{server.base}/calendar/event?id={xss}")
        check(driver.find_element(By.TAG_NAME, "h1").text == XSS and driver.execute_script("return window.__xss") is None,
              "the event page shows the hostile title as its heading, and runs nothing")

        # Week grid: three overlapping events side by side; multi-day all-day; DST day.
        driver.get(f"{server.base}/calendar?view=week&date=2026-12-01&firstWeekday=monday&tz=Europe/Berlin")
        boxes = sorted((e.rect for e in driver.find_elements(By.CSS_SELECTOR, "td[data-date='2026-12-01'] a.timed-event")), key=lambda r: r["x"])
        check(len(boxes) == 3, "three timed events on 1 December")
        check(all(boxes[i]["x"] + boxes[i]["width"] <= boxes[i + 1]["x"] + 1 for i in range(2)), "they sit side by side, not on top of each other")
        for width in (390, 1280):
            driver.set_window_size(width, 900)
            driver.save_screenshot(os.path.join(artifacts, f"week-monday-{width}.png"))
        driver.set_window_size(1280, 900)
        driver.get(f"{server.base}/calendar?view=week&date=2026-12-24&firstWeekday=sunday&tz=Europe/Berlin")
        headers = [h.get_attribute("abbr") for h in driver.find_elements(By.CSS_SELECTOR, "table.week th[role=columnheader]")]
        check(headers[0].startswith("Sunday 2026-12-20"), "the week from Sunday starts on 20 December")
        holidays = driver.find_element(By.CSS_SELECTOR, "td.all-day-event")
        check(holidays.get_attribute("colspan") == "3" and holidays.text == "Holidays", "a three-day all-day event spans three columns")
        driver.save_screenshot(os.path.join(artifacts, "week-sunday-1280.png"))
        driver.get(f"{server.base}/calendar?view=week&date=2026-03-29&tz=Europe/Berlin")
        column = driver.find_element(By.CSS_SELECTOR, "td[data-date='2026-03-29']")
        check(column.get_attribute("data-minutes") == "1380", "the spring-forward day has 23 hours")
        shift = column.find_element(By.CSS_SELECTOR, "a.timed-event")
        check(shift.get_attribute("data-start-minute") == "90" and shift.get_attribute("data-end-minute") == "180",
              "an event on the DST day is placed by elapsed time (90 to 180 minutes)")

        # Without a native bridge, the button opens the links menu.
        driver.get(f"{server.base}/calendar/event?id={spin}")
        driver.find_element(By.CSS_SELECTOR, "[data-controller='bridge--add-to-calendar']").click()
        menu = driver.find_element(By.CSS_SELECTOR, "details.add-links")
        check(menu.get_attribute("open") is not None, "without a bridge the button opens the links menu")
        hrefs = [a.get_attribute("href") for a in menu.find_elements(By.TAG_NAME, "a")]
        check(hrefs[0].startswith("https://calendar.google.com/calendar/render?action=TEMPLATE") and "Leg%20day" in hrefs[0], "Google link")
        check(hrefs[1].startswith("https://outlook.live.com/calendar/0/deeplink/compose?") and hrefs[2].startswith("https://outlook.office.com/"),
              "Outlook.com and Office 365 links")
        check(hrefs[3].startswith("https://calendar.yahoo.com/?v=60") and hrefs[4].endswith(f"/events/{spin}.ics"), "Yahoo and .ics links")

        # CSRF: the page's session alone cannot change anything.
        refused = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            fetch(arguments[0], { method: "PUT", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: "{}" })
              .then((response) => done(response.status));
        """, f"/api/v1/events/{spin}/added")
        check(refused == 403, "a PUT without the CSRF token is refused")
        check(call("GET", f"/api/v1/events/{spin}/added")[0] == 404, "and nothing was marked")
    finally:
        driver.quit()

    # Inside a native shell: the user agent advertises the component, the adapter receives the message.
    agent = "Mozilla/5.0 (iPhone) Hotwire Native iOS; bridge-components: [add-to-calendar menu]"
    driver = browser(user_agent=agent, adapter=True, width=390)
    try:
        sign_in(driver, server)
        driver.get(f"{server.base}/calendar/event?id={spin}")
        check(driver.execute_script("return document.documentElement.dataset.bridgeComponents") == "add-to-calendar menu",
              "<html> carries the bridge components")
        check(not driver.find_element(By.CSS_SELECTOR, "details.add-links").is_displayed(), "the web-only links are hidden in the native shell")
        button = driver.find_element(By.CSS_SELECTOR, "[data-controller='bridge--add-to-calendar']")
        payload = json.loads(button.get_attribute("data-bridge-payload"))
        button.click()
        wait_for(lambda: driver.execute_script("return window.__messages.length") == 1, "the bridge message")
        message = driver.execute_script("return window.__messages[0]")
        check(message["component"] == "add-to-calendar" and message["event"] == "add" and message["id"], "the message names the component and event")
        data = dict(message["data"])
        metadata = data.pop("metadata")
        check(data == payload and metadata["url"] == driver.current_url, "its data is the payload, plus the page URL")
        check(payload["name"] == "Leg day" and payload["location"] == "Gym" and payload["timeZone"] == "Europe/Berlin", "the payload describes the event")
        driver.execute_script("window.HotwireNative.web.receive({ id: arguments[0], component: 'add-to-calendar', event: 'add', data: { nativeIdentifier: 'EK-42' } })",
                              message["id"])
        wait_for(lambda: driver.find_element(By.CSS_SELECTOR, ".added-note").is_displayed(), "the added note")
        status, mark = call("GET", f"/api/v1/events/{spin}/added")
        check(status == 200 and mark["platform"] == "ios" and mark["nativeIdentifier"] == "EK-42",
              "the reply made the page send the mark-added PUT with its CSRF token (the server has the mark)")
        driver.save_screenshot(os.path.join(artifacts, "event-native-390.png"))
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
