import CalendarStore
import CivilTime
import Recurrence

extension ViewEvent {
    /// An occurrence from the store, as the views place it, in its calendar's colour.
    public init(_ occurrence: EventOccurrence, color: String?) {
        var dates: DateSpan?
        if case .date(let first) = occurrence.start {
            var afterLast = first.adding(days: 1)
            if case .date(let end) = occurrence.end, end > first { afterLast = end }
            dates = DateSpan(first: first, afterLast: afterLast)
        }
        self.init(
            id: occurrence.identifier, eventID: occurrence.eventIdentifier, calendarID: occurrence.calendarIdentifier,
            title: occurrence.title ?? "", start: occurrence.startInstant, end: max(occurrence.startInstant, occurrence.endInstant), dates: dates,
            color: color, isBusy: !occurrence.isCancelled && !occurrence.isTransparent)
    }
}
