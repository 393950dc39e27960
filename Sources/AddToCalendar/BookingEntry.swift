import CalendarStore
import CivilTime
import ICalendar

extension AddToCalendarTargets {
    /// What a booker adds to their own calendar: the type's title and location at the
    /// booking's times, with `notes` (the booking's links), under a UID of the booking's
    /// own, so adding it again after a reschedule replaces it. Times read in `zoneName`.
    public init(booking: Booking, type: BookingType, zoneName: String, notes: String?) {
        func utc(_ seconds: Int) -> DateTimeValue {
            DateTimeValue(CivilDateTime(secondsSinceEpoch: seconds), form: .utc)
        }
        var event = Event(title: type.title, start: utc(booking.start), end: utc(booking.end))
        event.component.setProperty(Property(name: "UID", value: booking.id + "@almanac"))
        event.component.setProperty(Property(name: "DTSTAMP", dateTime: utc(booking.modified)))
        event.location = type.location
        event.notes = notes
        if booking.status == .cancelled { event.component.setProperty(Property(name: "STATUS", value: "CANCELLED")) }
        let zone = TimeZoneDatabase.zone(named: zoneName) ?? .utc
        self.init(
            CalendarEntry(
                event: event, members: [event.component], occurrence: nil, viewerZone: zone, viewerZoneName: zoneName))
    }
}
