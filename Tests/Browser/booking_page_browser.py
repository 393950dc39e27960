"""The public booking page in a real browser: headless Chromium (Debian's chromium and
chromium-driver) driven by selenium, against `almanac serve` on loopback.

A trainer's booking type is made through the API. A visitor in New York opens
/book/<slug> without a zone: the page's script asks the browser for its zone and the
times show in it. At phone width (390 px) and desktop width (1280 px) the visitor
picks a day and a time, fills in the form and books; the confirmation shows the
booking with Add to Calendar (links, the .ics) and the manage and reschedule links;
the manage page cancels it. The booking appears in the trainer's calendar at the
next sync of a CalDAV client (python caldav, from the client virtualenv), and its
cancellation at the sync after. Without JavaScript the whole path works as well;
a hostile name shows as text; inside a native shell the Add to Calendar button
sends the bridge message; a form without its token is refused. Screenshots go to
.build/browser-artifacts/."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "Interop"))
from almanac_server import AlmanacServer  # noqa: E402

import browser_support  # noqa: E402
from browser_support import api, audit_pages, browser, check, heading, sign_in, wait_for  # noqa: E402

XSS = '<img src=x onerror="window.__xss = 1">'
CLIENT_PYTHON = ".build/client-venv/bin/python"

# One sync of the trainer's Trainings calendar with python caldav: the UIDs and
# summaries the sync reports, and the token for the next one.
SYNC = r"""
import json, sys, caldav
base, user, password, token = sys.argv[1:5]
client = caldav.DAVClient(url=base + "/", username=user, password=password)
calendar = next(c for c in client.principal().calendars() if c.get_display_name() == "Trainings")
changes = calendar.objects_by_sync_token(sync_token=token or None, load_objects=True)
objects = []
for item in changes:
    if item.data:
        component = item.icalendar_component
        objects.append({"summary": str(component.get("SUMMARY")), "status": str(component.get("STATUS") or "")})
print(json.dumps({"token": changes.sync_token, "objects": objects}))
"""


def sync(server, token=""):
    result = subprocess.run([CLIENT_PYTHON, "-c", SYNC, server.base, server.user, server.password, token],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit("FAIL: the caldav sync failed: " + result.stderr[-2000:])
    return json.loads(result.stdout)


def book_through_the_page(driver, server, name, email, artifacts, label):
    """From the booking page as it is open: the first open day, its first time, the
    form, the confirmation. Returns the confirmation's manage and reschedule links and
    the time the visitor chose (its UTC start from the form)."""
    if not driver.find_elements(By.CSS_SELECTOR, "table.booking-month td.open a"):
        # Late on a month's last day nothing is left in it: the next month.
        driver.find_element(By.CSS_SELECTOR, ".month-nav a[rel=next]").click()
        wait_for(lambda: "month=" in driver.current_url, f"{label}: the next month")
    day = driver.find_element(By.CSS_SELECTOR, "table.booking-month td.open a")
    check(day.get_attribute("aria-label").endswith("free"), f"{label}: an open day says how many times are free")
    day.click()
    wait_for(lambda: "day=" in driver.current_url, f"{label}: the day chosen")
    check(driver.find_element(By.CSS_SELECTOR, "table.booking-month td.chosen a").get_attribute("aria-current") == "date",
          f"{label}: the chosen day is marked for assistive technology")
    driver.save_screenshot(os.path.join(artifacts, f"booking-{label}-picker.png"))
    slot = driver.find_element(By.CSS_SELECTOR, "ul.slots a.slot")
    shown = slot.text
    slot.click()
    wait_for(lambda: "/slot?" in driver.current_url, f"{label}: the form opened")
    start = driver.find_element(By.NAME, "start").get_attribute("value")
    check(shown in driver.find_element(By.CSS_SELECTOR, ".chosen-time").text, f"{label}: the form names the chosen time {shown}")
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "note").send_keys("First session")
    driver.save_screenshot(os.path.join(artifacts, f"booking-{label}-form.png"))
    driver.find_element(By.CSS_SELECTOR, "form.booking-form button[type=submit]").click()
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, "main.confirmation"), f"{label}: the confirmation")
    driver.save_screenshot(os.path.join(artifacts, f"booking-{label}-confirmation.png"))
    check(heading(driver) == "You are booked", f"{label}: booked")
    links = {a.get_attribute("textContent").strip(): a.get_attribute("href")
             for a in driver.find_elements(By.CSS_SELECTOR, ".add-links a")}
    check("calendar.google.com" in links.get("Google Calendar", ""), f"{label}: an Add to Calendar link for Google")
    check(links.get("Download .ics", "").endswith(".ics"), f"{label}: the .ics to download")
    cancel = driver.find_element(By.LINK_TEXT, "Cancel").get_attribute("href")
    reschedule = driver.find_element(By.LINK_TEXT, "Reschedule").get_attribute("href")
    check("/book/manage/bkc_" in cancel and cancel.endswith("/cancel") and "/book/reschedule/bkr_" in reschedule,
          f"{label}: the booking's two links")
    manage = cancel[:-len("/cancel")]
    with urllib.request.urlopen(links["Download .ics"]) as response:
        ics = response.read().decode()
    utc = start.replace("-", "").replace(":", "")
    check("METHOD:PUBLISH" in ics and f"DTSTART:{utc}" in ics, f"{label}: the .ics is the booked time ({utc})")
    return manage, reschedule, start


def run(server, almanac, data, artifacts):
    created = subprocess.run([almanac, "token", "create", "booking-test", "--scope", "read-write", "--data", data],
                             capture_output=True, text=True, check=True).stdout
    token = next(line.strip() for line in created.splitlines() if line.strip().startswith("alm_"))
    call = api(server, token)
    status, _ = call("POST", "/api/v1/availability-schedules",
                     {"title": "Studio", "timeZone": "Europe/Berlin", "hours": "Mon-Sun 09:00-12:00 14:00-18:00"})
    check(status == 201, "the trainer's hours")
    status, calendar = call("POST", "/api/v1/calendars", {"title": "Trainings", "timeZone": "Europe/Berlin"})
    check(status == 201, "the Trainings calendar")
    status, kind = call("POST", "/api/v1/booking-types", {
        "title": "Personal training", "slug": "personal", "durations": [60, 30], "calendar": calendar["id"],
        "location": "Studio 1", "description": "One hour with Anna"})
    check(status == 201, "the booking type")
    first_sync = sync(server)
    check(first_sync["objects"] == [], "the trainer's calendar syncs empty")

    # A visitor in New York, at phone and at desktop width.
    manage_links = []
    for width, label, email in [(390, "phone", "lena@example.com"), (1280, "desktop", "max@example.com")]:
        driver = browser(width=width, zone="America/New_York")
        try:
            driver.get(server.base + "/book/personal")
            wait_for(lambda: "tz=America%2FNew_York" in driver.current_url, f"{label}: the browser's zone detected")
            check(driver.find_element(By.NAME, "tz").get_attribute("value") == "America/New_York",
                  f"{label}: the zone field shows the visitor's zone")
            check(driver.find_element(By.CSS_SELECTOR, ".booking-head .host").get_attribute("textContent").split() == ["A", "anna"],
                  f"{label}: the page names who the booking is with")
            check(driver.find_element(By.NAME, "tz").get_attribute("list") == "zone-names"
                  and driver.execute_script("return document.querySelectorAll('#zone-names option').length") > 300,
                  f"{label}: the zone is picked from the IANA list")
            calendar_box = driver.find_element(By.CSS_SELECTOR, ".booking-calendar").rect
            times_box = driver.find_element(By.CSS_SELECTOR, ".booking-times").rect
            if width < 768:
                check(times_box["y"] >= calendar_box["y"] + calendar_box["height"] - 1, "phone: the times below the month")
            else:
                check(abs(times_box["y"] - calendar_box["y"]) < 5 and times_box["x"] > calendar_box["x"],
                      "desktop: the times beside the month")
            check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                  f"{label}: nothing wider than the screen")
            # The keyboard reaches the days and the times (links, in order).
            driver.find_element(By.TAG_NAME, "body").send_keys(Keys.TAB)
            focusable = driver.execute_script(
                "return [...document.querySelectorAll('a[href], button, input, select, textarea')].filter(e => e.tabIndex >= 0).length")
            check(focusable > 5, f"{label}: days and times are reachable by keyboard")
            manage, reschedule, start = book_through_the_page(driver, server, "Lena Berg" if width < 768 else "Max Ott",
                                                              email, artifacts, label)
            manage_links.append((manage, reschedule, start))
            local = datetime.fromisoformat(start.replace("Z", "+00:00")).astimezone(ZoneInfo("America/New_York"))
            check(local.strftime("%H:%M") in driver.find_element(By.CSS_SELECTOR, "main.confirmation dl").text
                  and "America/New_York" in driver.find_element(By.CSS_SELECTOR, "main.confirmation dl").text,
                  f"{label}: the confirmation shows the time in the visitor's zone ({local:%H:%M})")
        finally:
            driver.quit()

    after = sync(server, first_sync["token"])
    summaries = sorted(o["summary"] for o in after["objects"])
    check(summaries == ["Personal training: Lena Berg", "Personal training: Max Ott"],
          f"the trainer's next CalDAV sync has both bookings: {summaries}")
    status, listed = call("GET", "/api/v1/bookings")
    check(status == 200 and len(listed["bookings"]) == 2, "the trainer's API lists both bookings")

    # Cancelling through the manage link, after a confirmation: the page says so, offers no
    # links to change it any more, and the next sync shows it cancelled.
    driver = browser(width=1280, zone="America/New_York")
    try:
        driver.get(manage_links[0][0])
        check(heading(driver) == "Your booking", "the manage page shows the booking")
        driver.find_element(By.CSS_SELECTOR, ".booking-links").find_element(By.LINK_TEXT, "Cancel").click()
        wait_for(lambda: heading(driver) == "Cancel this booking?", "cancelling asks first")
        driver.save_screenshot(os.path.join(artifacts, "booking-cancel-confirm-1280.png"))
        driver.find_element(By.LINK_TEXT, "Keep it").click()
        wait_for(lambda: heading(driver) == "Your booking", "keeping it changes nothing")
        driver.find_element(By.CSS_SELECTOR, ".booking-links").find_element(By.LINK_TEXT, "Cancel").click()
        wait_for(lambda: heading(driver) == "Cancel this booking?", "asked again")
        driver.find_element(By.CSS_SELECTOR, "form.cancel-form button").click()
        wait_for(lambda: heading(driver) == "Cancelled", "the cancellation")
        check(not driver.find_elements(By.CSS_SELECTOR, ".booking-links"), "a cancelled booking offers no links to change it")
        # Rescheduling the other from its manage page, as the booker in New York: the new
        # time shows in her zone, with both links and the .ics.
        driver.get(manage_links[1][0])
        driver.find_element(By.CSS_SELECTOR, ".booking-links").find_element(By.LINK_TEXT, "Reschedule").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".chosen-time"), "the reschedule page")
        check("America/New_York" in driver.find_element(By.CSS_SELECTOR, ".chosen-time").text,
              "the reschedule page shows the booking in the booker's zone")
        days = driver.find_elements(By.CSS_SELECTOR, "table.booking-month td.open a")
        days[-1].click()
        wait_for(lambda: "day=" in driver.current_url, "another day chosen")
        slot = driver.find_element(By.CSS_SELECTOR, "ul.slots button.slot")
        chosen = slot.text
        slot.click()
        wait_for(lambda: heading(driver) == "Your booking moved", "the booking moved")
        when = driver.find_element(By.CSS_SELECTOR, "main.confirmation dl").text
        check("America/New_York" in when and chosen in when, f"the moved booking shows in the booker's zone: {when}")
        links = [a.text for a in driver.find_elements(By.CSS_SELECTOR, ".booking-links a")]
        check(links == ["Cancel", "Reschedule"], f"after moving, both links are there: {links}")
        check(driver.find_elements(By.LINK_TEXT, "Download .ics"), "and the .ics")
        driver.save_screenshot(os.path.join(artifacts, "booking-moved-1280.png"))
        # Her reschedule link shows it in her zone too.
        driver.get(manage_links[1][1])
        check("America/New_York" in driver.find_element(By.CSS_SELECTOR, ".chosen-time").text,
              "the reschedule link shows the booking in the booker's zone")
    finally:
        driver.quit()
    later = sync(server, after["token"])
    statuses = sorted((o["summary"], o["status"]) for o in later["objects"])
    check(("Personal training: Lena Berg", "CANCELLED") in statuses, f"the sync after shows the cancellation: {statuses}")
    check(any(s[0] == "Personal training: Max Ott" for s in statuses), "and the moved booking")

    # The trainer's own views show the cancelled booking as cancelled, at both widths:
    # struck through in the month, week and day, and said so on its page.
    cancelled_day = datetime.fromisoformat(manage_links[0][2].replace("Z", "+00:00")).astimezone(ZoneInfo("Europe/Berlin")).date()
    for width in (390, 1280):
        driver = browser(width=width)
        try:
            sign_in(driver, server)
            for view in ("month", "week", "day"):
                driver.get(f"{server.base}/calendar?view={view}&date={cancelled_day}&tz=Europe/Berlin")
                marked = [e for e in driver.find_elements(By.CSS_SELECTOR, "li.cancelled > a, td.cancelled a, a.timed-event.cancelled")
                          if "Lena Berg" in e.get_attribute("textContent")]
                check(marked, f"{width} px {view}: the cancelled booking is marked cancelled")
                check(all("line-through" in e.value_of_css_property("text-decoration") for e in marked),
                      f"{width} px {view}: and drawn struck through")
                driver.save_screenshot(os.path.join(artifacts, f"trainer-cancelled-{view}-{width}.png"))
            event = marked[0].get_attribute("href")
            driver.get(event)
            note = driver.find_element(By.CSS_SELECTOR, ".status-note.cancelled").text
            check(note.startswith("Cancelled."), f"{width} px: the event page says it is cancelled")
            check("Accepted" not in driver.find_element(By.CSS_SELECTOR, "main").text,
                  f"{width} px: and no one is shown as coming")
            edit = driver.find_element(By.LINK_TEXT, "Edit")
            check("line-through" not in edit.value_of_css_property("text-decoration"),
                  f"{width} px: only the title is struck through, not the page's buttons")
            driver.save_screenshot(os.path.join(artifacts, f"trainer-cancelled-event-{width}.png"))
        finally:
            driver.quit()

    # Without JavaScript: the schedule's zone, the same path to a booking; a hostile name is text.
    driver = browser(width=1280, javascript=False)
    try:
        driver.get(server.base + "/book/personal?duration=30")
        check(driver.find_element(By.NAME, "tz").get_attribute("value") == "Europe/Berlin",
              "without script the schedule's zone is shown")
        manage, _, _ = book_through_the_page(driver, server, XSS, "ida@example.com", artifacts, "no-script")
        check(XSS in driver.find_element(By.CSS_SELECTOR, "main.confirmation dl").text, "a hostile name shows as text")
        driver.get(manage + "/cancel")
        driver.find_element(By.CSS_SELECTOR, "form.cancel-form button").click()
        wait_for(lambda: heading(driver) == "Cancelled", "cancelled without script")
    finally:
        driver.quit()
    driver = browser(width=1280)
    try:
        driver.get(server.base + "/book/personal?tz=Europe/Berlin")
        check(driver.execute_script("return window.__xss === undefined"), "no script ran from the booker's name")
    finally:
        driver.quit()

    # Inside a native shell the button sends the bridge message with the booked times.
    driver = browser(width=390, adapter=True,
                     user_agent="Mozilla/5.0 (iPhone) AlmanacApp Hotwire Native iOS; bridge-components: [add-to-calendar]")
    try:
        driver.get(server.base + "/book/personal?tz=Europe/Berlin")
        _, _, start = book_through_the_page(driver, server, "Nia Gold", "nia@example.com", artifacts, "native")
        driver.find_element(By.CSS_SELECTOR, "button.add").click()
        wait_for(lambda: driver.execute_script("return window.__messages.length") > 0, "the bridge message")
        message = driver.execute_script("return window.__messages[0]")
        start_ms = int(datetime.fromisoformat(start.replace("Z", "+00:00")).timestamp() * 1000)
        check(message["component"] == "add-to-calendar" and message["data"]["name"] == "Personal training"
              and message["data"]["startsAtInMillisecondsSinceEpoch"] == start_ms,
              f"the bridge payload has the booked time: {message['data']}")
        check(message["data"]["notes"].startswith("Manage or cancel: " + server.base + "/book/manage/bkc_"),
              "the payload's notes carry the booking's links, whole")
    finally:
        driver.quit()

    # A form without its token, or from another site, books nothing.
    body = urllib.parse.urlencode({"start": start, "duration": "60", "name": "X", "email": "x@example.com", "csrf": "x"})
    request = urllib.request.Request(server.base + "/book/personal", data=body.encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded",
                                              "Origin": "https://evil.example"})
    try:
        urllib.request.urlopen(request)
        check(False, "a forged form is refused")
    except urllib.error.HTTPError as error:
        check(error.code == 403, f"a forged form is refused ({error.code})")
    status, listed = call("GET", "/api/v1/bookings")
    check(len(listed["bookings"]) == 4, "and booked nothing")

    trainer_path(server, call, kind["id"], artifacts)
    # Every page, at both widths: a screenshot under .build/screenshots and axe-core.
    today = datetime.now().date()
    status, offered = call("GET", f"/api/v1/booking-types/{kind['id']}/slots?from={today}&to={today + timedelta(days=14)}")
    free = offered["slots"][0]["start"]
    moved_manage, moved_reschedule, _ = manage_links[1]
    path = lambda url: url[len(server.base):] if url.startswith(server.base) else url  # noqa: E731
    audit_pages(server, [
        ("booking-picker", "/book/personal?tz=America/New_York"),
        ("booking-form", f"/book/personal/slot?start={free}&duration=60&tz=America/New_York"),
        ("booking-manage", path(moved_manage)),
        ("booking-cancel-confirm", path(moved_manage) + "/cancel"),
        ("booking-reschedule", path(moved_reschedule)),
        ("booking-cancelled", path(manage_links[0][0])),
        ("booking-not-found", "/book/nothing-here"),
    ], signed_in=False)
    status, listed = call("GET", "/api/v1/bookings")
    live = next(b for b in listed["bookings"] if b["status"] == "confirmed")
    audit_pages(server, [
        ("trainer-bookings", "/calendar/bookings"),
        ("trainer-type-new", "/calendar/bookings/type"),
        ("trainer-type-edit", f"/calendar/bookings/type?id={kind['id']}"),
        ("trainer-hours", "/calendar/bookings/hours"),
        ("trainer-type-remove", f"/calendar/bookings/remove?id={kind['id']}"),
        ("trainer-booking-cancel", f"/calendar/bookings/cancel?id={live['id']}"),
        ("trainer-booking-move", f"/calendar/bookings/{live['id']}/move"),
    ], signed_in=True)


def trainer_path(server, call, type_id, artifacts):
    """The trainer runs her bookings from the web, at both widths: she changes her hours
    and a date off, edits the type's buffer and notice, and moves one booking and cancels
    another after the page asks; the API reads back each change."""
    status, listed = call("GET", "/api/v1/bookings")
    confirmed = [b for b in listed["bookings"] if b["status"] == "confirmed"]
    check(len(confirmed) >= 2, f"two live bookings to work with ({len(confirmed)})")
    for width, day_off, buffer in [(390, "2026-12-24", 15), (1280, "2026-12-31", 10)]:
        driver = browser(width=width)
        try:
            sign_in(driver, server)
            driver.get(server.base + "/calendar/bookings")
            check(heading(driver) == "Bookings", f"{width} px: the Bookings page")
            check(driver.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"),
                  f"{width} px: the Bookings page fits the screen")
            driver.find_element(By.LINK_TEXT, "Edit hours").click()
            wait_for(lambda: heading(driver) == "Working hours", f"{width} px: the hours form")
            driver.find_element(By.NAME, "Saturday").clear()
            exceptions = driver.find_element(By.NAME, "exceptions")
            exceptions.clear()
            exceptions.send_keys(f"{day_off} off")
            driver.save_screenshot(os.path.join(artifacts, f"trainer-hours-{width}.png"))
            driver.find_element(By.CSS_SELECTOR, "form.settings-form button[type=submit]").click()
            wait_for(lambda: heading(driver) == "Bookings", f"{width} px: back on the Bookings page")
            hours = driver.find_element(By.CSS_SELECTOR, ".hours-list").text
            check("Saturday\nClosed" in hours and "Monday\n09:00–12:00, 14:00–18:00" in hours,
                  f"{width} px: the page shows the new hours: {hours!r}")
            check(day_off in driver.find_element(By.CSS_SELECTOR, "ul.exceptions").text
                  or datetime.fromisoformat(day_off).strftime("%-d %B %Y") in driver.find_element(By.CSS_SELECTOR, "ul.exceptions").text,
                  f"{width} px: and the date off")
            status, schedules = call("GET", "/api/v1/availability-schedules")
            default = next(s for s in schedules["schedules"] if s["default"])
            check(default["exceptions"] == {day_off: "off"} and "Sat" not in default["hours"],
                  f"{width} px: the API reads the same schedule: {default['hours']} {default['exceptions']}")
            # The type: a buffer after and a day's notice.
            driver.find_element(By.CSS_SELECTOR, ".type-card").find_element(By.PARTIAL_LINK_TEXT, "Edit").click()
            wait_for(lambda: heading(driver).startswith("Edit "), f"{width} px: the type's settings")
            for name, value in [("bufferAfter", str(buffer)), ("notice", "1440")]:
                field = driver.find_element(By.NAME, name)
                field.clear()
                field.send_keys(value)
            driver.save_screenshot(os.path.join(artifacts, f"trainer-type-{width}.png"))
            driver.find_element(By.CSS_SELECTOR, "form.settings-form button[type=submit]").click()
            wait_for(lambda: heading(driver) == "Bookings", f"{width} px: saved")
            facts = driver.find_element(By.CSS_SELECTOR, ".type-card .facts").text
            check(f"{buffer} min after" in facts and "1 day notice" in facts, f"{width} px: the card says so: {facts!r}")
            status, kind = call("GET", f"/api/v1/booking-types/{type_id}")
            check(kind["bufferAfter"] == buffer and kind["notice"] == 1440, f"{width} px: and the API reads it")
            booking = confirmed[0 if width == 390 else 1]
            item = next(li for li in driver.find_elements(By.CSS_SELECTOR, "li.booking-item")
                        if booking["name"] in li.text)
            if width == 390:
                # Cancelling asks first.
                item.find_element(By.PARTIAL_LINK_TEXT, "Cancel").click()
                wait_for(lambda: heading(driver) == "Cancel a booking", "the trainer is asked first")
                driver.find_element(By.CSS_SELECTOR, "main form button.danger").click()
                wait_for(lambda: heading(driver) == "Bookings", "cancelled from the Bookings page")
                status, read = call("GET", f"/api/v1/bookings/{booking['id']}")
                check(read["status"] == "cancelled", "the booking is cancelled")
                item = next(li for li in driver.find_elements(By.CSS_SELECTOR, "li.booking-item")
                            if booking["name"] in li.text)
                check("Cancelled" in item.text and not item.find_elements(By.PARTIAL_LINK_TEXT, "Reschedule"),
                      "its row says Cancelled and offers nothing more")
            else:
                item.find_element(By.PARTIAL_LINK_TEXT, "Reschedule").click()
                wait_for(lambda: heading(driver) == "Reschedule", "the trainer's reschedule page")
                days = driver.find_elements(By.CSS_SELECTOR, "table.booking-month td.open a")
                days[-1].click()
                wait_for(lambda: "day=" in driver.current_url, "a day chosen")
                driver.find_element(By.CSS_SELECTOR, "ul.slots button.slot").click()
                wait_for(lambda: heading(driver) == "Bookings", "moved from the Bookings page")
                status, read = call("GET", f"/api/v1/bookings/{booking['id']}")
                check(read["start"] != booking["start"] and read["status"] == "confirmed",
                      f"the booking moved: {booking['start']} → {read['start']}")
            driver.save_screenshot(os.path.join(artifacts, f"trainer-bookings-{width}.png"))
        finally:
            driver.quit()


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
    print(f"booking page in Chromium: all {browser_support.checks()} checks passed")


if __name__ == "__main__":
    main()
