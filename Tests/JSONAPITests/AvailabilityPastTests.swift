import AlmanacTesting
import HTTPTypes
import ICalendar
import Testing

/// Free slots over ranges in the past: never offered unless includePast=true, and the
/// answer says which part of the range was left out. The clock is 2026-12-01T00:00Z.
extension APITests {
    static let mornings = "duration=60&workingHours=Mon-Fri%2009:00-10:00"

    @Test func availabilitySaysWhichPartOfTheRangeIsPast() throws {
        // 2 to 6 November 2026 are Monday to Friday, all before now.
        let past = try call("GET", "/api/v1/availability?from=2026-11-02&to=2026-11-07&\(Self.mornings)")
        #expect(past.status == 200, "\(past.text)")
        #expect(past["slots"] == .array([]))
        #expect(
            past["pastExcluded"] == .object(["until": .string("2026-11-07T00:00:00Z"), "wholeRange": .bool(true)]))

        let included = try call(
            "GET", "/api/v1/availability?from=2026-11-02&to=2026-11-07&\(Self.mornings)&includePast=true")
        #expect(included.status == 200, "\(included.text)")
        #expect(
            included["slots"]
                == .array(
                    (2...6).map { day in
                        .object([
                            "start": .string("2026-11-0\(day)T09:00:00Z"),
                            "end": .string("2026-11-0\(day)T10:00:00Z"),
                        ])
                    }))
        #expect(included["pastExcluded"] == nil)

        // Monday 30 November is past, Tuesday 1 December is not.
        let straddling = try call("GET", "/api/v1/availability?from=2026-11-30&to=2026-12-02&\(Self.mornings)")
        #expect(
            straddling["slots"]
                == .array([
                    .object(["start": .string("2026-12-01T09:00:00Z"), "end": .string("2026-12-01T10:00:00Z")])
                ]))
        #expect(
            straddling["pastExcluded"]
                == .object(["until": .string("2026-12-01T00:00:00Z"), "wholeRange": .bool(false)]))

        // A range from now on has nothing excluded.
        let future = try call(
            "GET", "/api/v1/availability?from=2026-12-01&to=2026-12-02&\(Self.mornings)&includePast=false")
        #expect(future.status == 200 && future["pastExcluded"] == nil, "\(future.text)")

        let bad = try call("GET", "/api/v1/availability?from=2026-11-02&to=2026-11-07&\(Self.mornings)&includePast=yes")
        #expect(bad.status == 400 && bad["fields"] == .array([.string("includePast")]), "\(bad.text)")
    }

    @Test func theOpenAPIDocumentDescribesIncludePastAndPastExcluded() throws {
        let response = try server.send("GET", "/api/v1/openapi.json")
        let document = try JSON(parsing: response.body)
        let operation = try #require(document["paths"]?["/api/v1/availability"]?["get"])
        let names = try #require(operation["parameters"]?.arrayValue).compactMap { $0["name"]?.stringValue }
        #expect(names.contains("includePast"))
        let answer = operation["responses"]?["200"]?["content"]?["application/json"]?["schema"]?["properties"]
        #expect(answer?["pastExcluded"]?["properties"]?["until"] != nil)
        #expect(answer?["pastExcluded"]?["properties"]?["wholeRange"] != nil)
    }
}
