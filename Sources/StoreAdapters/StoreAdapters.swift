import Availability
import CalendarStore
import CalendarViews

// The store's values as the pure Availability and CalendarViews modules take them: the
// one place that knows both sides, so the pure modules never import the store.

extension ViewEvent {
    /// An occurrence from the store, as the views place it, in its calendar's colour.
    public init(_ occurrence: EventOccurrence, color: String?) {
        self.init(
            id: occurrence.identifier, eventID: occurrence.eventIdentifier, calendarID: occurrence.calendarIdentifier,
            title: occurrence.title ?? "",
            start: occurrence.start, end: occurrence.end, zone: occurrence.viewerZone, color: color,
            isBusy: !occurrence.isCancelled && !occurrence.isTransparent,
            status: occurrence.status.map(ViewEvent.Status.init) ?? .confirmed)
    }
}

extension ViewEvent.Status {
    /// An event's STATUS as the views mark it.
    public init(_ status: EventStatus) {
        switch status {
        case .confirmed: self = .confirmed
        case .tentative: self = .tentative
        case .cancelled: self = .cancelled
        }
    }
}

extension BusyBlock {
    /// The store's busy time of one instance (`EventStore.busyTime`).
    public init(_ busy: BusyTime) {
        self.init(
            start: busy.start, end: busy.end, source: busy.eventIdentifier, recurrenceID: busy.recurrenceID,
            isTentative: busy.isTentative,
            isAllDay: busy.isAllDay)
    }
}
