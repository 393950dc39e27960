import Foundation

extension AlmanacClient {
    // MARK: Events

    /// A calendar's events (series whole, not expanded), page by page
    /// (`GET /api/v1/calendars/{id}/events`).
    public func events(inCalendar calendarID: String, pageSize: Int? = nil) -> Pages<Event> {
        Pages(
            client: self,
            url: url(Self.path("calendars", calendarID, "events"), query: [("limit", pageSize.map(String.init))]),
            itemsKey: "events")
    }

    /// One event (a whole series), with its ETag.
    public func event(id: String) async throws(AlmanacError) -> Event {
        try await get(Event.self, url(Self.path("events", id)))
    }

    /// A new event in `draft.calendarID`, starting at `draft.start`.
    ///
    /// - Parameter rejectConflicts: true refuses an event that collides with busy time:
    ///   ``ProblemType/conflict`` with ``Problem/conflicts``, and nothing saved.
    public func createEvent(
        _ draft: EventDraft, rejectConflicts: Bool = false, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Event {
        try await write(
            Event.self, "POST", url(Self.path("events"), query: [("rejectConflicts", rejectConflicts ? "true" : nil)]),
            body: draft, idempotencyKey: idempotencyKey)
    }

    /// Changes the members `changes` sets (a whole series); with `ifMatch`, only if the
    /// event's ETag is still that (else ``ProblemType/preconditionFailed``, nothing changed).
    public func updateEvent(
        id: String, _ changes: EventDraft, ifMatch: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Event {
        try await write(
            Event.self, "PATCH", url(Self.path("events", id)), body: changes, ifMatch: ifMatch,
            idempotencyKey: idempotencyKey)
    }

    /// Replaces everything the API models with `draft` (members not given are reset;
    /// properties it does not model, X- ones, are kept); `ifMatch` as for
    /// ``updateEvent(id:_:ifMatch:idempotencyKey:)``.
    public func replaceEvent(
        id: String, with draft: EventDraft, ifMatch: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Event {
        try await write(
            Event.self, "PUT", url(Self.path("events", id)), body: draft, ifMatch: ifMatch,
            idempotencyKey: idempotencyKey)
    }

    /// Deletes an event (a whole series); `ifMatch` as for ``updateEvent(id:_:ifMatch:idempotencyKey:)``.
    public func deleteEvent(id: String, ifMatch: String? = nil, idempotencyKey: String? = nil)
        async throws(AlmanacError)
    {
        try await write("DELETE", url(Self.path("events", id)), ifMatch: ifMatch, idempotencyKey: idempotencyKey)
    }

    /// Removes the occurrences in `from`–`to` (titled `title`, ignoring case, when given)
    /// and returns them (`DELETE /api/v1/calendars/{id}/events?from&to&title`): one-off
    /// events are deleted, instances of a series excluded.
    ///
    /// - Parameter timeZone: the zone dates in `from` and `to` are read in; UTC when nil.
    @discardableResult
    public func removeEvents(
        inCalendar calendarID: String, from: EventTime, to: EventTime, title: String? = nil, timeZone: String? = nil,
        idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> [Occurrence] {
        let url = url(
            Self.path("calendars", calendarID, "events"),
            query: [("from", from.text), ("to", to.text), ("title", title), ("tz", timeZone)])
        return try await write(Removed.self, "DELETE", url, body: JSONValue?.none, idempotencyKey: idempotencyKey)
            .removed
    }

    private struct Removed: Decodable { var removed: [Occurrence] }

    // MARK: Occurrences

    /// The occurrences in `from`–`to` (at most 366 days), earliest first, series
    /// expanded (`GET /api/v1/calendars/{id}/occurrences`).
    ///
    /// - Parameters:
    ///   - title: only titles containing this, ignoring case.
    ///   - timeZone: the zone dates in `from` and `to` are read in; UTC when nil.
    /// - Returns: at most 10,000; when ``OccurrenceListing/truncated``, ask again from
    ///   ``OccurrenceListing/continueFrom``.
    public func occurrences(
        inCalendar calendarID: String, from: EventTime, to: EventTime, title: String? = nil, timeZone: String? = nil
    ) async throws(AlmanacError) -> OccurrenceListing {
        try await get(
            OccurrenceListing.self,
            url(
                Self.path("calendars", calendarID, "occurrences"),
                query: [("from", from.text), ("to", to.text), ("title", title), ("tz", timeZone)]))
    }

    /// Every occurrence in `from`–`to`, page by page (`limit` and `next` on the same
    /// listing as ``occurrences(inCalendar:from:to:title:timeZone:)``), so a range with more
    /// than one answer holds is read whole without following `continueFrom` by hand.
    public func allOccurrences(
        inCalendar calendarID: String, from: EventTime, to: EventTime, title: String? = nil, timeZone: String? = nil,
        pageSize: Int? = nil
    ) -> Pages<Occurrence> {
        Pages(
            client: self,
            url: url(
                Self.path("calendars", calendarID, "occurrences"),
                query: [
                    ("from", from.text), ("to", to.text), ("title", title), ("tz", timeZone),
                    ("limit", pageSize.map(String.init)),
                ]),
            itemsKey: "occurrences")
    }

    /// One occurrence by its ``Occurrence/id`` (`EVENT` or `EVENT/RECURRENCE-ID`).
    public func occurrence(id: String, timeZone: String? = nil) async throws(AlmanacError) -> Occurrence {
        try await get(Occurrence.self, url(Self.occurrencePath(id), query: [("tz", timeZone)]))
    }

    /// Changes one occurrence: `this` instance alone (an override), or it and the `future`
    /// ones (a new series from it). `ifMatch` is the occurrence's (its event's) ETag.
    ///
    /// - Returns: the event as the server saved it (for `this`, the series that now holds
    ///   the override, with its new ETag); read the occurrence again for its own values.
    public func updateOccurrence(
        id: String, span: Span = .this, _ changes: EventDraft, ifMatch: String? = nil, timeZone: String? = nil,
        idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> Event {
        try await write(
            Event.self, "PATCH", url(Self.occurrencePath(id), query: [("span", span.rawValue), ("tz", timeZone)]),
            body: changes, ifMatch: ifMatch, idempotencyKey: idempotencyKey)
    }

    /// Removes one occurrence (`this`: an EXDATE) or it and every later one (`future`:
    /// the series ends before it).
    public func deleteOccurrence(
        id: String, span: Span = .this, ifMatch: String? = nil, timeZone: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) {
        try await write(
            "DELETE", url(Self.occurrencePath(id), query: [("span", span.rawValue), ("tz", timeZone)]),
            ifMatch: ifMatch, idempotencyKey: idempotencyKey)
    }

    /// `/api/v1/occurrences/EVENT[/RECURRENCE-ID]`, each part encoded.
    static func occurrencePath(_ id: String) -> String {
        guard let slash = id.firstIndex(of: "/") else { return path("occurrences", id) }
        return path("occurrences", String(id[..<slash]), String(id[id.index(after: slash)...]))
    }

    // MARK: Add to Calendar

    /// Every "Add to Calendar" target of an event, or of one occurrence of it.
    ///
    /// - Parameters:
    ///   - occurrence: the RECURRENCE-ID of one instance (as in ``Occurrence/recurrenceID``);
    ///     the whole event when nil.
    ///   - timeZone: the zone for floating and all-day times; the calendar's when nil.
    public func addToCalendar(
        eventID: String, occurrence: String? = nil, timeZone: String? = nil
    ) async throws(AlmanacError) -> AddToCalendarTargets {
        try await get(
            AddToCalendarTargets.self,
            url(Self.path("events", eventID, "add-to-calendar"), query: [("occurrence", occurrence), ("tz", timeZone)]))
    }

    /// Records that the user added the event to a device's calendar (idempotent).
    ///
    /// - Parameters:
    ///   - platform: `ios`, `android` or `web`.
    ///   - nativeIdentifier: the device calendar's identifier for it (an `EKEvent`'s).
    @discardableResult
    public func markAdded(
        eventID: String, platform: String? = nil, nativeIdentifier: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> AddedMark {
        var members: [JSONValue.Member] = []
        if let platform { members.append(JSONValue.Member("platform", .string(platform))) }
        if let nativeIdentifier { members.append(JSONValue.Member("nativeIdentifier", .string(nativeIdentifier))) }
        return try await write(
            AddedMark.self, "PUT", url(Self.path("events", eventID, "added")), body: JSONValue.object(members),
            idempotencyKey: idempotencyKey)
    }

    /// The user's device mark for the event; ``ProblemType/notFound`` when there is none.
    public func addedMark(eventID: String) async throws(AlmanacError) -> AddedMark {
        try await get(AddedMark.self, url(Self.path("events", eventID, "added")))
    }

    /// Removes the device mark.
    public func unmarkAdded(eventID: String, idempotencyKey: String? = nil) async throws(AlmanacError) {
        try await write("DELETE", url(Self.path("events", eventID, "added")), idempotencyKey: idempotencyKey)
    }
}
