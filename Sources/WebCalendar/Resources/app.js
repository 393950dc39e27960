// Almanac web calendar. The pages work without this script; it only enhances them:
// the native "Add to Calendar" bridge, instant calendar toggles, keyboard moves in grids.
const root = document.documentElement;
root.classList.add("scripted");

// A native shell says which bridge components it has in its user agent:
// "… bridge-components: [add-to-calendar form menu]".
const advertised = (navigator.userAgent.match(/bridge-components: \[([^\]]*)\]/) || [, ""])[1].split(/\s+/).filter(Boolean);
if (advertised.length > 0 && !root.dataset.bridgeComponents) {
  root.dataset.bridgeComponents = advertised.join(" ");
  root.dataset.bridgePlatform = /android/i.test(navigator.userAgent) ? "android" : "ios";
}

// The web side of the Hotwire Native bridge protocol: a message goes to the native
// adapter as { id, component, event, data }; the native side replies with the same id.
class WebBridge {
  constructor() { this.adapter = null; this.lastMessageId = 0; this.pending = new Map(); }
  setAdapter(adapter) {
    this.adapter = adapter;
    if (adapter && adapter.platform) root.dataset.bridgePlatform = adapter.platform;
  }
  get currentAdapter() { return this.adapter || window.nativeBridge || null; }
  supportsComponent(component) {
    const adapter = this.currentAdapter;
    if (!adapter) return false;
    return typeof adapter.supportsComponent === "function" ? adapter.supportsComponent(component) : advertised.includes(component);
  }
  send({ component, event, data, callback }) {
    const adapter = this.currentAdapter;
    if (!adapter) return null;
    const id = String(++this.lastMessageId);
    if (callback) this.pending.set(id, callback);
    adapter.receive({ id, component, event, data });
    return id;
  }
  receive(message) {
    const callback = this.pending.get(message.id);
    if (callback) { this.pending.delete(message.id); callback(message); }
  }
  adapterDidUpdateSupportedComponents() {}
}
const bridge = new WebBridge();
window.HotwireNative = Object.assign(window.HotwireNative || {}, { web: bridge });
window.Strada = Object.assign(window.Strada || {}, { web: bridge });
document.dispatchEvent(new Event("web-bridge:ready"));

const csrfToken = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

async function markAdded(button, reply) {
  const body = { platform: root.dataset.bridgePlatform === "android" ? "android" : "ios" };
  const data = (reply && reply.data) || {};
  if (typeof data.nativeIdentifier === "string") body.nativeIdentifier = data.nativeIdentifier;
  const response = await fetch(button.dataset.markAddedUrl, {
    method: "PUT", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrfToken() },
    body: JSON.stringify(body),
  });
  if (response.ok) {
    button.dataset.added = "true";
    const note = button.parentElement.querySelector(".added-note");
    if (note) note.hidden = false;
  }
}

for (const button of document.querySelectorAll('[data-controller="bridge--add-to-calendar"]')) {
  button.addEventListener("click", () => {
    if (advertised.includes("add-to-calendar") && bridge.currentAdapter) {
      const payload = JSON.parse(button.dataset.bridgePayload);
      bridge.send({
        component: "add-to-calendar", event: "add",
        data: Object.assign({}, payload, { metadata: { url: window.location.href } }),
        callback: (reply) => markAdded(button, reply),
      });
    } else {
      const menu = button.parentElement.querySelector(".add-links");
      if (menu) { menu.open = true; const first = menu.querySelector("a"); if (first) first.focus(); }
    }
  });
}

for (const form of document.querySelectorAll("form[data-autosubmit]")) {
  form.addEventListener("change", () => form.requestSubmit());
}

// The sign-in form sends the browser's time zone: a first sign-in makes it the view's zone.
for (const field of document.querySelectorAll("input[data-browser-zone]")) {
  try { field.value = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (error) { field.value = ""; }
}

// The now-line moves with the clock (the grid is 1440 wall-clock minutes) and
// leaves when the day is over.
const loaded = Date.now();
function moveNowLines() {
  for (const line of document.querySelectorAll(".now-line")) {
    const grid = line.closest("table[data-scale-minutes]");
    const minute = Number(line.dataset.nowMinute) + Math.floor((Date.now() - loaded) / 60000);
    if (!grid || minute >= Number(line.dataset.dayMinutes)) { line.remove(); continue; }
    line.style.top = (minute / Number(grid.dataset.scaleMinutes) * 100).toFixed(2) + "%";
  }
}
if (document.querySelector(".now-line")) setInterval(moveNowLines, 30000);

// The week and day grids open at the working day (the server names the minute): the
// box scrolls so that minute is just under the sticky day headers.
for (const box of document.querySelectorAll(".grid-scroll[data-scroll-minute]")) {
  const hours = box.querySelector("td.day-column .hours");
  const head = box.querySelector("thead");
  if (!hours) continue;
  const top = hours.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  // A little more, so the hour's label (centred on its line) shows whole.
  box.scrollTop = top + hours.offsetHeight * Number(box.dataset.scrollMinute) / 1440 - (head ? head.offsetHeight : 0) - 10;
}

// At phone width the month grid shows dots: tapping a day shows its list below the
// grid and stays in the month (the link still leads to the day view without script).
const phone = window.matchMedia("(max-width: 47.99rem)");
for (const grid of document.querySelectorAll("table.month")) {
  grid.addEventListener("click", (event) => {
    if (!phone.matches) return;
    const cell = event.target.closest("td[data-date]");
    if (!cell) return;
    event.preventDefault();
    const date = cell.dataset.date;
    for (const other of grid.querySelectorAll("td.selected")) other.classList.remove("selected");
    cell.classList.add("selected");
    for (const detail of document.querySelectorAll(".day-detail")) detail.hidden = detail.dataset.date !== date;
    const url = new URL(window.location.href);
    url.searchParams.set("date", date);
    history.replaceState(null, "", url);
  });
}

// Arrow keys move between the days of a month grid.
for (const grid of document.querySelectorAll('table[role="grid"].month')) {
  grid.addEventListener("keydown", (event) => {
    const moves = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };
    if (!(event.key in moves)) return;
    const links = [...grid.querySelectorAll("td a.number")];
    const index = links.indexOf(document.activeElement);
    const next = links[index + moves[event.key]];
    if (index >= 0 && next) { next.focus(); event.preventDefault(); }
  });
}

// A booking page opened without a zone shows the schedule's: ask the browser for its
// own and show the times in it (the field still lets the visitor choose another).
for (const field of document.querySelectorAll("input[data-booking-zone][data-detect]")) {
  let zone = "";
  try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (error) { zone = ""; }
  if (zone && zone !== field.value) {
    const url = new URL(window.location.href);
    url.searchParams.set("tz", zone);
    window.location.replace(url.toString());
  }
}
