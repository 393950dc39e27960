// UTC offsets as ical.js computes them from a VTIMEZONE, for vtimezone_parsers.py.
//
//     node Tests/Interop/vtimezone_icaljs.mjs /tmp/…/Ical.sys.mjs < jobs.json > answers.json
//
// The first argument is ical.js as Thunderbird ships it (modules/calendar/Ical.sys.mjs in
// omni.ja, an ES module whose default export is the ICAL namespace), extracted by the
// caller into a temporary directory. Standard input is a JSON list of jobs:
//
//     {"calendar": "BEGIN:VCALENDAR…", "local": [[2020, 7, 15, 12, 0, 0], …], "utc": [1594814400, …]}
//
// where the calendar holds one VTIMEZONE and one VEVENT whose DTSTART names it. The zone
// is taken from that DTSTART, so it is resolved the way Thunderbird resolves it: through
// the VCALENDAR's own VTIMEZONE (Component.getTimeZoneByID), not a zone database. For
// each local wall-clock time the answer is the offset of that time in the zone (what a
// DTSTART;TZID= means); for each UTC instant (Unix seconds), the offset of the wall clock
// ical.js converts it to (what Thunderbird shows). Standard output is a JSON list with
// one {"local": [seconds…], "utc": [seconds…]} or {"error": "…"} per job.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const ICAL = (await import(pathToFileURL(process.argv[2]).href)).default;
const jobs = JSON.parse(readFileSync(0, "utf8"));

function answer(job) {
    const calendar = new ICAL.Component(ICAL.parse(job.calendar));
    const start = calendar.getFirstSubcomponent("vevent").getFirstPropertyValue("dtstart");
    const zone = start.zone;
    if (!zone || !zone.component) {
        return { error: `DTSTART's TZID resolved to ${zone ? zone.tzid : "nothing"}, not the VTIMEZONE` };
    }
    const local = job.local.map(([year, month, day, hour, minute, second]) =>
        new ICAL.Time({ year, month, day, hour, minute, second, isDate: false }, zone).utcOffset());
    const utc = job.utc.map((seconds) => {
        const instant = new ICAL.Time();
        instant.fromUnixTime(seconds);
        const wall = instant.convertToZone(zone);
        const wallSeconds = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second) / 1000;
        return wallSeconds - seconds;
    });
    return { local, utc };
}

process.stdout.write(JSON.stringify(jobs.map((job) => {
    try {
        return answer(job);
    } catch (error) {
        return { error: String(error) };
    }
})));
