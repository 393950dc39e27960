import CivilTime
import Recurrence

extension ViewEvent {
    /// An occurrence as the views place it: its start and end as the event states them
    /// (instants, floating wall clocks or dates), read in `zone`; an all-day one keeps its
    /// dates (one day when the end is missing or not after the start).
    public init(
        id: String, eventID: String, calendarID: String, title: String, start: OccurrenceTime, end: OccurrenceTime,
        zone: ZoneRules, color: String?,
        isBusy: Bool, status: Status = .confirmed
    ) {
        var dates: DateSpan?
        if case .date(let first) = start {
            var afterLast = first.adding(days: 1)
            if case .date(let last) = end, last > first { afterLast = last }
            dates = DateSpan(first: first, afterLast: afterLast)
        }
        let startInstant = start.instant(in: zone)
        self.init(
            id: id, eventID: eventID, calendarID: calendarID, title: title, start: startInstant,
            end: max(startInstant, end.instant(in: zone)),
            dates: dates, color: color, isBusy: isBusy, status: status)
    }
}
