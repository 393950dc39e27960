import AlmanacClient
import AlmanacTesting
import Foundation
import Testing

/// Pagination and webhooks against the live server: these need the server's `limit`,
/// `cursor` and `next` on the listings and the webhook routes.
@Suite struct PaginationTests {
    @Test func calendarsComeInPagesFollowingNext() async throws {
        let live = try LiveServer()
        var made: [String] = []
        for index in 0..<5 {
            made.append(try await live.client.createCalendar(CalendarDraft(title: "Calendar \(index)")).id)
        }
        let pages = live.client.calendars(pageSize: 2)
        let first = try await pages.firstPage()
        #expect(first.items.count == 2 && first.next != nil)
        #expect(first.next?.hasPrefix("/api/v1/calendars?") == true && first.next?.contains("cursor=") == true)
        var seen = first.items.map(\.id)
        var page = first
        var count = 1
        while let next = try await pages.page(after: page) {
            seen += next.items.map(\.id)
            page = next
            count += 1
            #expect(count < 10)
        }
        #expect(page.next == nil && count == 3)
        #expect(Set(seen).isSuperset(of: made) && Set(seen).count == seen.count)
        // As an AsyncSequence: every calendar once, pages fetched as they are read.
        var streamed: [String] = []
        for try await calendar in pages { streamed.append(calendar.id) }
        #expect(streamed == seen)
        // Stopping early fetches no further page.
        var firstTwo: [String] = []
        for try await calendar in pages {
            firstTwo.append(calendar.id)
            if firstTwo.count == 2 { break }
        }
        #expect(firstTwo == Array(seen.prefix(2)))
    }

    @Test func aCalendarsEventsComeInPages() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        var made: Set<String> = []
        for day in 1...7 {
            made.insert(
                try await live.client.createEvent(
                    EventDraft(
                        calendarID: calendar, title: "Run \(day)", start: .date(year: 2026, month: 12, day: day),
                        allDay: true)
                ).id)
        }
        var listed: [Event] = []
        for try await event in live.client.events(inCalendar: calendar, pageSize: 3) { listed.append(event) }
        #expect(Set(listed.map(\.id)) == made && listed.count == 7)
        #expect(listed.allSatisfy { $0.calendarID == calendar && $0.etag != nil && $0.allDay })
        #expect(try await live.client.events(inCalendar: calendar, pageSize: 3).firstPage().items.count == 3)
    }

    @Test func aBadPageSizeIsAProblem() async throws {
        let live = try LiveServer()
        let refused = await almanacError { _ = try await live.client.calendars(pageSize: 0).firstPage() }
        #expect(refused?.status == 400 && refused?.problem?.fields.contains("limit") == true)
    }
}

@Suite struct WebhookTests {
    @Test func createListReadChangeAndDelete() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        let created = try await live.client.createWebhook(
            WebhookDraft(
                url: URL(string: "http://127.0.0.1:9/hooks/almanac")!, events: [.eventCreated, .eventDeleted],
                calendars: .only([calendar]), description: "backend"))
        #expect(created.secret.hasPrefix("whsec_") && created.webhook.id.hasPrefix("wh_"))
        let hook = created.webhook
        #expect(
            hook.url.absoluteString == "http://127.0.0.1:9/hooks/almanac"
                && hook.events == [.eventCreated, .eventDeleted])
        #expect(hook.calendars == [calendar] && hook.description == "backend" && hook.state == .active)
        #expect(hook.failures == 0 && hook.stateReason == nil)

        let everything = try await live.client.createWebhook(
            WebhookDraft(url: URL(string: "http://127.0.0.1:9/all")!))
        #expect(everything.webhook.calendars == nil && Set(everything.webhook.events) == Set(WebhookEventType.all))
        #expect(everything.secret != created.secret)

        var listed: [Webhook] = []
        for try await webhook in live.client.webhooks(pageSize: 1) { listed.append(webhook) }
        #expect(Set(listed.map(\.id)) == [hook.id, everything.webhook.id])

        let read = try await live.client.webhook(id: hook.id)
        #expect(read.id == hook.id && read.recentAttempts != nil)

        let paused = try await live.client.updateWebhook(
            id: hook.id, WebhookChanges(calendars: .all, clearDescription: true, state: .paused))
        #expect(paused.state == .paused && paused.calendars == nil && paused.description == nil)
        let resumed = try await live.client.updateWebhook(id: hook.id, WebhookChanges(state: .active))
        #expect(resumed.state == .active)

        var deliveries: [WebhookDelivery] = []
        for try await delivery in live.client.deliveries(ofWebhook: hook.id) { deliveries.append(delivery) }
        #expect(deliveries.allSatisfy { $0.id.hasPrefix("dl_") })

        // Nothing listens on port 9: the test delivery reports the failure.
        let test = try await live.client.testWebhook(id: hook.id)
        #expect(test.status == nil && test.error != nil && test.durationMs >= 0)
        #expect(try await live.client.replayWebhook(id: hook.id, from: Date(timeIntervalSinceNow: -3_600)) >= 0)

        try await live.client.deleteWebhook(id: hook.id)
        let gone = await almanacError { _ = try await live.client.webhook(id: hook.id) }
        #expect(gone?.problem?.type == .notFound)
        let invalid = await almanacError {
            _ = try await live.client.createWebhook(
                WebhookDraft(url: URL(string: "http://127.0.0.1:9/x")!, events: [WebhookEventType(rawValue: "nope")]))
        }
        #expect(invalid?.status == 400)
    }

    /// A change to an event queues a delivery for a webhook covering its calendar.
    @Test func aChangeQueuesADelivery() async throws {
        let live = try LiveServer()
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        let hook = try await live.client.createWebhook(
            WebhookDraft(url: URL(string: "http://127.0.0.1:9/hook")!, calendars: .only([calendar]))
        ).webhook
        _ = try await live.client.updateWebhook(id: hook.id, WebhookChanges(state: .paused))
        let event = try await live.client.createEvent(
            EventDraft(calendarID: calendar, title: "Spin", start: "2026-12-01T17:00:00Z"))
        var deliveries: [WebhookDelivery] = []
        for try await delivery in live.client.deliveries(ofWebhook: hook.id) { deliveries.append(delivery) }
        let created = try #require(deliveries.first { $0.type == .eventCreated })
        #expect(created.eventID == event.id && created.calendarID == calendar && created.state == .pending)
        #expect(try await live.client.webhook(id: hook.id).pending >= 1)
    }
}

/// A Swift backend receiving real deliveries: each verifies with the client's own
/// SHA-256 and HMAC, and decodes into the change it describes.
@Suite struct DeliveryVerificationTests {
    @Test func realDeliveriesVerifyAndDecode() async throws {
        let live = try LiveServer(deliversWebhooks: true)
        let receiver = try WebhookReceiver()
        let created = try await live.client.createWebhook(WebhookDraft(url: URL(string: receiver.url)!))
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        let event = try await live.client.createEvent(
            EventDraft(calendarID: calendar, title: "Spin", start: "2026-12-01T18:00:00Z", duration: "PT45M"))
        #expect(receiver.wait { $0.count >= 2 })
        let events = try receiver.received.map { delivery in
            try WebhookSignature.verify(
                body: Data(delivery.body), signatureHeader: delivery.headers["Almanac-Signature"] ?? "",
                secret: created.secret)
        }
        #expect(events.map(\.type) == [.calendarCreated, .eventCreated])
        #expect(events[1].eventID == event.id && events[1].calendarID == calendar)
        #expect(events[1].etag == event.etag)
        // The wrong secret, or a changed body, fails.
        let first = try #require(receiver.received.first)
        #expect(throws: WebhookSignatureError.self) {
            try WebhookSignature.verify(
                body: Data(first.body), signatureHeader: first.headers["Almanac-Signature"] ?? "", secret: "whsec_other"
            )
        }
        #expect(throws: WebhookSignatureError.self) {
            try WebhookSignature.verify(
                body: Data(first.body + [0x20]), signatureHeader: first.headers["Almanac-Signature"] ?? "",
                secret: created.secret)
        }
    }

    /// The story-2 helper's "alarm N minutes before", delivered: the server fires the alarm
    /// at its time and the app's backend gets a signed `alarm.due` it decodes with the
    /// client library, naming the event, the occurrence and the alarm's UID.
    @Test func anAlarmComesDueAsASignedWebhook() async throws {
        let live = try LiveServer(deliversWebhooks: true, firesAlarms: true)
        let receiver = try WebhookReceiver()
        let created = try await live.client.createWebhook(
            WebhookDraft(url: URL(string: receiver.url)!, events: [.alarmDue]))
        let calendar = try await live.client.findOrCreateCalendar(titled: "Trainings").id
        // Starts in ten minutes; its alarm is due two seconds from now (whole seconds).
        let now = Int(Date().timeIntervalSince1970) + 2
        func date(_ seconds: Int) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
        let event = try await live.client.createEvent(
            EventDraft(
                calendarID: calendar, title: "Spin", start: .utc(date(now + 600)), duration: "PT45M",
                alarms: [.trigger(ISO8601DateFormatter().string(from: date(now)))]))
        #expect(receiver.wait(seconds: 60) { $0.contains { $0.type == "alarm.due" } })
        let delivery = try #require(receiver.received.first { $0.type == "alarm.due" })
        let due = try WebhookSignature.verify(
            body: Data(delivery.body), signatureHeader: delivery.headers["Almanac-Signature"] ?? "",
            secret: created.secret)
        #expect(due.type == .alarmDue && due.eventID == event.id && due.calendarID == calendar)
        let alarm = try #require(due.alarm)
        #expect(alarm.trigger == date(now) && alarm.occurrenceStart == date(now + 600))
        #expect(alarm.action == "DISPLAY" && alarm.summary == "Spin" && alarm.repetition == 0 && !alarm.late)
        // The UID is the one the server gave the alarm when it stored the event.
        let stored = try live.server.backend.eventStore(for: "anna").event(withIdentifier: event.id)
        #expect(stored.alarms.map(\.uid) == [alarm.uid])
    }
}
