import HTTPServer

/// The stylesheet and script, served by the binary (no CDN, no build step).
enum StaticFiles {
    static func response(for path: String) -> HTTPResponse {
        switch path {
        case "/static/app.css":
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600"], body: Array(css.utf8))
        case "/static/app.js":
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600"], body: Array(javascript.utf8))
        default:
            return .text(404, "404 Not Found\n")
        }
    }

    static let css = """
        :root { --accent: #4a6fa5; --line: #d8dde3; --muted: #6b7480; --today: #fff6d6; --conflict: #c0392b; font-family: system-ui, sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; color: #1d232b; background: #fff; }
        a { color: var(--accent); }
        .bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; padding: .5rem; border-bottom: 1px solid var(--line); }
        .bar h1 { font-size: 1.1rem; margin: 0 .5rem; }
        .navigation, .scope { display: flex; gap: .25rem; align-items: center; }
        .button, button { display: inline-block; padding: .4rem .7rem; border: 1px solid var(--line); border-radius: .4rem; background: #f7f8fa; color: inherit; text-decoration: none; font: inherit; cursor: pointer; }
        .button.selected { background: var(--accent); color: #fff; border-color: var(--accent); }
        .button:focus-visible, button:focus-visible, a:focus-visible, td:focus-visible { outline: 3px solid #f0a500; outline-offset: 1px; }
        main { padding: .5rem; }
        .page { max-width: 40rem; margin: 0 auto; }
        table.month, table.time-grid { width: 100%; border-collapse: collapse; table-layout: fixed; }
        table.month th, table.time-grid th { font-size: .8rem; color: var(--muted); font-weight: 600; padding: .25rem; }
        table.month td { border: 1px solid var(--line); vertical-align: top; height: 4.5rem; padding: .2rem; overflow: hidden; }
        td.outside .number { color: #b3b9c1; }
        td.today, th.today, td.day-column.today { background: var(--today); }
        td.selected .number { font-weight: 700; text-decoration: underline; }
        .number { text-decoration: none; color: inherit; font-size: .9rem; }
        .markers { display: inline-flex; gap: 2px; margin-left: .25rem; vertical-align: middle; }
        .dot { display: inline-block; width: .5rem; height: .5rem; border-radius: 50%; margin-right: .2rem; }
        .warning { color: var(--conflict); font-weight: 700; margin-left: .2rem; }
        td.conflict { box-shadow: inset 0 -3px 0 var(--conflict); }
        ul.events { list-style: none; margin: .2rem 0 0; padding: 0; font-size: .75rem; display: none; }
        ul.events li { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        .all-day-event { border-left: 4px solid var(--accent); background: #eef2f8; font-size: .8rem; padding: .1rem .3rem; }
        td.day-column { border: 1px solid var(--line); padding: 0; vertical-align: top; }
        .hours { position: relative; }
        .gutter-head, table.time-grid th.gutter { width: 3.6rem; font-size: .7rem; font-weight: 400; color: var(--muted); text-align: right; vertical-align: top; padding: 0 .3rem 0 0; }
        .hour-label { position: absolute; right: 0; transform: translateY(-50%); font-size: .7rem; color: var(--muted); white-space: nowrap; }
        .hour-label[data-minute="0"] { transform: none; }
        .hour-label.own { right: auto; left: 2px; transform: none; font-size: .6rem; z-index: 1; }
        .hour-line { position: absolute; left: 0; right: 0; border-top: 1px solid #eef0f3; }
        .no-time { position: absolute; left: 0; right: 0; bottom: 0; background: repeating-linear-gradient(45deg, #f3f4f6 0 6px, #fff 6px 12px); }
        .now-line { position: absolute; left: 0; right: 0; border-top: 2px solid var(--conflict); z-index: 2; pointer-events: none; }
        .now-line::before { content: ""; position: absolute; left: -4px; top: -5px; width: 8px; height: 8px; border-radius: 50%; background: var(--conflict); }
        .day-details h2 { font-size: 1rem; margin: .75rem 0 .25rem; }
        .timed-event { position: absolute; overflow: hidden; font-size: .7rem; background: #eef2f8; border-left: 3px solid var(--accent); padding: 1px 2px; text-decoration: none; color: inherit; }
        .timed-event .time { color: var(--muted); }
        .side { padding: .5rem; border-top: 1px solid var(--line); display: grid; gap: .75rem; align-content: start; }
        fieldset { border: 1px solid var(--line); border-radius: .4rem; }
        label { display: block; margin: .3rem 0; }
        label.inline { display: inline-block; margin-right: 1rem; }
        input, select, textarea { font: inherit; padding: .3rem; max-width: 100%; }
        .error, .conflicts { color: var(--conflict); }
        .agenda { list-style: none; padding: 0; }
        .agenda li { padding: .4rem 0; border-bottom: 1px solid var(--line); }
        .agenda .time { color: var(--muted); margin-right: .5rem; }
        .add-to-calendar { margin: 1rem 0; }
        .add-links ul { list-style: none; padding: .25rem 0; }
        .add-links li { padding: .25rem 0; }
        .add-links > summary { display: none; }
        html:not([data-bridge-components~="add-to-calendar"]) .add-links:not([open]) > summary { display: list-item; }
        html[data-bridge-components~="add-to-calendar"] .add-links { display: none; }
        html.scripted .calendars .apply { display: none; }
        @media (max-width: 47.99rem) {
          html.scripted table.month td { cursor: pointer; }
        }
        @media (min-width: 48rem) {
          .day-details { display: none; }
          ul.events { display: block; }
          table.month td { height: 7rem; }
          body { display: grid; grid-template-columns: 1fr 16rem; grid-template-rows: auto 1fr; }
          .bar { grid-column: 1 / 3; }
          .side { border-top: 0; border-left: 1px solid var(--line); }
        }
        """

    static let javascript = """
        // Almanac web calendar. The pages work without this script; it only enhances them:
        // the native "Add to Calendar" bridge, instant calendar toggles, keyboard moves in grids.
        const root = document.documentElement;
        root.classList.add("scripted");

        // A native shell says which bridge components it has in its user agent:
        // "… bridge-components: [add-to-calendar form menu]".
        const advertised = (navigator.userAgent.match(/bridge-components: \\[([^\\]]*)\\]/) || [, ""])[1].split(/\\s+/).filter(Boolean);
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

        // The now-line moves with the clock (by elapsed minutes, as the grid places times)
        // and leaves when the day is over.
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
        """
}
