"""The web calendar in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by selenium, against `almanac serve` on loopback.

Checks month and week grids for Sunday and Monday week starts, an event on a
DST-change day, a multi-day all-day event, three overlapping events side by side,
that a hostile title shows as text and runs nothing, the "Add to Calendar" bridge
(a test adapter on window receives the message; its reply makes the page send the
mark-added PUT with the CSRF token, checked on the server), the links menu without
a bridge, and that a PUT without the token is refused.

The recurring-event path a user takes: from the month and the week view, at desktop
and at phone width (where the month shows dots and a tapped day lists its events
below the grid), clicking a single event, each instance of a weekly series made with
`almanac add --rrule`, an overridden instance and an all-day series opens that
instance's page with its own times in the Add to Calendar payload (derived here with
zoneinfo). Also: distinct calendar colours, the week and day views' hour gutter on
ordinary and DST days, the now-line, and the browser's zone remembered at a first
sign-in. Screenshots of month and week at 390 and 1280 px go to
.build/browser-artifacts/.

An invitation clicked through: the invited user opens one week of a weekly invitation
from their month view, declines that week with its button, then accepts the whole
series from the same page; the organizer's pages for that week and for the series show
those answers."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Interop"))
from almanac_server import AlmanacServer  # noqa: E402

import browser_support  # noqa: E402
from browser_support import audit, audit_pages, api, browser, check, heading, sign_in, wait_for  # noqa: E402

XSS = '<img src=x onerror="window.__xss = 1">'


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
    print(f"web calendar in Chromium: all {browser_support.checks()} checks passed")


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
    event({"title": "Sunday class", "start": "2026-03-29T18:00:00", "end": "2026-03-29T19:00:00"})
    # Berlin falls back on 2026-10-25: 01:30 UTC is the second 02:30 of the night, in CET.
    event({"title": "Night watch", "timeZone": "UTC", "start": "2026-10-25T01:30:00", "end": "2026-10-25T02:30:00"})
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
        check("09:00 " + XSS in texts, f"a hostile title shows as text, after its time: {texts}")
        check(driver.execute_script("return window.__xss") is None, "and runs nothing")
        driver.get(f"{server.base}/calendar/event?id={xss}")
        check(heading(driver) == XSS and driver.execute_script("return window.__xss") is None,
              "the event page shows the hostile title as its heading, and runs nothing")

        # Week grid: three overlapping events side by side; multi-day all-day; DST day.
        driver.get(f"{server.base}/calendar?view=week&date=2026-12-01&firstWeekday=monday&tz=Europe/Berlin")
        boxes = sorted((e.rect for e in driver.find_elements(By.CSS_SELECTOR, "td[data-date='2026-12-01'] a.timed-event")), key=lambda r: r["x"])
        check(len(boxes) == 3, "three timed events on 1 December")
        check(all(boxes[i]["x"] + boxes[i]["width"] <= boxes[i + 1]["x"] + 1 for i in range(2)), "they sit side by side, not on top of each other")
        # The grid opens at the working day (07:00, the first event being at 10:00), under its headers.
        opened = driver.execute_script("""
            const box = document.querySelector('.grid-scroll');
            const label = [...box.querySelectorAll('.hour-label')].find(l => l.textContent === '07:00');
            return {scrolled: box.scrollTop, label: label.getBoundingClientRect().top - box.getBoundingClientRect().top,
                    head: box.querySelector('thead').offsetHeight, fits: box.getBoundingClientRect().bottom <= window.innerHeight + 1};
        """)
        check(opened["scrolled"] > 0 and abs(opened["label"] - opened["head"]) <= 12 and opened["fits"],
              f"the week opens at 07:00 just under the day headers, in a box within the screen: {opened}")
        for width in (390, 1280):
            driver.set_window_size(width, 900)
            driver.save_screenshot(os.path.join(artifacts, f"week-monday-{width}.png"))
            strip = driver.find_element(By.CSS_SELECTOR, ".week-strip")
            grid = driver.find_element(By.CSS_SELECTOR, "table.time-grid.week")
            if width < 600:
                check(strip.is_displayed() and not grid.is_displayed(), "390 px: the week is a strip of days, not seven columns")
                days = strip.find_elements(By.CSS_SELECTOR, "a.strip-day")
                check(len(days) == 7 and all(d.rect["width"] >= 40 for d in days), "390 px: seven days, each a wide enough target")
                check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                      "390 px: the week fits the screen")
                agenda = strip.find_element(By.CSS_SELECTOR, ".strip-agenda").text
                check("Spin" in agenda and "Yoga" in agenda and "Stretch" in agenda,
                      "390 px: the chosen day's events below the strip")
                days[2].click()
                wait_for(lambda: "date=2026-12-02" in driver.current_url, "390 px: another day chosen")
                chosen = driver.find_element(By.CSS_SELECTOR, ".strip-agenda")
                check("Wednesday, 2 December 2026" in chosen.text and "Spin" not in chosen.text,
                      "390 px: its events shown instead")
                driver.save_screenshot(os.path.join(artifacts, "week-strip-390.png"))
                driver.get(f"{server.base}/calendar?view=week&date=2026-12-01&firstWeekday=monday&tz=Europe/Berlin")
            else:
                check(grid.is_displayed() and not strip.is_displayed(), "1280 px: the seven-day time grid")
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
        check(shift.get_attribute("data-start-minute") == "90" and shift.get_attribute("data-end-minute") == "240",
              "an event on the DST day is placed by wall clock (01:30 to 04:00)")

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

    recurring_path(server, almanac, data, artifacts, call, cid, spin)
    browser_zone(server, almanac, data)
    run_id = invitation_path(server, almanac, data, call, cid)
    # Every page, at both widths: a screenshot under .build/screenshots and axe-core.
    audit_pages(server, [("sign-in", "/")], signed_in=False)
    audit_pages(server, [
        ("month", "/calendar?view=month&date=2026-12-01&tz=Europe/Berlin"),
        ("week", "/calendar?view=week&date=2026-12-01&tz=Europe/Berlin"),
        ("day", "/calendar?view=day&date=2026-12-01&tz=Europe/Berlin"),
        ("week-dst", "/calendar?view=week&date=2026-03-29&tz=Europe/Berlin"),
        ("event", f"/calendar/event?id={spin}"),
        ("invitation", f"/calendar/event?id={run_id}"),
        ("new-event", "/calendar/new?date=2026-12-01"),
        ("edit-event", f"/calendar/edit?id={spin}"),
        ("delete-event", f"/calendar/delete?id={spin}"),
        ("not-found", "/calendar/event?id=nothing-here"),
        ("app-passwords", "/calendar/app-passwords"),
    ], signed_in=True)

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
    delete_path(server, artifacts, event)
    app_password_path(server)


def app_password_path(server):
    """A calendar app's password made on the page at each width: read only, for the Trainings
    calendar; the page shows it once with the server URL, then lists it; revoking asks first."""
    for width in (390, 1280):
        driver = browser(width=width)
        try:
            sign_in(driver, server)
            driver.get(server.base + "/calendar")
            driver.find_element(By.LINK_TEXT, "App passwords").click()
            wait_for(lambda: heading(driver) == "App passwords", "the app passwords page")
            driver.find_element(By.NAME, "name").send_keys(f"Phone {width}")
            driver.find_element(By.CSS_SELECTOR, "input[name=scope][value=read]").click()
            driver.find_element(By.XPATH, "//label[contains(., 'Trainings')]/input[@name='calendar']").click()
            driver.find_element(By.CSS_SELECTOR, "form[action='/calendar/app-passwords'] button[type=submit]").click()
            wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "code.secret"), "the new app password")
            secret = driver.find_element(By.CSS_SELECTOR, "code.secret").text
            check(secret.startswith("alm_"), f"at {width} px the new app password is shown once")
            check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                  f"app-password-created at {width} px: nothing wider than the screen")
            audit(driver, "app-password-created")
            driver.get(server.base + "/calendar/app-passwords")
            card = driver.find_element(By.XPATH, f"//li[h3[text()='Phone {width}']]")
            check("Read only · Only Trainings" in card.text and secret not in driver.page_source,
                  f"at {width} px the list shows what it may do, and never the secret again")
            card.find_element(By.CSS_SELECTOR, "a.danger").click()
            wait_for(lambda: heading(driver) == "Revoke an app password", "the revoke confirmation")
            audit(driver, "revoke-app-password")
            driver.find_element(By.CSS_SELECTOR, "button.danger").click()
            wait_for(lambda: heading(driver) == "App passwords", "back on the list")
            check(not driver.find_elements(By.XPATH, f"//li[h3[text()='Phone {width}']]"), f"at {width} px revoked, it is gone")
        finally:
            driver.quit()


def delete_path(server, artifacts, event):
    """Deleting from the event page at both widths: one occurrence of a series after the
    confirmation names it, then a single event; "Keep" (the Cancel link) changes nothing."""
    for width in (390, 1280):
        event({"title": f"Drop-in {width}", "start": "2026-12-08T07:00:00", "end": "2026-12-08T08:00:00",
                        "rrule": "FREQ=DAILY;COUNT=3"})
        driver = browser(width=width)
        try:
            sign_in(driver, server)
            driver.get(f"{server.base}/calendar?view=week&date=2026-12-08&tz=Europe/Berlin")
            instances = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "a.timed-event")
                         if f"Drop-in {width}" in a.get_attribute("textContent")]
            check(len(instances) == 3, f"{width} px: the three instances of the series")
            driver.get(instances[1])
            driver.find_element(By.LINK_TEXT, "Delete…").click()
            wait_for(lambda: heading(driver).startswith("Delete"), f"{width} px: the confirmation")
            choices = [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, "input[name=span]")]
            check(choices == ["this", "future", "all"], f"{width} px: a series asks which occurrences ({choices})")
            check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                  f"{width} px: the confirmation fits the screen")
            driver.save_screenshot(os.path.join(artifacts, f"delete-confirm-{width}.png"))
            driver.find_element(By.LINK_TEXT, "Cancel").click()
            wait_for(lambda: "/calendar/event?" in driver.current_url, f"{width} px: Cancel goes back to the event")
            driver.find_element(By.LINK_TEXT, "Delete…").click()
            wait_for(lambda: heading(driver).startswith("Delete"), f"{width} px: the confirmation again")
            driver.find_element(By.CSS_SELECTOR, "form.delete-form button[type=submit]").click()
            wait_for(lambda: "view=day" in driver.current_url, f"{width} px: after deleting, the day")
            driver.get(f"{server.base}/calendar?view=week&date=2026-12-08&tz=Europe/Berlin")
            left = [a for a in driver.find_elements(By.CSS_SELECTOR, "a.timed-event")
                    if f"Drop-in {width}" in a.get_attribute("textContent")]
            check(len(left) == 2, f"{width} px: only that occurrence went ({len(left)} left)")
            driver.save_screenshot(os.path.join(artifacts, f"delete-after-week-{width}.png"))
        finally:
            driver.quit()


BERLIN = ZoneInfo("Europe/Berlin")


def ms(local, zone=BERLIN):
    """Milliseconds since the epoch of a wall clock in a zone."""
    return int(local.replace(tzinfo=zone).timestamp() * 1000)


def recurring_path(server, almanac, data, artifacts, call, cid, single):
    """Clicks every kind of event from both views at both widths and checks its page."""
    added = subprocess.run([almanac, "add", "--calendar", "Trainings", "--title", "Weekly training", "--start", "2026-12-07T18:00",
                            "--duration", "60m", "--tz", "Europe/Berlin", "--rrule", "FREQ=WEEKLY;COUNT=3", "--data", data, "--user", server.user],
                           capture_output=True, text=True)
    check(added.returncode == 0, "almanac add --rrule FREQ=WEEKLY;COUNT=3 makes a weekly training: " + added.stderr.strip())
    status, listed = call("GET", f"/api/v1/calendars/{cid}/occurrences?from=2026-12-07T00:00:00Z&to=2026-12-31T00:00:00Z&title=Weekly")
    series = [o for o in listed["occurrences"] if o["title"] == "Weekly training"]
    check(status == 200 and len(series) == 3, "the series has three instances")
    series_id = series[0]["eventId"]
    # The second instance moves to Tuesday 19:30 with its own title: an override.
    second = series[1]["recurrenceId"]
    status, _ = call("PATCH", f"/api/v1/occurrences/{series_id}/{second}?span=this",
                     {"title": "Weekly training (moved)", "start": "2026-12-15T19:30:00", "end": "2026-12-15T20:30:00", "timeZone": "Europe/Berlin"})
    check(status == 200, "the second instance is overridden through the API")
    status, _ = call("POST", "/api/v1/events", {"calendarId": cid, "title": "Rest day", "start": "2026-12-10", "end": "2026-12-11",
                                                "rrule": "FREQ=WEEKLY;COUNT=2"})
    check(status == 201, "an all-day weekly series")

    # What each click must open: title, and the payload's start and end (ms) or all-day dates.
    expected = {
        "Weekly training@2026-12-07": ("Weekly training", ms(datetime(2026, 12, 7, 18)), ms(datetime(2026, 12, 7, 19)), False),
        "Weekly training (moved)@2026-12-15": ("Weekly training (moved)", ms(datetime(2026, 12, 15, 19, 30)), ms(datetime(2026, 12, 15, 20, 30)), False),
        "Weekly training@2026-12-21": ("Weekly training", ms(datetime(2026, 12, 21, 18)), ms(datetime(2026, 12, 21, 19)), False),
        "Rest day@2026-12-10": ("Rest day", ms(datetime(2026, 12, 10), timezone.utc), ms(datetime(2026, 12, 11), timezone.utc), True),
        "Rest day@2026-12-17": ("Rest day", ms(datetime(2026, 12, 17), timezone.utc), ms(datetime(2026, 12, 18), timezone.utc), True),
        "Leg day@2026-12-03": ("Leg day", ms(datetime(2026, 12, 3, 18)), ms(datetime(2026, 12, 3, 19, 30)), False),
    }

    def check_page(driver, key, how):
        title, start, end, all_day = expected[key]
        # The click's navigation may not have begun yet: wait for the event page's heading.
        wait_for(lambda: heading(driver) == title, f"{how}: {key} to open its page, not an error")
        payload = json.loads(driver.find_element(By.CSS_SELECTOR, "[data-controller='bridge--add-to-calendar']").get_attribute("data-bridge-payload"))
        if all_day:
            got = (payload["allDay"], payload["allDayStartAtInMillisecondsSinceEpoch"], payload["allDayEndsAtInMillisecondsSinceEpoch"])
            check(got == (True, start, end), f"{how}: the Add to Calendar payload of {key} has that instance's dates {got}")
        else:
            got = (payload["startsAtInMillisecondsSinceEpoch"], payload["endsAtInMillisecondsSinceEpoch"])
            check(got == (start, end), f"{how}: the Add to Calendar payload of {key} has that instance's times {got}")
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "details.add-links a")]
        check(len(links) == 5 and "calendar.google.com" in links[0], f"{how}: the links menu of {key} is there")
        if how.startswith("month at 1280"):
            # The .ics download is the same instance the button adds (fetched with the page's session).
            ics = driver.execute_async_script("""
                const done = arguments[arguments.length - 1];
                fetch(arguments[0], { credentials: "same-origin" }).then((r) => r.text()).then(done);
            """, links[4])
            event_lines = ics.split("BEGIN:VEVENT", 1)[-1].split("END:VEVENT", 1)[0].splitlines()
            starts = [line for line in event_lines if line.startswith("DTSTART")]
            # (Its VTIMEZONE's observances may have RRULEs: the event itself has none.)
            check(len(starts) == 1 and not any(line.startswith("RRULE") for line in event_lines),
                  f"{how}: the .ics of {key} is one instance ({starts})")
            stamp = datetime.fromtimestamp(start / 1000, timezone.utc)
            wanted = [stamp.strftime("%Y%m%d")] if all_day else [stamp.astimezone(BERLIN).strftime("%Y%m%dT%H%M%S"), stamp.strftime("%Y%m%dT%H%M%SZ")]
            check(any(starts[0].endswith(":" + w) for w in wanted), f"{how}: the .ics of {key} starts when that instance does")

    driver = browser()
    try:
        sign_in(driver, server)
        for width in (1280, 390):
            driver.set_window_size(width, 900)
            for key, (title, *_rest) in expected.items():
                date = key.split("@")[1]
                # Month view: at desktop the cell lists titles; at phone width a tap on the day lists them below.
                driver.get(f"{server.base}/calendar?view=month&date=2026-12-01&tz=Europe/Berlin")
                if width == 1280:
                    link = driver.find_element(By.XPATH, f"//td[@data-date='{date}']//ul[@class='events']//a[normalize-space(text())='{title}']")
                else:
                    check(not driver.find_element(By.CSS_SELECTOR, f"td[data-date='{date}'] ul.events").is_displayed(),
                          f"at phone width the month cell of {date} shows dots, not titles")
                    driver.find_element(By.CSS_SELECTOR, f"td[data-date='{date}']").click()
                    detail = driver.find_element(By.CSS_SELECTOR, f".day-detail[data-date='{date}']")
                    wait_for(lambda: detail.is_displayed(), f"the list of {date} below the grid")
                    check("view=month" in driver.current_url and f"date={date}" in driver.current_url,
                          f"tapping {date} stays in the month and remembers the day")
                    others = [d for d in driver.find_elements(By.CSS_SELECTOR, ".day-detail") if d.is_displayed()]
                    check(len(others) == 1, f"only the list of {date} shows")
                    link = detail.find_element(By.XPATH, f".//a[text()='{title}']")
                link.click()
                check_page(driver, key, f"month at {width} px")
                # Week view: timed events in their column, all-day ones in the all-day row; at
                # phone width the strip's chosen day lists them.
                driver.get(f"{server.base}/calendar?view=week&date={date}&tz=Europe/Berlin")
                if width == 390:
                    link = driver.find_element(By.XPATH, f"//div[@class='strip-agenda']//a[text()='{title}']")
                elif expected[key][3]:
                    link = driver.find_element(By.XPATH, f"//td[contains(@class,'all-day-event')]/a[text()='{title}']")
                else:
                    link = driver.find_element(By.XPATH, f"//td[@data-date='{date}']//a[contains(@class,'timed-event')][contains(., '{title}')]")
                driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", link)
                link.click()
                check_page(driver, key, f"week at {width} px")
            driver.get(f"{server.base}/calendar?view=month&date=2026-12-15&tz=Europe/Berlin")
            driver.save_screenshot(os.path.join(artifacts, f"month-recurring-{width}.png"))
        driver.set_window_size(1280, 900)

        # The edit form of an overridden instance opens with its times.
        driver.get(f"{server.base}/calendar/edit?id={series_id}&occurrence={second}&tz=Europe/Berlin")
        check(driver.find_element(By.NAME, "title").get_attribute("value") == "Weekly training (moved)"
              and driver.find_element(By.NAME, "startTime").get_attribute("value") == "19:30", "the overridden instance's edit form has its own title and time")

        # Colours: a calendar made without one gets one apart from the first.
        status, other = call("POST", "/api/v1/calendars", {"title": "Work", "timeZone": "Europe/Berlin"})
        status2, third = call("POST", "/api/v1/calendars", {"title": "Family"})
        check(status == 201 and status2 == 201 and len({"#E4572E", other["color"], third["color"]}) == 3,
              f"new calendars get distinct colours ({other['color']}, {third['color']})")
        driver.get(f"{server.base}/calendar?view=month&date=2026-12-01&tz=Europe/Berlin")
        dots = [d.value_of_css_property("background-color") for d in driver.find_elements(By.CSS_SELECTOR, ".calendars label .dot")]
        check(len(dots) == 3 and len(set(dots)) == 3, f"the calendar list shows three different colours {dots}")

        # DST days: every column is the same 24 wall-clock hours, so each day's hour lines
        # sit on the gutter's labels in a DST week and day, both directions, both widths.
        def gutter_marks():
            marks = {}
            for label in driver.find_elements(By.CSS_SELECTOR, "th.gutter .hour-label"):
                rect = label.rect
                minute = int(label.get_attribute("data-minute"))
                marks[minute] = rect["y"] if minute == 0 else rect["y"] + rect["height"] / 2
            return marks

        def rows_align(url, width, dates, name):
            driver.set_window_size(width, 900)
            driver.get(server.base + url)
            marks = gutter_marks()
            check(sorted(marks) == [h * 60 for h in range(24)], f"{name}: the gutter labels 00:00 to 23:00 {sorted(marks)[:4]}")
            gutter = driver.find_element(By.CSS_SELECTOR, "th.gutter .hours").rect
            inside = all(gutter["x"] - 1 <= l.rect["x"] and l.rect["x"] + l.rect["width"] <= gutter["x"] + gutter["width"] + 1
                         for l in driver.find_elements(By.CSS_SELECTOR, "th.gutter .hour-label"))
            check(inside, f"{name}: no gutter label is cut off")
            for date in dates:
                lines = driver.find_elements(By.CSS_SELECTOR, f"td[data-date='{date}'] .hour-line")
                drift = max(abs(line.rect["y"] - marks[minute])
                            for minute, line in zip(range(0, 1440, 60), lines))
                check(len(lines) == 24 and drift <= 1.5, f"{name}: {date}'s hour lines sit on the gutter (drift {drift:.1f}px)")
            check(not driver.find_elements(By.CSS_SELECTOR, "td .hour-label"), f"{name}: no day prints its own hour labels over events")
            driver.save_screenshot(os.path.join(artifacts, f"{name}-{width}.png"))
            return marks

        marks = rows_align("/calendar?view=week&date=2026-03-29&tz=Europe/Berlin", 1280, ["2026-03-28", "2026-03-29"], "week-spring")
        sunday = driver.find_element(By.XPATH, "//a[contains(@class,'timed-event')][contains(., 'Sunday class')]")
        check(abs(sunday.rect["y"] - marks[18 * 60]) <= 2, "Sunday's 18:00 class sits on the gutter's 18:00 row, not 19:00")
        skipped = driver.find_elements(By.CSS_SELECTOR, "td[data-date='2026-03-29'] .clock-change.skipped")
        check(len(skipped) == 1 and skipped[0].get_attribute("data-minute") == "120" and skipped[0].text == "Clocks go forward"
              and abs(skipped[0].rect["y"] - marks[120]) <= 1.5
              and not driver.find_elements(By.CSS_SELECTOR, "td[data-date='2026-03-28'] .clock-change"),
              "the skipped hour 02:00–03:00 is one marked row on the spring-forward day only")
        check(driver.find_element(By.CSS_SELECTOR, ".gutter-head").text == "CET/CEST", "the gutter names both of the week's zones")
        rows_align("/calendar?view=week&date=2026-10-25&tz=Europe/Berlin", 1280, ["2026-10-24", "2026-10-25"], "week-autumn")
        for width in (390, 1280):
            rows_align("/calendar?view=day&date=2026-03-29&tz=Europe/Berlin", width, ["2026-03-29"], "day-spring")
            label = driver.find_element(By.XPATH, "//th[contains(@class,'gutter')]//span[text()='04:00']")
            shift = driver.find_element(By.XPATH, "//a[contains(@class,'timed-event')][contains(., 'Night shift')]")
            check(abs(label.rect["y"] + label.rect["height"] / 2 - (shift.rect["y"] + shift.rect["height"])) <= 2,
                  f"the night shift, ending at 04:00 CEST, ends at the gutter's 04:00 ({width} px)")
            marks = rows_align("/calendar?view=day&date=2026-10-25&tz=Europe/Berlin", width, ["2026-10-25"], "day-autumn")
            twice = driver.find_element(By.CSS_SELECTOR, ".clock-change.repeated")
            check(twice.text == "Twice: CEST, then CET" and abs(twice.rect["y"] - marks[120]) <= 1.5,
                  f"the repeated hour says it happens twice ({width} px)")
            watch = driver.find_element(By.XPATH, "//a[contains(@class,'timed-event')][contains(., 'Night watch')]")
            check(watch.find_element(By.CSS_SELECTOR, ".time").text == "02:30 CET" and abs(watch.rect["y"] - marks[120] - (marks[180] - marks[120]) / 2) <= 2,
                  f"the second 02:30 of the night is in the 02:00 row, named CET ({width} px)")

        # The now-line: on today, in the view's zone, where the clock says.
        for view in ("week", "day"):
            driver.get(f"{server.base}/calendar?view={view}&tz=Europe/Berlin")
            now = datetime.now(BERLIN)
            lines = driver.find_elements(By.CSS_SELECTOR, "td.today .now-line")
            midnight = datetime(now.year, now.month, now.day, tzinfo=BERLIN)
            minute = int((now - midnight).total_seconds() // 60)
            check(len(lines) == 1 and abs(int(lines[0].get_attribute("data-now-minute")) - minute) <= 2,
                  f"the {view} view has a now-line on today at minute {minute}")
            check(len(driver.find_elements(By.CSS_SELECTOR, ".now-line")) == 1, f"and only there ({view})")
    finally:
        driver.quit()


def browser_zone(server, almanac, data):
    """A first sign-in stores the browser's zone; a later one in another zone keeps it."""
    made = subprocess.run([almanac, "user", "add", "ben", "--data", data], input="ben's long password\n", capture_output=True, text=True)
    check(made.returncode == 0, "a second user: " + made.stderr.strip())
    for zone in ("America/Los_Angeles", "Asia/Tokyo"):
        driver = browser(zone=zone)
        try:
            check(driver.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone") == zone, f"the browser's zone is {zone}")
            driver.get(server.base + "/")
            driver.find_element(By.NAME, "user").send_keys("ben")
            driver.find_element(By.NAME, "password").send_keys("ben's long password")
            driver.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
            wait_for(lambda: "/calendar" in driver.current_url, "ben signed in")
            stored = driver.find_element(By.CSS_SELECTOR, "form.settings input[name=tz]").get_attribute("value")
            check(stored == "America/Los_Angeles", f"signed in from {zone}, the view zone is the first sign-in's ({stored})")
            today = datetime.now(ZoneInfo("America/Los_Angeles")).date().isoformat()
            check(driver.find_element(By.CSS_SELECTOR, "td.today").get_attribute("data-date") == today, "and today is today there")
        finally:
            driver.quit()


def invitation_path(server, almanac, data, call, cid):
    """Cara answers Anna's weekly invitation from its page; Anna's pages show the answers.
    Returns the invitation's id."""
    for command in (["user", "email", server.user, "anna@example.com"],
                    ["user", "add", "cara", "--email", "cara@example.com"]):
        done = subprocess.run([almanac, *command, "--data", data], input="cara's long password\n",
                              capture_output=True, text=True)
        check(done.returncode == 0, f"almanac {' '.join(command[:2])}: " + done.stderr.strip())
    status, made = call("POST", "/api/v1/events", {
        "calendarId": cid, "title": "Team run", "start": "2026-12-08T07:00:00", "end": "2026-12-08T08:00:00",
        "timeZone": "Europe/Berlin", "rrule": "FREQ=WEEKLY;COUNT=3", "attendees": [{"email": "cara@example.com", "name": "Cara"}]})
    check(status == 201, f"Anna invites Cara to a weekly run ({status})")

    def open_week(driver, date):
        driver.get(f"{driver.base}/calendar?view=month&date={date}&tz=Europe/Berlin")
        link = driver.find_element(By.XPATH, f"//td[@data-date='{date}']//a[normalize-space(text())='Team run']")
        link.click()
        wait_for(lambda: heading(driver) == "Team run", f"the page of the run on {date}")

    def answers(driver):
        return {item.find_element(By.CSS_SELECTOR, ".who").text: item.find_element(By.CSS_SELECTOR, ".answer").text
                for item in driver.find_elements(By.CSS_SELECTOR, "ul.answers li")}

    cara = browser()
    anna = browser()
    try:
        cara.base = anna.base = server.base
        cara.get(server.base + "/")
        cara.find_element(By.NAME, "user").send_keys("cara")
        cara.find_element(By.NAME, "password").send_keys("cara's long password")
        cara.find_element(By.CSS_SELECTOR, "form[action='/login'] button").click()
        wait_for(lambda: "/calendar" in cara.current_url, "cara signed in")
        open_week(cara, "2026-12-15")
        check("Organized by anna@example.com" in cara.find_element(By.CSS_SELECTOR, "section.attendees").text,
              "Cara's page says who invites her")
        check(cara.find_element(By.CSS_SELECTOR, ".your-answer").text == "Your answer: Not answered yet", "and that she has not answered")
        week_url = cara.current_url
        cara.find_element(By.CSS_SELECTOR, "form.rsvp button[value=declined]").click()
        wait_for(lambda: cara.find_elements(By.CSS_SELECTOR, ".your-answer")
                 and cara.find_element(By.CSS_SELECTOR, ".your-answer").text == "Your answer: Declined", "Cara's decline")
        check(cara.current_url == week_url, "the answer brings her back to that week's page")

        sign_in(anna, server)
        open_week(anna, "2026-12-15")
        check(answers(anna).get("Cara <cara@example.com>") == "Declined", f"Anna's page of that week: Cara declined {answers(anna)}")
        open_week(anna, "2026-12-08")
        check(answers(anna).get("Cara <cara@example.com>") == "Not answered yet", "the other weeks are unanswered")
        check(not anna.find_elements(By.CSS_SELECTOR, "form.rsvp"), "the organizer gets no answer buttons")

        cara.get(week_url)
        cara.find_element(By.CSS_SELECTOR, "form.rsvp input[name=span][value=all]").click()
        cara.find_element(By.CSS_SELECTOR, "form.rsvp button[value=accepted]").click()
        # The page comes back with "This event" chosen again (the choice made here was "All events").
        wait_for(lambda: cara.execute_script(
            "const r = document.querySelector('form.rsvp input[value=all]'); return r !== null && !r.checked"),
            "the page again after the answer")
        open_week(anna, "2026-12-22")
        check(answers(anna).get("Cara <cara@example.com>") == "Accepted", f"accepting the series reaches Anna: {answers(anna)}")
        open_week(anna, "2026-12-15")
        check(answers(anna).get("Cara <cara@example.com>") == "Declined", "the declined week stays declined")
    finally:
        cara.quit()
        anna.quit()
    return made["id"]


if __name__ == "__main__":
    main()
