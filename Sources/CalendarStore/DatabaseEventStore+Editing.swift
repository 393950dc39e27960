import CivilTime
import ICalendar
import Recurrence

extension DatabaseEventStore {
    /// Stamps a component written through the event API: DTSTAMP and LAST-MODIFIED now,
    /// CREATED when new.
    static func stamped(_ component: Component, isNew: Bool) -> Component {
        var component = component
        let now = DateTimeValue(CivilDateTime(secondsSinceEpoch: WallClock.now()), form: .utc)
        component.setProperty(Property(name: "DTSTAMP", dateTime: now))
        component.setProperty(Property(name: "LAST-MODIFIED", dateTime: now))
        if isNew, component.property("CREATED") == nil {
            component.setProperty(Property(name: "CREATED", dateTime: now))
        }
        return component
    }

    /// Checks an edited calendar object, serializes it and writes it at `name`.
    @discardableResult
    func write(
        _ calendar: Component, name: String, into row: CalendarRow, ifNoneMatch: Bool = false,
        note: Outbox.Note? = nil, _ connection: Connection
    )
        throws(StoreError) -> ObjectRow
    {
        let object = try CalendarObject(document: ICalendarDocument(components: [calendar]), resource: name)
        let data = calendar.serialized()
        return try writeObject(
            object, data: data, name: name, calendar: row, ifMatch: nil, ifNoneMatch: ifNoneMatch, note: note,
            connection)
    }

    /// A free resource name for a new object with this UID.
    func freeName(forUID uid: String, in row: CalendarRow, _ connection: Connection) throws(StoreError) -> String {
        let name = Identifiers.resourceName(forUID: uid)
        if try object(named: name, in: row, connection) == nil { return name }
        return Identifiers.newUUID() + ".ics"
    }

    // MARK: Save

    /// See ``EventStore/save(_:span:ifMatch:)``; an event without a start, or ending before it starts,
    /// is `invalidArgument`.
    @discardableResult
    public func save(_ event: Event, span: Span, ifMatch: String?) throws(StoreError) -> Event {
        guard event.start != nil || event.component.name != ComponentType.event.rawValue else {
            throw StoreError(.invalidArgument, "an event needs a start")
        }
        if let start = event.start, let end = event.end, end.civil < start.civil, start.form == end.form {
            throw StoreError(.invalidArgument, "the event ends before it starts")
        }
        return try database.write { (connection) throws(StoreError) -> Event in
            try save(event, span: span, ifMatch: ifMatch, connection)
        }
    }

    /// ``save(_:span:ifMatch:)`` in the caller's transaction.
    func save(_ event: Event, span: Span, ifMatch: String?, _ connection: Connection) throws(StoreError) -> Event {
        guard let identifier = event.localIdentifier else {
            if ifMatch != nil {
                throw StoreError(.preconditionFailed, "a new event has no ETag to match (If-Match)")
            }
            return try create(event, connection)
        }
        let (object, row) = try locate(identifier, write: true, connection)
        try StoreError.checkIfMatch(ifMatch, current: object.etag, resource: identifier)
        if let target = event.calendarIdentifier, target != row.calendar.id {
            return try move(event, from: object, calendar: row, to: target, connection)
        }
        var editing = SeriesEditing(try CalendarObject(parsing: object.data, resource: object.name))
        var component = Self.stamped(event.component, isNew: false)
        component.setProperty(Property(name: "UID", value: editing.uid))
        var note: Outbox.Note?
        if let occurrence = event.occurrenceID, editing.isRecurring {
            let key = editing.key(of: occurrence)
            let startKey = editing.seriesStart.map { editing.key(of: $0) } ?? key
            if span == .thisEvent {
                editing.setOverride(component, key: key)
                note = Outbox.Note(
                    type: .eventUpdated, occurrence: .init(recurrenceID: occurrence.text, span: "this"))
            } else if key <= startKey {
                component.removeProperties(named: "RECURRENCE-ID")
                editing.setMaster(component)
            } else {
                return try splitSeries(
                    editing, at: key, with: component, object: object, row: row,
                    note: Outbox.Note(
                        type: .eventUpdated, occurrence: .init(recurrenceID: occurrence.text, span: "future")),
                    connection)
            }
        } else if let overrideKey = editing.overrideKey(component) {
            editing.setOverride(component, key: overrideKey)
        } else {
            editing.setMaster(component)
        }
        editing.addMissingTimeZones()
        let written = try write(editing.calendar, name: object.name, into: row, note: note, connection)
        return try self.event(from: written, calendar: row)
    }

    func create(_ event: Event, _ connection: Connection) throws(StoreError) -> Event {
        guard let calendarID = event.calendarIdentifier else {
            throw StoreError(.invalidArgument, "choose a calendar for a new event (calendarIdentifier)")
        }
        let row = try calendarRow(calendarID, connection, write: true)
        var component = Self.stamped(event.component, isNew: true)
        if event.externalIdentifier.isEmpty {
            component.setProperty(Property(name: "UID", value: Identifiers.newUID()))
        }
        let uid = component.property("UID")!.value
        var editing = SeriesEditing(
            try CalendarObject(
                document: ICalendarDocument(components: [SeriesEditing.calendar(with: [component])]), resource: nil))
        editing.addMissingTimeZones()
        let name = try freeName(forUID: uid, in: row, connection)
        let written = try write(editing.calendar, name: name, into: row, ifNoneMatch: true, connection)
        return try self.event(from: written, calendar: row)
    }

    /// Moves a whole event to another calendar (the object keeps its UID and its overrides).
    func move(
        _ event: Event, from object: ObjectRow, calendar row: CalendarRow, to target: String, _ connection: Connection
    )
        throws(StoreError) -> Event
    {
        let targetRow = try calendarRow(target, connection, write: true)
        var editing = SeriesEditing(try CalendarObject(parsing: object.data, resource: object.name))
        var component = Self.stamped(event.component, isNew: false)
        component.removeProperties(named: "RECURRENCE-ID")
        component.setProperty(Property(name: "UID", value: editing.uid))
        editing.setMaster(component)
        editing.addMissingTimeZones()
        try deleteObject(object, calendar: row, connection)
        let name = try freeName(forUID: editing.uid, in: targetRow, connection)
        let written = try write(editing.calendar, name: name, into: targetRow, ifNoneMatch: true, connection)
        return try self.event(from: written, calendar: targetRow)
    }

    /// `.futureEvents` from an instance after the first: the series ends before it, and a
    /// new series (a new UID and resource) starts from it with the edited properties,
    /// taking over the later RDATEs, EXDATEs and overrides (moved by the same shift when
    /// the edit moved the start).
    func splitSeries(
        _ editing: SeriesEditing, at key: Int, with component: Component, object: ObjectRow, row: CalendarRow,
        note: Outbox.Note, _ connection: Connection
    )
        throws(StoreError) -> Event
    {
        var old = editing
        let cut = old.truncate(before: key)
        old.addMissingTimeZones()
        try write(old.calendar, name: object.name, into: row, note: note, connection)

        let newUID = Identifiers.newUID()
        var master = component
        master.removeProperties(named: "RECURRENCE-ID")
        master.setProperty(Property(name: "UID", value: newUID))
        let newStartKey = (try? master.property("DTSTART")?.dateTimeValue()).map { editing.key(of: $0) } ?? key
        let shift = newStartKey - key
        func moved(_ value: DateTimeValue) -> DateTimeValue {
            guard shift != 0 else { return value }
            if value.isDate { return DateTimeValue(date: value.date.adding(days: shift / 86_400)) }
            return DateTimeValue(value.civil.adding(seconds: shift), form: value.form)
        }
        var event = Event(component: master)
        event.recurrenceRules = cut.rules
        event.recurrenceDates = cut.dates.map(moved)
        event.exceptionDates = cut.exclusions.map(moved)
        var members = [event.component]
        for var override in cut.overrides {
            override.setProperty(Property(name: "UID", value: newUID))
            if let id = try? override.property("RECURRENCE-ID")?.dateTimeValue() {
                override.setProperty(Property(name: "RECURRENCE-ID", dateTime: moved(id)))
            }
            members.append(override)
        }
        var fresh = SeriesEditing(
            try CalendarObject(
                document: ICalendarDocument(components: [SeriesEditing.calendar(with: members)]), resource: nil))
        fresh.addMissingTimeZones()
        let name = try freeName(forUID: newUID, in: row, connection)
        let written = try write(fresh.calendar, name: name, into: row, ifNoneMatch: true, connection)
        return try self.event(from: written, calendar: row)
    }

    // MARK: Remove

    /// See ``EventStore/remove(_:span:ifMatch:)``; an event never saved is `notFound`.
    public func remove(_ event: Event, span: Span, ifMatch: String?) throws(StoreError) {
        guard let identifier = event.localIdentifier else {
            throw StoreError(.notFound, "the event was never saved")
        }
        try database.write { (connection) throws(StoreError) in
            let (object, row) = try locate(identifier, write: true, connection)
            try StoreError.checkIfMatch(ifMatch, current: object.etag, resource: identifier)
            var editing = SeriesEditing(try CalendarObject(parsing: object.data, resource: object.name))
            var key: Int?
            if let occurrence = event.occurrenceID, editing.isRecurring {
                key = editing.key(of: occurrence)
            } else if editing.isRecurring, let overrideKey = editing.overrideKey(event.component) {
                key = overrideKey
            }
            guard let key else { return try deleteObject(object, calendar: row, connection) }
            let startKey = editing.seriesStart.map { editing.key(of: $0) } ?? key
            let recurrenceID = (event.occurrenceID ?? editing.occurrenceTime(forKey: key)).text
            switch span {
            case .thisEvent:
                editing.exclude(key: key)
            case .futureEvents:
                if key <= startKey { return try deleteObject(object, calendar: row, connection) }
                _ = editing.truncate(before: key)
            }
            let note = Outbox.Note(
                type: .eventDeleted,
                occurrence: .init(recurrenceID: recurrenceID, span: span == .thisEvent ? "this" : "future"))
            try write(editing.calendar, name: object.name, into: row, note: note, connection)
        }
    }

    /// See ``EventStore/removeEvents(in:calendar:title:timeZone:)``.
    @discardableResult
    public func removeEvents(in range: TimeRange, calendar: String, title: String?, timeZone: String?)
        throws(StoreError) -> [EventOccurrence]
    {
        try database.write { (connection) throws(StoreError) -> [EventOccurrence] in
            try removeEvents(in: range, calendar: calendar, title: title, timeZone: timeZone, connection)
        }
    }

    /// See ``EventStore/replaceEvents(in:calendar:with:timeZone:)``; an event already saved
    /// (with a local identifier) is `invalidArgument`.
    public func replaceEvents(in range: TimeRange?, calendar: String, with events: [Event], timeZone: String?)
        throws(StoreError) -> (removed: Int, added: [Event])
    {
        try database.write { (connection) throws(StoreError) -> (removed: Int, added: [Event]) in
            let removed =
                try range.map { (range) throws(StoreError) in
                    try removeEvents(in: range, calendar: calendar, title: nil, timeZone: timeZone, connection).count
                } ?? 0
            var added: [Event] = []
            for var event in events {
                guard event.localIdentifier == nil else {
                    throw StoreError(.invalidArgument, "replaceEvents adds new events only")
                }
                event.calendarIdentifier = calendar
                added.append(try create(event, connection))
            }
            return (removed, added)
        }
    }

    func removeEvents(
        in range: TimeRange, calendar: String, title: String?, timeZone: String?, _ connection: Connection
    )
        throws(StoreError) -> [EventOccurrence]
    {
        let filter = EventFilter(title: title.map { .equals($0) }, componentTypes: Set(ComponentType.allCases))
        let row = try calendarRow(calendar, connection, write: true)
        let zone = try viewerZone(timeZone, calendar: row)
        var removed: [EventOccurrence] = []
        var budget = backend.expansionBudget
        for candidate in try candidates(in: row, from: range.start, to: range.end, connection) {
            let series = try cachedSeries(id: candidate.rowID, etag: candidate.etag, connection)
            let expansion = try occurrences(
                of: candidate, series: series, calendar: row, from: range.start, to: range.end, zone: zone,
                budget: &budget)
            // Removing only the instances a bound let through would leave the rest behind unsaid.
            if let cut = expansion.truncated { throw Self.truncationRefused(cut) }
            let inRange = expansion.occurrences
            let matching = inRange.filter { filter.matches($0.filterComponent) }
            guard !matching.isEmpty else { continue }
            removed += matching
            guard
                let object = try connection.firstRow(
                    Self.objectColumns + " WHERE o.id = ?", [.integer(candidate.rowID)], objectRow)
            else {
                continue
            }
            // A whole object goes when every instance it has lies in the range and matches.
            let wholeObjectInRange =
                candidate.lastEnd.map { candidate.firstStart >= range.start && $0 <= range.end } ?? false
            if !candidate.recurring || (wholeObjectInRange && matching.count == inRange.count) {
                try deleteObject(object, calendar: row, connection)
                continue
            }
            var editing = SeriesEditing(try CalendarObject(parsing: object.data, resource: object.name))
            for occurrence in matching {
                if let id = occurrence.recurrenceID { editing.exclude(key: editing.key(of: id)) }
            }
            try write(editing.calendar, name: object.name, into: row, connection)
        }
        Self.sortByStart(&removed)
        return removed
    }
}
