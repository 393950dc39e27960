import CalendarStore
import ICalendar

/// The .ics an "Add to Calendar" download serves: one VCALENDAR with
/// `METHOD:PUBLISH`, the entry's components (UID and SEQUENCE as stored) and a
/// VTIMEZONE for each zone they use.
enum SingleEventICS {
    static func bytes(_ entry: CalendarEntry, timeZoneComponents: [Component]) -> [UInt8] {
        CalendarExport.document(
            entry.components, ownTimeZones: timeZoneComponents,
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
                Property(name: "METHOD", value: "PUBLISH"),
            ]
        ).serialized()
    }
}
