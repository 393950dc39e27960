import AlmanacClient
import Foundation
import Testing

/// Decoding is lenient (unknown members ignored, absent ones empty), drafts send only
/// what is set, and times keep their spelling.
@Suite struct ModelTests {
    func decode<Value: Decodable>(_ type: Value.Type, _ json: String) throws -> Value {
        try JSONDecoder().decode(type, from: Data(json.utf8))
    }

    func encoded(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    @Test func unknownMembersAreIgnored() throws {
        let calendar = try decode(
            AlmanacCalendar.self,
            #"{"id": "c1", "title": "Work", "color": null, "etag": "\"1\"", "shinyNewMember": {"a": [1, 2]}}"#)
        #expect(calendar.id == "c1" && calendar.color == nil && calendar.componentTypes == [] && calendar.order == 0)
        let event = try decode(Event.self, #"{"id": "e1", "start": "2026-12-01", "allDay": true, "future": 1}"#)
        #expect(event.start?.form == .date && event.allDay && event.alarms == [] && event.availability == .busy)
        let problem = try decode(Problem.self, #"{"status": 418, "type": "urn:example:teapot", "instance": "/x"}"#)
        #expect(problem.type == ProblemType("urn:example:teapot") && problem.fields == [] && problem.detail == "")
        let status = try decode(EventStatus.self, #""postponed""#)
        #expect(status.rawValue == "postponed")
    }

    @Test func draftsSendWhatIsSetAndNullForWhatIsCleared() throws {
        #expect(try encoded(EventDraft(title: "Spin")) == #"{"title":"Spin"}"#)
        #expect(
            try encoded(EventDraft(notes: "n", clearing: [.location, .rrule])).split(separator: ",").count == 3)
        #expect(try encoded(EventDraft(clearing: [.url])) == #"{"url":null}"#)
        #expect(
            try encoded(EventDraft(alarms: [.minutesBefore(15), .trigger("END:PT0S", action: "AUDIO")]))
                == #"{"alarms":[{"minutesBefore":15},{"action":"AUDIO","trigger":"END:PT0S"}]}"#)
        #expect(try encoded(CalendarDraft(clearing: [.color])) == #"{"color":null}"#)
        #expect(
            try encoded(WebhookDraft(url: URL(string: "https://example.com/hook")!, calendars: .all))
                == #"{"calendars":null,"url":"https://example.com/hook"}"#)
        #expect(
            try encoded(WebhookChanges(calendars: .only(["c1"]), clearDescription: true, state: .paused))
                == #"{"calendars":["c1"],"description":null,"state":"paused"}"#)
    }

    @Test func timesAndDurations() {
        #expect(EventTime.utc(Date(timeIntervalSince1970: 1_796_144_400)).text == "2026-12-01T17:00:00Z")
        #expect(EventTime.utc(Date(timeIntervalSince1970: -1)).text == "1969-12-31T23:59:59Z")
        #expect(EventTime.date(year: 2026, month: 2, day: 3).text == "2026-02-03")
        #expect(EventTime.wallClock(year: 2026, month: 12, day: 1, hour: 18, minute: 5).text == "2026-12-01T18:05:00")
        #expect(EventTime("2026-12-01T11:00:00+01:00").instant == Date(timeIntervalSince1970: 1_796_119_200))
        #expect(EventTime("2026-12-01T11:00:00").form == .wallClock && EventTime("2026-12-01T11:00:00").instant == nil)
        #expect(EventTime("2026-12-01T18:05:00").components.minute == 5)
        #expect(EventDuration.minutes(90).text == "PT1H30M" && EventDuration.seconds(0).text == "PT0S")
        #expect(EventDuration.hours(26).text == "PT26H" && EventDuration.days(2).text == "P2D")
        // Leap day and the end of a century.
        #expect(EventTime("2028-02-29T12:00:00Z").instant == Date(timeIntervalSince1970: 1_835_438_400))
        #expect(EventTime("2100-02-29T12:00:00Z").instant == nil)
    }
}
