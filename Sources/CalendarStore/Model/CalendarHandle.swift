/// A calendar resolved once for a request: the calendar as it was read, and the key
/// later store calls use instead of looking it up again. A protocol layer resolves the
/// calendar a path names (``EventStore/calendarHandle(named:)``) and hands the handle to
/// every call it makes for that request.
///
/// A handle is only good for the store (the user) that made it; any other store looks
/// the calendar up by its identifier, with its own access checks. A write still locks
/// the calendar's row and checks that it may change it, inside its own transaction.
public struct CalendarHandle: Sendable {
    /// The calendar as it was when resolved (with its dead properties).
    public var calendar: EventCalendar { row.calendar }

    let row: CalendarRow
    /// The store user it was resolved for.
    let userID: Int64
}

/// What names a calendar in a store call: its identifier (looked up in the call's own
/// transaction) or a ``CalendarHandle`` resolved earlier in the request.
public protocol CalendarReference: Sendable {
    /// The calendar's identifier.
    var calendarIdentifier: String { get }
    /// The handle, when this reference is one.
    var handle: CalendarHandle? { get }
}

extension String: CalendarReference {
    /// The string itself: a calendar identifier.
    public var calendarIdentifier: String { self }
    /// Always nil: the calendar is looked up by identifier in each call.
    public var handle: CalendarHandle? { nil }
}

extension CalendarHandle: CalendarReference {
    /// The identifier of the calendar resolved.
    public var calendarIdentifier: String { calendar.id }
    /// The handle itself.
    public var handle: CalendarHandle? { self }
}
