import Foundation

extension AlmanacClient {
    // MARK: Calendars

    /// The user's calendars, page by page (`GET /api/v1/calendars`).
    ///
    /// - Parameter pageSize: calendars a page (`limit`); the server's default when nil.
    public func calendars(pageSize: Int? = nil) -> Pages<AlmanacCalendar> {
        Pages(
            client: self, url: url(Self.path("calendars"), query: [("limit", pageSize.map(String.init))]),
            itemsKey: "calendars")
    }

    /// One calendar.
    public func calendar(id: String) async throws(AlmanacError) -> AlmanacCalendar {
        try await get(AlmanacCalendar.self, url(Self.path("calendars", id)))
    }

    /// The calendar titled `title`, created (with `draft`'s other members) when the user
    /// has none (`PUT /api/v1/calendars/by-title/{title}`): calling it twice gives the
    /// same calendar.
    public func findOrCreateCalendar(
        titled title: String, creatingWith draft: CalendarDraft? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> AlmanacCalendar {
        try await write(
            AlmanacCalendar.self, "PUT", url(Self.path("calendars", "by-title", title)), body: draft,
            idempotencyKey: idempotencyKey)
    }

    /// A new calendar (`draft.title` is needed).
    public func createCalendar(
        _ draft: CalendarDraft, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> AlmanacCalendar {
        try await write(
            AlmanacCalendar.self, "POST", url(Self.path("calendars")), body: draft, idempotencyKey: idempotencyKey)
    }

    /// Changes the members `changes` sets; with `ifMatch`, only if the calendar's ETag is
    /// still that (else ``ProblemType/preconditionFailed``).
    public func updateCalendar(
        id: String, _ changes: CalendarDraft, ifMatch: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) -> AlmanacCalendar {
        try await write(
            AlmanacCalendar.self, "PATCH", url(Self.path("calendars", id)), body: changes, ifMatch: ifMatch,
            idempotencyKey: idempotencyKey)
    }

    /// Deletes a calendar and everything in it; with `ifMatch` as for ``updateCalendar(id:_:ifMatch:idempotencyKey:)``.
    public func deleteCalendar(
        id: String, ifMatch: String? = nil, idempotencyKey: String? = nil
    ) async throws(AlmanacError) {
        try await write("DELETE", url(Self.path("calendars", id)), ifMatch: ifMatch, idempotencyKey: idempotencyKey)
    }

    /// What changed in a calendar since `token` (everything, as `created`, without one):
    /// one page; while ``ChangeListing/more`` is true, ask again with its ``ChangeListing/token``.
    ///
    /// - Throws: ``ProblemType/resyncRequired`` for a token that is no longer valid:
    ///   sync again without one.
    public func changes(
        inCalendar calendarID: String, since token: String? = nil, limit: Int? = nil, includeData: Bool = false
    ) async throws(AlmanacError) -> ChangeListing {
        try await get(
            ChangeListing.self,
            url(
                Self.path("calendars", calendarID, "changes"),
                query: [("since", token), ("limit", limit.map(String.init)), ("include", includeData ? "data" : nil)]))
    }

    // MARK: Month views and free time

    /// Per-day markers of a month's grid (whole weeks, starting on `firstWeekday`), for a
    /// month view: each day's count, calendar colours, first titles and conflicts
    /// (`GET /api/v1/summary?month=…`).
    ///
    /// - Parameters:
    ///   - year: the year, `month` its month (1 to 12).
    ///   - calendars: the calendars counted; all when nil.
    ///   - timeZone: the zone whose midnights divide the days; UTC when nil.
    ///   - firstWeekday: `monday` (the default) … `sunday`.
    ///   - titles: titles a day, 0 to 20 (the server gives 3 when nil).
    public func summary(
        year: Int, month: Int, calendars: [String]? = nil, timeZone: String? = nil, firstWeekday: String? = nil,
        titles: Int? = nil
    ) async throws(AlmanacError) -> CalendarSummary {
        try await summary(
            ("month", "\(Timestamp.pad(year, 4))-\(Timestamp.pad(month, 2))"), calendars, timeZone, firstWeekday,
            titles)
    }

    /// Per-day markers of one ISO 8601 week (`week` 1 to 53 of `year`), as ``summary(year:month:calendars:timeZone:firstWeekday:titles:)``.
    public func summary(
        year: Int, week: Int, calendars: [String]? = nil, timeZone: String? = nil, firstWeekday: String? = nil,
        titles: Int? = nil
    ) async throws(AlmanacError) -> CalendarSummary {
        try await summary(
            ("week", "\(Timestamp.pad(year, 4))-W\(Timestamp.pad(week, 2))"), calendars, timeZone, firstWeekday, titles)
    }

    private func summary(
        _ period: (String, String), _ calendars: [String]?, _ timeZone: String?, _ firstWeekday: String?,
        _ titles: Int?
    ) async throws(AlmanacError) -> CalendarSummary {
        try await get(
            CalendarSummary.self,
            url(
                Self.path("summary"),
                query: [
                    (period.0, period.1), ("calendars", calendars?.joined(separator: ",")), ("tz", timeZone),
                    ("firstWeekday", firstWeekday), ("titles", titles.map(String.init)),
                ]))
    }

    /// Free slots under `query`'s rules (`GET /api/v1/availability`).
    public func availability(_ query: AvailabilityQuery) async throws(AlmanacError) -> AvailabilityListing {
        try await get(AvailabilityListing.self, url(Self.path("availability"), query: query.parameters))
    }
}
