import AlmanacServer
import AlmanacTestSupport
import AlmanacTesting
import CalendarStore
import Foundation
import HTTPTypes
import Synchronization
import Testing

/// Group booking types: collective (everyone free), round-robin (any one, assigned to
/// the least booked) and n-of-group (at least k), over three hosts with their own hours
/// in two zones and their own busy time, one host's calendar shared by another user.
/// The slots are checked against an oracle that steps each host's hours with
/// Foundation's time zones and marks their busy minutes.
@Suite struct BookingGroupTests {
    /// 2026-11-18T11:06:40Z.
    static let now = 1_795_000_000
    let server: TestServer
    let api: APIClient
    /// Host name → calendar id.
    var calendars: [String: String] = [:]
    /// Host name → (zone, weekday hours start and end in minutes).
    static let hours: [(name: String, zone: String, from: Int, to: Int)] = [
        ("Ben", "Europe/Berlin", 9 * 60, 13 * 60), ("Cleo", "Europe/Berlin", 11 * 60, 17 * 60),
        ("Dan", "America/New_York", 6 * 60, 10 * 60),
    ]
    /// Busy blocks per host (UTC seconds).
    var busy: [String: [(Int, Int)]] = [:]

    init(_ setup: ServerSetup = .inProcess, seed: UInt64 = 1) throws {
        server = try TestServer(setup, users: ["anna", "dan"], now: { Self.now })
        api = server.api("anna")
        var random = SplitMix64(seed: seed)
        for host in Self.hours {
            let id: String
            if host.name == "Dan" {
                // Dan's calendar is his own, shared with Anna read-write.
                let store = try server.eventStore(for: "dan")
                id = try store.createCalendar(EventCalendar(title: "Dan")).id
                try store.share(calendar: id, with: "anna", access: .readWrite)
            } else {
                id = try #require(
                    try api.call("POST", "/api/v1/calendars", #"{"title": "\#(host.name)"}"#)["id"]?.stringValue)
            }
            calendars[host.name] = id
            let schedule = try api.call(
                "POST", "/api/v1/availability-schedules",
                #"{"title": "\#(host.name)", "timeZone": "\#(host.zone)", "hours": "Mon-Fri \#(Self.clock(host.from))-\#(Self.clock(host.to))"}"#
            )
            try #require(schedule.status == 201, "\(schedule.text)")
            // A few busy hours in the first week, on the half hour.
            var blocks: [(Int, Int)] = []
            for _ in 0..<6 {
                let start = 1_795_305_600 + Int.random(in: 0..<(7 * 48), using: &random) * 1_800  // from 2026-11-22
                let end = start + Int.random(in: 1...4, using: &random) * 1_800
                blocks.append((start, end))
                let event = try api.call(
                    "POST", "/api/v1/events",
                    #"{"calendarId": "\#(id)", "title": "Busy", "start": "\#(Self.utc(start))", "end": "\#(Self.utc(end))"}"#
                )
                try #require(event.status == 201, "\(event.text)")
            }
            busy[host.name] = blocks
        }
    }

    static func clock(_ minutes: Int) -> String { String(format: "%02d:%02d", minutes / 60, minutes % 60) }

    static func utc(_ seconds: Int) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    func schedules() throws -> [String: String] {
        let listed = try api.get("/api/v1/availability-schedules")["schedules"]?.arrayValue ?? []
        var result: [String: String] = [:]
        for item in listed { result[item["title"]?.stringValue ?? ""] = item["id"]?.stringValue }
        return result
    }

    func groupType(_ mode: String, minimum: Int? = nil) throws -> String {
        let ids = try schedules()
        let hosts = Self.hours.map { host in
            #"{"name": "\#(host.name)", "calendar": "\#(calendars[host.name]!)", "schedule": "\#(ids[host.name]!)"}"#
        }.joined(separator: ", ")
        let made = try api.call(
            "POST", "/api/v1/booking-types",
            #"{"title": "Assessment (\#(mode))", "durations": [30], "calendar": "\#(calendars["Ben"]!)", "groupMode": "\#(mode)", "hosts": [\#(hosts)]\#(minimum.map { #", "groupMinimum": \#($0)"# } ?? "")}"#
        )
        try #require(made.status == 201, "\(made.text)")
        return try #require(made["id"]?.stringValue)
    }

    /// Each host's free half-hour starts in the first week (2026-11-23 to 2026-11-28, Berlin days).
    func oracleFree() -> [String: Set<Int>] {
        var result: [String: Set<Int>] = [:]
        for host in Self.hours {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: host.zone)!
            var free = Set<Int>()
            for day in 22...29 {
                let noon = calendar.date(from: DateComponents(year: 2026, month: 11, day: day, hour: 12))!
                guard (2...6).contains(calendar.component(.weekday, from: noon)) else { continue }
                var start = Int(
                    calendar.date(
                        from: DateComponents(
                            year: 2026, month: 11, day: day, hour: host.from / 60, minute: host.from % 60))!
                        .timeIntervalSince1970)
                let end = start + (host.to - host.from) * 60
                while start + 1_800 <= end {
                    let clear = (busy[host.name] ?? []).allSatisfy { $0.1 <= start || $0.0 >= start + 1_800 }
                    if clear { free.insert(start) }
                    start += 1_800
                }
            }
            result[host.name] = free
        }
        return result
    }

    /// From 2026-11-23 to 2026-11-28 in Berlin: Monday to Friday, the busy week.
    func offered(_ type: String) throws -> [(start: String, hosts: [String], free: [String])] {
        let answer = try api.get("/api/v1/booking-types/\(type)/slots?from=2026-11-23&to=2026-11-28&tz=Europe/Berlin")
        #expect(answer.status == 200, "\(answer.text)")
        return (answer["slots"]?.arrayValue ?? []).map { slot in
            (
                slot["start"]?.stringValue ?? "", slot["hosts"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                slot["freeHosts"]?.arrayValue?.compactMap(\.stringValue) ?? []
            )
        }
    }

    @Test(arguments: [1, 2, 3] as [UInt64]) func slotsOfEachModeMatchTheOracle(_ seed: UInt64) throws {
        let test = try BookingGroupTests(seed: seed)
        let free = test.oracleFree()
        let window = (1_795_388_400..<1_795_820_400)  // 2026-11-23T00:00 to 2026-11-28T00:00 Berlin
        let names = Self.hours.map(\.name)
        let starts = Set(free.values.flatMap { $0 }).filter { window.contains($0) }.sorted()
        func expected(_ needed: Int) -> [String] {
            starts.filter { start in names.filter { free[$0]!.contains(start) }.count >= needed }.map(Self.utc)
        }
        for (mode, minimum, needed) in [("collective", nil, 3), ("round-robin", nil, 1), ("n-of-group", 2, 2)] {
            let type = try test.groupType(mode, minimum: minimum)
            let slots = try test.offered(type)
            #expect(slots.map(\.start) == expected(needed), "seed \(seed) \(mode)")
            for slot in slots {
                let start = Int(ISO8601DateFormatter().date(from: slot.start)!.timeIntervalSince1970)
                #expect(slot.free == names.filter { free[$0]!.contains(start) }, "\(mode) \(slot.start) free hosts")
                #expect(slot.hosts.count == needed, "\(mode) \(slot.start) takes \(needed)")
            }
        }
        #expect(!expected(3).isEmpty && expected(1).count > expected(2).count, "a case that tests something")
    }

    @Test func roundRobinGoesToTheLeastBookedAndCollectiveToEveryone() throws {
        let test = try BookingGroupTests(seed: 4)
        let names = Self.hours.map(\.name)
        let type = try test.groupType("round-robin")
        // Book, six times, the first slot where all three are free: each goes to the least
        // booked host, ties to the first listed.
        var load: [String: Int] = [:]
        func order(_ name: String) -> (Int, Int) { (load[name] ?? 0, names.firstIndex(of: name) ?? 0) }
        var booked = 0
        for index in 0..<6 {
            let slot = try #require(try test.offered(type).first { $0.free.count == 3 })
            let expected = try #require(names.min { order($0) < order($1) })
            let made = try test.api.call(
                "POST", "/api/v1/bookings",
                #"{"bookingType": "\#(type)", "start": "\#(slot.start)", "name": "Client \#(index)", "email": "c\#(index)@example.com"}"#
            )
            #expect(made.status == 201, "\(made.text)")
            #expect(
                made["booking"]?["hosts"]?.arrayValue?.compactMap(\.stringValue) == [expected],
                "booking \(index) at \(slot.start)")
            load[expected, default: 0] += 1
            booked += 1
        }
        #expect(booked == 6)
        #expect(names.allSatisfy { load[$0] == 2 }, "six bookings, two each: \(load)")
        // Each booking is in its host's calendar: Dan's own, shared with Anna, too.
        let dans = try test.server.eventStore(for: "dan").events(
            in: TimeRange(start: 1_795_305_600, end: 1_795_910_400), calendars: [test.calendars["Dan"]!])
        #expect(dans.filter { $0.title?.hasPrefix("Assessment") == true }.count == 2)
        // A collective booking takes all three; cancelling cancels all three.
        let collective = try test.groupType("collective")
        let everyone = try #require(try test.offered(collective).first)
        let made = try test.api.call(
            "POST", "/api/v1/bookings",
            #"{"bookingType": "\#(collective)", "start": "\#(everyone.start)", "name": "Panel", "email": "panel@example.com"}"#
        )
        #expect(made["booking"]?["hosts"]?.arrayValue?.compactMap(\.stringValue) == names, "\(made.text)")
        let id = try #require(made["booking"]?["id"]?.stringValue)
        #expect(try test.offered(type).first { $0.start == everyone.start } == nil, "nobody is free then any more")
        #expect(try test.api.call("POST", "/api/v1/bookings/\(id)/cancel", "{}").status == 200)
        #expect(try test.offered(collective).first?.start == everyone.start, "free again for everyone")
    }

    @Test(arguments: ServerSetup.everyStore) func racingBookersOfARoundRobinSlotGetOneHostEach(_ setup: ServerSetup)
        throws
    {
        let test = try BookingGroupTests(setup, seed: 5)
        let type = try test.groupType("round-robin")
        let slot = try #require(try test.offered(type).first { $0.free.count == 3 })
        let statuses = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let status =
                (try? test.api.call(
                    "POST", "/api/v1/bookings",
                    #"{"bookingType": "\#(type)", "start": "\#(slot.start)", "name": "R\#(index)", "email": "r\#(index)@example.com"}"#
                ).status) ?? -1
            statuses.withLock { $0.append(status) }
        }
        #expect(statuses.withLock { $0 }.sorted() == [201, 201, 201, 409, 409, 409])
        let hosts = try test.api.get("/api/v1/bookings?bookingType=\(type)")["bookings"]?.arrayValue?.flatMap {
            $0["hosts"]?.arrayValue?.compactMap(\.stringValue) ?? []
        }
        #expect(hosts?.sorted() == ["Ben", "Cleo", "Dan"])
    }
}
