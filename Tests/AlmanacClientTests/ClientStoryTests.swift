import AlmanacClient
import AlmanacTesting
import Foundation
import Testing

/// The client against a live server on loopback: the stories the README tells, ETags,
/// idempotency keys, problems, retries.
@Suite struct ClientStoryTests {
    // MARK: The stories

    @Test func findOrCreateACalendarByTitle() async throws {
        let live = try LiveServer()
        let first = try await live.client.findOrCreateCalendar(
            titled: "Trainings & more", creatingWith: CalendarDraft(color: "#FF0000"))
        let again = try await live.client.findOrCreateCalendar(titled: "Trainings & more")
        #expect(again.id == first.id && again.title == "Trainings & more" && again.color == "#FF0000")
        #expect(!first.etag.isEmpty && first.componentTypes.contains("VEVENT"))
        var listed: [AlmanacCalendar] = []
        for try await calendar in live.client.calendars() { listed.append(calendar) }
        #expect(listed.filter { $0.title == "Trainings & more" }.map(\.id) == [first.id])
        #expect(try await live.client.calendar(id: first.id) == again)
    }

    @Test func addAnEventWithAnAlarm() async throws {
        let live = try LiveServer()
        let trainings = try await live.client.findOrCreateCalendar(titled: "Trainings")
        let created = try await live.client.createEvent(
            EventDraft(
                calendarID: trainings.id, title: "Spin", location: "Gym",
                start: .wallClock(year: 2026, month: 12, day: 1, hour: 18), duration: .minutes(45),
                timeZone: "Europe/Berlin", alarms: [.minutesBefore(15)]))
        let read = try await live.client.event(id: created.id)
        #expect(read.title == "Spin" && read.location == "Gym" && read.calendarID == trainings.id)
        #expect(
            read.start == "2026-12-01T18:00:00" && read.start?.form == .wallClock && read.timeZone == "Europe/Berlin")
        #expect(read.end == "2026-12-01T18:45:00")
        #expect(
            read.alarms.count == 1 && read.alarms.first?.minutesBefore == 15 && read.alarms.first?.trigger == "-PT15M")
        #expect(read.etag != nil && read.etag == created.etag && read.sequence == created.sequence)
        #expect(read.jcal?[0] == .string("vevent"))
        // The event's own occurrence, in UTC: 18:00 in Berlin is 17:00Z in December.
        let only = try await live.client.occurrence(id: created.id)
        #expect(
            only.start == "2026-12-01T17:00:00Z" && only.start.instant == Date(timeIntervalSince1970: 1_796_144_400))
    }

    @Test func removeEventsInARangeWithATitle() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        for (title, day) in [("Spin", 1), ("Spin", 2), ("Yoga", 2), ("Spin", 10)] {
            _ = try await live.client.createEvent(
                EventDraft(
                    calendarID: calendar, title: title, start: .utc(Self.december(day, hour: 17)),
                    duration: .hours(1)))
        }
        let removed = try await live.client.removeEvents(
            inCalendar: calendar, from: "2026-12-01", to: "2026-12-05", title: "spin", timeZone: "Europe/Berlin")
        #expect(removed.map { $0.title ?? "" } == ["Spin", "Spin"])
        #expect(removed.map(\.start) == ["2026-12-01T17:00:00Z", "2026-12-02T17:00:00Z"])
        #expect(try await live.decemberTitles(calendar) == ["Yoga", "Spin"])
    }

    /// A weekly series on Tuesdays at 18:00 in Berlin, its second instance renamed alone and
    /// its third excluded: the month's occurrences, and the month view's day markers.
    @Test func aMonthsOccurrencesAndMarkers() async throws {
        let live = try LiveServer()
        let trainings = try await live.client.createCalendar(CalendarDraft(title: "Trainings", color: "#0072B2"))
        let series = try await live.client.createEvent(
            EventDraft(
                calendarID: trainings.id, title: "Spin", start: "2026-12-01T18:00:00", duration: "PT1H",
                timeZone: "Europe/Berlin", rrule: "FREQ=WEEKLY;COUNT=5"))
        let month = try await live.client.occurrences(
            inCalendar: trainings.id, from: "2026-12-01", to: "2027-01-01", timeZone: "Europe/Berlin")
        #expect(month.occurrences.count == 5 && !month.truncated && month.continueFrom == nil)
        let second = month.occurrences[1]
        #expect(second.id == "\(series.id)/2026-12-08T17:00:00Z" && second.recurrenceID == "2026-12-08T17:00:00Z")

        let override = try await live.client.updateOccurrence(
            id: second.id, span: .this, EventDraft(title: "Spin (guest coach)"), ifMatch: second.etag)
        #expect(override.id == series.id && override.etag != second.etag)
        let renamed = try await live.client.occurrence(id: second.id, timeZone: "Europe/Berlin")
        #expect(renamed.title == "Spin (guest coach)" && renamed.detached)
        let third = try await live.client.occurrence(id: month.occurrences[2].id)
        try await live.client.deleteOccurrence(id: third.id, span: .this, ifMatch: third.etag)

        let after = try await live.client.occurrences(
            inCalendar: trainings.id, from: "2026-12-01", to: "2027-01-01", timeZone: "Europe/Berlin")
        #expect(after.occurrences.map { $0.title ?? "" } == ["Spin", "Spin (guest coach)", "Spin", "Spin"])
        #expect(after.occurrences.map(\.detached) == [false, true, false, false])
        // 1, 8, (15 excluded), 22 and 29 December, 17:00Z.
        #expect(
            after.occurrences.map(\.start.text) == [
                "2026-12-01T17:00:00Z", "2026-12-08T17:00:00Z", "2026-12-22T17:00:00Z", "2026-12-29T17:00:00Z",
            ])
        let stored = try await live.client.event(id: series.id)
        #expect(stored.exdates == ["2026-12-15T18:00:00"], "\(stored.exdates)")

        // The same month read in pages of two, following next.
        var paged: [String] = []
        for try await occurrence in live.client.allOccurrences(
            inCalendar: trainings.id, from: "2026-12-01", to: "2027-01-01", timeZone: "Europe/Berlin", pageSize: 2)
        {
            paged.append(occurrence.id)
        }
        #expect(paged == after.occurrences.map(\.id))
        let firstPage = try await live.client.occurrences(
            inCalendar: trainings.id, from: "2026-12-01", to: "2027-01-01", timeZone: "Europe/Berlin")
        #expect(firstPage.next == nil)

        let summary = try await live.client.summary(year: 2026, month: 12, timeZone: "Europe/Berlin")
        // December 2026 starts on a Tuesday: the grid runs Monday 30 November to Sunday 3 January.
        #expect(summary.days.count == 35 && summary.days.first?.date == "2026-11-30")
        #expect(summary.days.first?.inMonth == false && summary.days.last?.date == "2027-01-03")
        #expect(summary.timeZone == "Europe/Berlin" && summary.firstWeekday == "monday")
        func day(_ date: String) -> SummaryDay? { summary.days.first { $0.date == date } }
        #expect(day("2026-12-01")?.count == 1 && day("2026-12-01")?.colors == ["#0072B2"])
        #expect(day("2026-12-08")?.titles == ["Spin (guest coach)"])
        #expect(day("2026-12-15")?.count == 0 && day("2026-12-15")?.colors == [])
        #expect(
            summary.days.filter { $0.count > 0 }.map(\.date) == [
                "2026-12-01", "2026-12-08", "2026-12-22", "2026-12-29",
            ])
        #expect(summary.days.allSatisfy { !$0.conflict })
        let sunday = try await live.client.summary(
            year: 2026, month: 12, timeZone: "Europe/Berlin", firstWeekday: "sunday", titles: 0)
        #expect(sunday.days.first?.date == "2026-11-29" && sunday.days.allSatisfy { $0.titles.isEmpty })
        let week = try await live.client.summary(year: 2026, week: 49, timeZone: "Europe/Berlin")
        #expect(week.days.count == 7 && week.days.first?.date == "2026-11-30")
    }

    @Test func theAddToCalendarPayload() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        let event = try await live.client.createEvent(
            EventDraft(
                calendarID: calendar, title: "Spin", notes: "Bring water", location: "Gym",
                url: "https://gym.example.com/spin", start: "2026-12-01T18:00:00", duration: .hours(1),
                timeZone: "Europe/Berlin", rrule: "FREQ=WEEKLY;COUNT=4", alarms: [.minutesBefore(15)]))
        let targets = try await live.client.addToCalendar(eventID: event.id)
        let bridge = targets.bridge
        #expect(bridge.name == "Spin" && !bridge.allDay)
        // 2026-12-01T17:00:00Z to 18:00Z.
        #expect(bridge.startsAtInMillisecondsSinceEpoch == 1_796_144_400_000)
        #expect(bridge.endsAtInMillisecondsSinceEpoch == 1_796_148_000_000)
        // The date it touches in its zone, at 00:00 UTC, and the day after: 2026-12-01, 2026-12-02.
        #expect(bridge.allDayStartAtInMillisecondsSinceEpoch == 1_796_083_200_000)
        #expect(bridge.allDayEndsAtInMillisecondsSinceEpoch == 1_796_169_600_000)
        #expect(
            bridge.location == "Gym" && bridge.notes == "Bring water" && bridge.url == "https://gym.example.com/spin")
        #expect(bridge.rrule == "FREQ=WEEKLY;COUNT=4" && bridge.timeZone == "Europe/Berlin")
        #expect(bridge.alarmMinutesBefore == 15)
        // Passed on to a native shell, it has exactly the bridge's members, absent ones null.
        let encoded = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(bridge))
        guard case .object(let members) = encoded else {
            Issue.record("not an object")
            return
        }
        #expect(
            Set(members.map(\.name)) == [
                "name", "startsAtInMillisecondsSinceEpoch", "endsAtInMillisecondsSinceEpoch", "allDay",
                "allDayStartAtInMillisecondsSinceEpoch", "allDayEndsAtInMillisecondsSinceEpoch", "location", "rrule",
                "notes", "url", "timeZone", "alarmMinutesBefore",
            ])
        #expect(targets.android.extras.title == "Spin" && targets.android.extras.beginTime == 1_796_144_400_000)
        #expect(targets.android.uri.hasPrefix("intent://") && targets.android.lost.contains(.alarms))
        #expect(targets.google.url.hasPrefix("https://calendar.google.com/calendar/render?action=TEMPLATE"))
        #expect(targets.outlook.lost.contains(.recurrence) && targets.ics.url == "/events/\(event.id).ics")
        #expect(targets.ics.lost.isEmpty)
        // One occurrence of the series: its own times, nothing of the rule.
        let second = try await live.client.addToCalendar(eventID: event.id, occurrence: "2026-12-08T17:00:00Z")
        #expect(second.bridge.startsAtInMillisecondsSinceEpoch == 1_796_144_400_000 + 7 * 86_400_000)
        #expect(second.bridge.rrule == nil)

        let mark = try await live.client.markAdded(eventID: event.id, platform: "ios", nativeIdentifier: "EK-1")
        #expect(mark.platform == "ios" && mark.eventID == event.id)
        #expect(try await live.client.addedMark(eventID: event.id).nativeIdentifier == "EK-1")
        try await live.client.unmarkAdded(eventID: event.id)
        let gone = await almanacError { _ = try await live.client.addedMark(eventID: event.id) }
        #expect(gone?.problem?.type == .notFound)
    }

    // MARK: ETags and idempotency

    @Test func aStaleETagIsATypedPreconditionFailure() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Work").id
        let event = try await live.client.createEvent(
            EventDraft(calendarID: calendar, title: "Standup", start: "2026-12-01T09:00:00Z", duration: .minutes(15)))
        let stale = try #require(event.etag)
        let moved = try await live.client.updateEvent(
            id: event.id, EventDraft(title: "Stand-up", clearing: [.location]), ifMatch: stale)
        #expect(moved.title == "Stand-up" && moved.etag != stale)

        let refused = await almanacError {
            _ = try await live.client.updateEvent(id: event.id, EventDraft(title: "Lost update"), ifMatch: stale)
        }
        let problem = try #require(refused?.problem)
        #expect(problem.type == .preconditionFailed && problem.status == 412 && refused?.status == 412)
        #expect(problem.type.rawValue == "urn:almanac:problem:precondition-failed" && !problem.title.isEmpty)
        #expect(refused?.method == "PATCH" && refused?.url.path == "/api/v1/events/\(event.id)")
        let deleteRefused = await almanacError { try await live.client.deleteEvent(id: event.id, ifMatch: stale) }
        #expect(deleteRefused?.problem?.type == .preconditionFailed)
        #expect(try await live.client.event(id: event.id).title == "Stand-up")

        // PUT with the current ETag replaces what the API models, from the event read.
        var draft = moved.draft
        draft.title = "Daily"
        draft.categories = ["team"]
        let replaced = try await live.client.replaceEvent(id: event.id, with: draft, ifMatch: moved.etag)
        #expect(replaced.title == "Daily" && replaced.categories == ["team"] && replaced.end == "2026-12-01T09:15:00Z")
        try await live.client.deleteEvent(id: event.id, ifMatch: replaced.etag)
        let gone = await almanacError { _ = try await live.client.event(id: event.id) }
        #expect(gone?.problem?.type == .notFound)

        // Calendars take If-Match too.
        let current = try await live.client.calendar(id: calendar)
        _ = try await live.client.updateCalendar(
            id: calendar, CalendarDraft(description: "Office"), ifMatch: current.etag)
        let staleCalendar = await almanacError {
            _ = try await live.client.updateCalendar(id: calendar, CalendarDraft(title: "Nope"), ifMatch: current.etag)
        }
        #expect(staleCalendar?.problem?.type == .preconditionFailed)
    }

    @Test func anIdempotencyKeyIsCarriedOutOnce() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        let draft = EventDraft(calendarID: calendar, title: "Spin", start: "2026-12-02T18:00:00Z")
        let first = try await live.client.createEvent(draft, idempotencyKey: "retry-of-spin")
        let retried = try await live.client.createEvent(draft, idempotencyKey: "retry-of-spin")
        #expect(retried.id == first.id && retried.etag == first.etag)
        #expect(try await live.decemberTitles(calendar) == ["Spin"])
        // The same key for another request is refused and does nothing.
        let reused = await almanacError {
            _ = try await live.client.createEvent(
                EventDraft(calendarID: calendar, title: "Yoga", start: "2026-12-03T18:00:00Z"),
                idempotencyKey: "retry-of-spin")
        }
        #expect(reused?.problem?.type == .idempotencyKeyReused && reused?.status == 422)
        // Without a key of the caller's, each call gets its own: two calls, two events.
        _ = try await live.client.createEvent(draft)
        _ = try await live.client.createEvent(draft)
        #expect(try await live.decemberTitles(calendar) == ["Spin", "Spin", "Spin"])
        // A deletion retried with its key is the first answer again, not a 404.
        try await live.client.deleteEvent(id: first.id, idempotencyKey: "delete-spin")
        try await live.client.deleteEvent(id: first.id, idempotencyKey: "delete-spin")
        let again = await almanacError { try await live.client.deleteEvent(id: first.id) }
        #expect(again?.problem?.type == .notFound)
    }

    // MARK: Problems

    @Test func problemsAreTyped() async throws {
        let live = try LiveServer()
        let missing = await almanacError { _ = try await live.client.event(id: "no-such-event") }
        let notFound = try #require(missing?.problem)
        #expect(notFound.type == .notFound && notFound.status == 404 && !notFound.detail.isEmpty)
        switch notFound.type {
        case .notFound: break
        default: Issue.record("switching on the type: \(notFound.type)")
        }

        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        let invalid = await almanacError {
            _ = try await live.client.createEvent(EventDraft(calendarID: calendar, title: "x", start: "2026-13-45"))
        }
        #expect(invalid?.problem?.type == .invalidField && invalid?.status == 400)
        #expect(invalid?.problem?.fields == ["start"])
        let long = await almanacError {
            _ = try await live.client.occurrences(inCalendar: calendar, from: "2026-01-01", to: "2028-01-01")
        }
        #expect(long?.problem?.type == .rangeTooLong && long?.problem?.fields == ["from", "to"])

        // Bob's calendar is not found for anna: nothing is revealed.
        let bobs = try live.server.eventStore(for: "bob").createCalendar(.init(title: "Bob's")).id
        let other = await almanacError { _ = try await live.client.calendar(id: bobs) }
        #expect(other?.problem?.type == .notFound)

        // A conflict carries what it collides with.
        _ = try await live.client.createEvent(
            EventDraft(calendarID: calendar, title: "Spin", start: "2026-12-01T17:00:00Z", duration: .hours(1)))
        let clash = await almanacError {
            _ = try await live.client.createEvent(
                EventDraft(calendarID: calendar, title: "Yoga", start: "2026-12-01T17:30:00Z", duration: .hours(1)),
                rejectConflicts: true)
        }
        #expect(clash?.problem?.type == .conflict && clash?.problem?.conflicts?.first?.with.title == "Spin")
        #expect(clash?.problem?.conflicts?.first?.reason == "overlap")

        // Wrong credentials: 401, typed.
        let stranger = AlmanacClient(baseURL: live.client.baseURL, credentials: .basic(user: "anna", password: "wrong"))
        let refused = await almanacError { _ = try await stranger.calendar(id: calendar) }
        #expect(refused?.problem?.type == .unauthorized && refused?.status == 401)
        let basic = AlmanacClient(
            baseURL: live.client.baseURL,
            credentials: .basic(user: "anna", password: live.server.password(for: "anna")))
        #expect(try await basic.calendar(id: calendar).title == "Trainings")
        // An unknown token is a 401 too, not a request left waiting.
        let unknown = AlmanacClient(baseURL: live.client.baseURL, credentials: .bearer("alm_nope_nope"))
        #expect(await almanacError { _ = try await unknown.calendar(id: calendar) }?.problem?.type == .unauthorized)

        // Nothing listening: a transport error.
        let nowhere = AlmanacClient(baseURL: URL(string: "http://127.0.0.1:9")!, credentials: .bearer(live.token))
        let unreachable = await almanacError { _ = try await nowhere.calendar(id: calendar) }
        if case .transport? = unreachable?.kind {
        } else {
            Issue.record("not a transport error: \(String(describing: unreachable))")
        }
        #expect(unreachable?.status == nil)
    }

    /// Past a token's rate limit the answer is 429 with `Retry-After`; a client with a retry
    /// policy waits that long and succeeds, one without throws at once.
    @Test func aRateLimitedCallIsRetriedAfterRetryAfter() async throws {
        let live = try LiveServer(rateLimit: 60)
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        var limited: AlmanacError?
        for _ in 0..<200 where limited == nil {
            limited = await almanacError { _ = try await live.client.calendar(id: calendar) }
        }
        let refusal = try #require(limited)
        #expect(refusal.problem?.type == .tooManyRequests && refusal.status == 429)
        let wait = try #require(refusal.retryAfter)
        #expect(wait >= 1 && wait <= 2)
        var patient = live.client
        patient.retryPolicy = .retry(times: 3, maximumWait: 5)
        #expect(try await patient.calendar(id: calendar).id == calendar)
        // A wait longer than the policy allows is thrown rather than slept.
        var hasty = live.client
        hasty.retryPolicy = .retry(times: 3, maximumWait: 0.5)
        var thrown: AlmanacError?
        for _ in 0..<200 where thrown == nil {
            thrown = await almanacError { _ = try await hasty.calendar(id: calendar) }
        }
        #expect(thrown?.problem?.type == .tooManyRequests)
    }

    /// 2026-12-`day` at `hour`:00 UTC.
    static func december(_ day: Int, hour: Int) -> Date {
        // 2026-12-01T00:00:00Z is 1,796,083,200.
        Date(timeIntervalSince1970: TimeInterval(1_796_083_200 + (day - 1) * 86_400 + hour * 3_600))
    }
}
