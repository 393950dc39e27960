import Foundation

/// Every "Add to Calendar" target of an event or one occurrence, each with what it
/// cannot carry (`GET /api/v1/events/{id}/add-to-calendar`).
public struct AddToCalendarTargets: Sendable, Hashable, Codable {
    /// What a web page hands its native shell (iOS EventKit, Android `CalendarContract`).
    public var bridge: BridgePayload
    /// What the bridge payload cannot carry.
    public var bridgeLost: [Loss]
    /// Android's `ACTION_INSERT` extras and the `intent:` URI carrying them.
    public var android: AndroidInsert
    /// calendar.google.com's filled-in form.
    public var google: Link
    /// outlook.live.com's compose deeplink.
    public var outlook: Link
    /// outlook.office.com's compose deeplink.
    public var office365: Link
    /// calendar.yahoo.com's form.
    public var yahoo: Link
    /// The single-event `.ics` (a path from the server's root, `/events/{id}.ics`).
    public var ics: Link

    /// A link to a target, and what it cannot carry.
    public struct Link: Sendable, Hashable, Codable {
        /// The URL (the `.ics` as a path from the server's root).
        public var url: String
        /// What the target loses.
        public var lost: [Loss]
    }

    /// Android's insert intent: the extras and the `intent://…#Intent;…;end` URI.
    public struct AndroidInsert: Sendable, Hashable, Codable {
        /// The `CalendarContract` extras.
        public var extras: Extras
        /// The intent URI.
        public var uri: String
        /// What the intent loses.
        public var lost: [Loss]

        /// `CalendarContract.Events` insert extras, by their Android names.
        public struct Extras: Sendable, Hashable, Codable {
            /// `Events.TITLE`.
            public var title: String
            /// `EXTRA_EVENT_BEGIN_TIME`, milliseconds since 1970 (UTC midnight for all-day).
            public var beginTime: Int64
            /// `EXTRA_EVENT_END_TIME`, milliseconds since 1970.
            public var endTime: Int64
            /// `EXTRA_EVENT_ALL_DAY`.
            public var allDay: Bool
            /// `Events.EVENT_LOCATION`.
            public var eventLocation: String?
            /// `Events.DESCRIPTION`.
            public var description: String?
            /// `Events.RRULE`.
            public var rrule: String?
            /// `Events.EVENT_TIMEZONE` (UTC for all-day).
            public var eventTimezone: String
            /// `Events.AVAILABILITY`: 0 busy, 1 free, 2 tentative.
            public var availability: Int
        }
    }

    /// Something a target cannot carry.
    public struct Loss: RawRepresentable, Sendable, Hashable, Codable {
        /// The value as sent (`alarms`).
        public var rawValue: String
        /// The loss `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The recurrence rule.
        public static let recurrence = Loss(rawValue: "recurrence")
        /// Overridden or excluded instances.
        public static let recurrenceExceptions = Loss(rawValue: "recurrence-exceptions")
        /// Alarms.
        public static let alarms = Loss(rawValue: "alarms")
        /// The time zone.
        public static let timeZone = Loss(rawValue: "time-zone")
        /// The URL.
        public static let url = Loss(rawValue: "url")
        /// Free/busy and tentative status.
        public static let availability = Loss(rawValue: "availability")

        /// Reads the value from a JSON string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Writes the value as a JSON string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}

/// The bridge payload: the message a web page hands its native shell, with exactly the
/// members the bridge defines, absent values `null` (encode it to pass it on unchanged).
///
/// All-day entries: ``allDayStartAtInMillisecondsSinceEpoch`` is the first date and
/// ``allDayEndsAtInMillisecondsSinceEpoch`` the day after the last, at 00:00 UTC, as
/// Android stores all-day events; for a timed event they are the dates it touches in
/// its zone.
public struct BridgePayload: Sendable, Hashable, Codable {
    /// The title.
    public var name: String
    /// The start, milliseconds since 1970 (an all-day event at local midnight).
    public var startsAtInMillisecondsSinceEpoch: Int64
    /// The end, milliseconds since 1970.
    public var endsAtInMillisecondsSinceEpoch: Int64
    /// True for an all-day event.
    public var allDay: Bool
    /// The first date, at 00:00 UTC, milliseconds since 1970.
    public var allDayStartAtInMillisecondsSinceEpoch: Int64
    /// The day after the last date, at 00:00 UTC, milliseconds since 1970.
    public var allDayEndsAtInMillisecondsSinceEpoch: Int64
    /// The location, or nil.
    public var location: String?
    /// The recurrence rule, or nil.
    public var rrule: String?
    /// The notes, or nil.
    public var notes: String?
    /// The URL, or nil.
    public var url: String?
    /// The IANA zone, or nil.
    public var timeZone: String?
    /// The first alarm's minutes before the start, or nil.
    public var alarmMinutesBefore: Int?

    enum CodingKeys: String, CodingKey {
        case name, startsAtInMillisecondsSinceEpoch, endsAtInMillisecondsSinceEpoch, allDay
        case allDayStartAtInMillisecondsSinceEpoch, allDayEndsAtInMillisecondsSinceEpoch
        case location, rrule, notes, url, timeZone, alarmMinutesBefore
    }

    /// Writes every member, `null` where there is no value, as the bridge expects.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(startsAtInMillisecondsSinceEpoch, forKey: .startsAtInMillisecondsSinceEpoch)
        try container.encode(endsAtInMillisecondsSinceEpoch, forKey: .endsAtInMillisecondsSinceEpoch)
        try container.encode(allDay, forKey: .allDay)
        try container.encode(allDayStartAtInMillisecondsSinceEpoch, forKey: .allDayStartAtInMillisecondsSinceEpoch)
        try container.encode(allDayEndsAtInMillisecondsSinceEpoch, forKey: .allDayEndsAtInMillisecondsSinceEpoch)
        try container.encode(location, forKey: .location)
        try container.encode(rrule, forKey: .rrule)
        try container.encode(notes, forKey: .notes)
        try container.encode(url, forKey: .url)
        try container.encode(timeZone, forKey: .timeZone)
        try container.encode(alarmMinutesBefore, forKey: .alarmMinutesBefore)
    }
}
