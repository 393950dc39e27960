/// What the booking rules (the Bookings module) may do inside one of the store's write
/// transactions (``BookingStore/withLockedType(_:owner:now:_:)``), with the type's
/// calendars locked: read the situation, and keep holds, bookings, their events and
/// their webhook records. Every change commits with the transaction, or none does.
public protocol BookingTransaction {
    /// The type, as stored when its calendars were locked.
    var type: BookingType { get }
    /// The situation in `range`, read now: other bookers' live holds (all but
    /// `ownHold`), and busy time without the events of `ownBooking` (whose time a
    /// reschedule gives up).
    func situation(in range: TimeRange, ownHold: String?, ownBooking: Booking?) throws(StoreError)
        -> BookingSituation
    /// One of the type's holds (live: those that ran out were dropped), or nil.
    func hold(id: String) throws(StoreError) -> BookingHold?
    /// Keeps a new hold of the type.
    func insert(_ hold: BookingHold) throws(StoreError)
    /// Removes one of the type's holds.
    func removeHold(id: String) throws(StoreError)
    /// The type's booking made with `retryKey` that still stands (confirmed or waiting).
    func booking(retryKey: String) throws(StoreError) -> Booking?
    /// How many bookings wait for a seat of the class starting at `start`.
    func waitingCount(start: Int) throws(StoreError) -> Int
    /// The first to wait for a seat of the class starting at `start`.
    func firstWaiting(start: Int) throws(StoreError) -> Booking?
    /// Keeps a new booking of the type with the hashes of its links' tokens.
    func insert(_ booking: Booking, cancelTokenHash: String, rescheduleTokenHash: String, retryKey: String?)
        throws(StoreError)
    /// Keeps a booking's status, times, class instance, hosts, events and `modified`.
    func update(_ booking: Booking) throws(StoreError)
    /// The identifier of the event `identifier` names (the type's class event, say).
    func eventIdentifier(of identifier: String) throws(StoreError) -> String
    /// Writes a new event into the calendar it names; its identifier.
    func createEvent(_ event: Event) throws(StoreError) -> String?
    /// The event `identifier`, to change and ``save(_:)``.
    func event(_ identifier: String) throws(StoreError) -> Event
    /// The instance of event `identifier` starting at `start`, to change and ``save(_:)``
    /// (`slotTaken` when it no longer takes place then).
    func occurrence(of identifier: String, startingAt start: Int) throws(StoreError) -> Event
    /// Saves an event read here (an instance as that instance only).
    func save(_ event: Event) throws(StoreError)
    /// Records a booking's change for the owner's webhooks.
    func tell(_ change: WebhookEventType, _ booking: Booking) throws(StoreError)
}

extension DatabaseBookingStore {
    func withLockedType<T: Sendable>(
        _ type: String, owner: String, now: Int, _ body: (any BookingTransaction) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try database.write { (connection) throws(StoreError) -> T in
            let (row, _) = try lockedType(id: type, owner: owner, now: now, connection)
            return try body(DatabaseBookingTransaction(store: self, row: row, now: now, connection: connection))
        }
    }

    func withLockedBooking<T: Sendable>(
        _ id: String, owner: String, now: Int, _ body: (any BookingTransaction, Booking) throws(StoreError) -> T
    ) throws(StoreError) -> T {
        try database.write { (connection) throws(StoreError) -> T in
            let (booking, row, _) = try lockedBooking(id: id, owner: owner, now: now, connection)
            return try body(
                DatabaseBookingTransaction(store: self, row: row, now: now, connection: connection), booking)
        }
    }
}

/// A ``BookingTransaction`` on one connection inside its write transaction.
struct DatabaseBookingTransaction: BookingTransaction {
    let store: DatabaseBookingStore
    let row: DatabaseBookingStore.TypeRow
    /// The time the transaction decides at (live holds, the fairness window).
    let now: Int
    let connection: Connection

    var type: BookingType { row.type }
    var events: DatabaseEventStore { store.events(row) }

    func situation(in range: TimeRange, ownHold: String?, ownBooking: Booking?) throws(StoreError)
        -> BookingSituation
    {
        try store.situation(row, in: range, now: now, ownHold: ownHold, ownBooking: ownBooking, connection)
    }

    func hold(id: String) throws(StoreError) -> BookingHold? {
        try connection.firstRow(
            DatabaseBookingStore.holdColumns + " WHERE h.identifier = ? AND h.type_id = ?",
            [.text(id), .integer(row.rowID)], DatabaseBookingStore.hold)
    }

    func insert(_ hold: BookingHold) throws(StoreError) {
        try connection.run(
            "INSERT INTO booking_holds (identifier, type_id, starts, ends, recurrence_id, hosts, expires) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [
                .text(hold.id), .integer(row.rowID), .int(hold.start), .int(hold.end), .optional(hold.recurrenceID),
                DatabaseBookingStore.listText(hold.hosts), .int(hold.expires),
            ])
    }

    func removeHold(id: String) throws(StoreError) {
        try connection.run(
            "DELETE FROM booking_holds WHERE identifier = ? AND type_id = ?", [.text(id), .integer(row.rowID)])
    }

    func booking(retryKey: String) throws(StoreError) -> Booking? {
        try connection.firstRow(
            DatabaseBookingStore.bookingColumns
                + " WHERE b.type_id = ? AND b.retry_key = ? AND b.status IN ('confirmed', 'waitlisted')",
            [.integer(row.rowID), .text(retryKey)], DatabaseBookingStore.booking)
    }

    func waitingCount(start: Int) throws(StoreError) -> Int {
        try connection.firstRow(
            "SELECT count(*) FROM bookings WHERE type_id = ? AND starts = ? AND status = 'waitlisted'",
            [.integer(row.rowID), .int(start)], { $0.int(0) }) ?? 0
    }

    func firstWaiting(start: Int) throws(StoreError) -> Booking? {
        try connection.firstRow(
            DatabaseBookingStore.bookingColumns
                + " WHERE b.type_id = ? AND b.starts = ? AND b.status = 'waitlisted' ORDER BY b.created, b.id",
            [.integer(row.rowID), .int(start)], DatabaseBookingStore.booking)
    }

    func insert(_ booking: Booking, cancelTokenHash: String, rescheduleTokenHash: String, retryKey: String?)
        throws(StoreError)
    {
        try connection.run(
            """
            INSERT INTO bookings (identifier, type_id, calendar, event_identifier, recurrence_id, starts, ends, name,
                email, note, status, cancel_token, reschedule_token, created, modified, hosts, events, retry_key,
                time_zone, sequence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                .text(booking.id), .integer(row.rowID), .text(booking.calendar), .optional(booking.eventIdentifier),
                .optional(booking.recurrenceID), .int(booking.start), .int(booking.end), .text(booking.name),
                .text(booking.email), .optional(booking.note), .text(booking.status.rawValue), .text(cancelTokenHash),
                .text(rescheduleTokenHash), .int(booking.created), .int(booking.modified),
                DatabaseBookingStore.listText(booking.hosts), DatabaseBookingStore.listText(booking.events),
                .optional(retryKey), .optional(booking.timeZone), .int(booking.sequence),
            ])
    }

    func update(_ booking: Booking) throws(StoreError) {
        try connection.run(
            """
            UPDATE bookings SET status = ?, starts = ?, ends = ?, recurrence_id = ?, hosts = ?, events = ?,
                event_identifier = ?, modified = ?, sequence = ? WHERE identifier = ? AND type_id = ?
            """,
            [
                .text(booking.status.rawValue), .int(booking.start), .int(booking.end), .optional(booking.recurrenceID),
                DatabaseBookingStore.listText(booking.hosts), DatabaseBookingStore.listText(booking.events),
                .optional(booking.eventIdentifier), .int(booking.modified), .int(booking.sequence), .text(booking.id),
                .integer(row.rowID),
            ])
    }

    func eventIdentifier(of identifier: String) throws(StoreError) -> String {
        try events.locate(identifier, write: false, connection).0.identifier
    }

    func createEvent(_ event: Event) throws(StoreError) -> String? {
        try events.create(event, connection).localIdentifier
    }

    func event(_ identifier: String) throws(StoreError) -> Event {
        let events = events
        let (object, calendar) = try events.locate(identifier, write: true, connection)
        return try events.event(from: object, calendar: calendar)
    }

    func occurrence(of identifier: String, startingAt start: Int) throws(StoreError) -> Event {
        let events = events
        let (object, calendar) = try events.locate(identifier, write: true, connection)
        let listed = try events.occurrences(
            in: TimeRange(start: start, end: start + 1), calendars: [calendar], filter: .all, timeZone: nil,
            connection)
        guard
            let occurrence = listed.occurrences.first(where: {
                $0.eventIdentifier == object.identifier && $0.startInstant == start
            })
        else { throw StoreError(.slotTaken, "the class of \(identifier) no longer takes place then") }
        return occurrence.event
    }

    func save(_ event: Event) throws(StoreError) {
        _ = try events.save(event, span: .thisEvent, ifMatch: nil, connection)
    }

    func tell(_ change: WebhookEventType, _ booking: Booking) throws(StoreError) {
        try store.tell(change, booking, ownerID: row.ownerID, connection)
    }
}
