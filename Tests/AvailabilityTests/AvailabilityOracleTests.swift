import AlmanacTestSupport
import Availability
import CivilTime
import Testing

/// Free slots against a brute-force oracle: a minute-by-minute map of busy time, on
/// randomized calendars and rules, in zones with and without daylight saving.
@Suite struct AvailabilityOracleTests {
    static let zones = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"]

    /// The oracle: slot starts are the working spans' starts stepped by the slot step (the
    /// definition of a slot); everything else is checked minute by minute.
    static func oracle(busy: [BusyBlock], rules: AvailabilityRules, from: Int, to: Int, now: Int) -> [FreeSlot] {
        let counted = busy.filter { (rules.tentativeIsBusy || !$0.isTentative) && (rules.allDayIsBusy || !$0.isAllDay) }
        // Busy minutes: each block widened by both buffers on both sides (they stack).
        var busyMinutes = Set<Int>()
        let pad = rules.bufferBefore + rules.bufferAfter
        for block in counted {
            var minute = (block.start - pad) / 60
            while minute * 60 < max(block.end, block.start) + pad {
                busyMinutes.insert(minute)
                minute += 1
            }
        }
        func localDate(_ instant: Int) -> CivilDate { rules.zone.localTime(at: instant).date }
        func weekKey(_ date: CivilDate) -> Int {
            // Days since a fixed day of the first weekday, divided by seven.
            var day = date
            while day.weekday != rules.firstWeekday { day = day.adding(days: -1) }
            return day.daysSinceEpoch
        }
        var earliest = now
        switch rules.minimumNotice {
        case .none: break
        case .seconds(let seconds): earliest = now + seconds
        case .notSameDay:
            var instant = now
            while localDate(instant) == localDate(now) { instant += 60 }
            earliest = instant
        }
        var slots: [FreeSlot] = []
        var date = localDate(from).adding(days: -1)
        while date <= localDate(to) {
            defer { date = date.adding(days: 1) }
            let dayCount = counted.filter { localDate($0.start) == date }.count
            if let limit = rules.dailyLimit, dayCount >= limit { continue }
            let weekCount = counted.filter { weekKey(localDate($0.start)) == weekKey(date) }.count
            if let limit = rules.weeklyLimit, weekCount >= limit { continue }
            for span in rules.dateOverrides[date] ?? rules.workingHours[date.weekday] ?? [] {
                let midnight = CivilDateTime(date: date, time: .midnight)
                let spanStart = rules.zone.instant(for: midnight.adding(seconds: span.start * 60))
                let spanEnd = rules.zone.instant(for: midnight.adding(seconds: span.end * 60))
                var start = spanStart
                while start + rules.slotLength <= spanEnd {
                    defer { start += rules.slotStep }
                    guard start >= from, start < to, start >= earliest else { continue }
                    if let window = rules.window, !(window.start..<window.end).contains(start) { continue }
                    let minutes = (start / 60)..<((start + rules.slotLength + 59) / 60)
                    if minutes.allSatisfy({ !busyMinutes.contains($0) }) {
                        slots.append(FreeSlot(start: start, end: start + rules.slotLength))
                    }
                }
            }
        }
        return slots.sorted { $0.start < $1.start }
    }

    @Test(arguments: 0..<40) func freeSlotsMatchTheOracle(seed: Int) throws {
        var random = SplitMix64(seed: UInt64(seed) &* 7919 &+ 1)
        let zoneName = Self.zones[seed % Self.zones.count]
        let zone = try #require(TimeZoneDatabase.zone(named: zoneName))
        // Windows around the spring and autumn changes of both hemispheres.
        let anchors = [
            utcInstant(2026, 3, 25), utcInstant(2026, 10, 20), utcInstant(2026, 3, 30), utcInstant(2026, 12, 1),
        ]
        let from =
            anchors[Int.random(in: 0..<anchors.count, using: &random)] + Int.random(in: 0..<48, using: &random) * 1800
        let to = from + Int.random(in: 1...14, using: &random) * 86_400
        var busy: [BusyBlock] = []
        for index in 0..<Int.random(in: 0...40, using: &random) {
            let start = from - 86_400 + Int.random(in: 0..<(to - from + 2 * 86_400) / 300, using: &random) * 300
            let allDay = Int.random(in: 0..<10, using: &random) == 0
            let length = allDay ? 86_400 : Int.random(in: 0...16, using: &random) * 900
            busy.append(
                BusyBlock(
                    start: start, end: start + length, source: "e\(index)",
                    isTentative: Int.random(in: 0..<5, using: &random) == 0, isAllDay: allDay))
        }
        var hours: [Weekday: [ClockRange]] = [:]
        for day in Weekday.allCases where Int.random(in: 0..<4, using: &random) > 0 {
            let first = Int.random(in: 0..<40, using: &random) * 15
            let second = first + Int.random(in: 4...40, using: &random) * 15
            hours[day] = [ClockRange(start: first, end: min(1440, second))]
            if second + 60 < 1380, Bool.random(using: &random) {
                hours[day]!.append(ClockRange(start: second + 60, end: 1440))
            }
        }
        var overrides: [CivilDate: [ClockRange]] = [:]
        let firstDate = zone.localTime(at: from).date
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            let date = firstDate.adding(days: Int.random(in: 0..<14, using: &random))
            overrides[date] = Bool.random(using: &random) ? [] : [ClockRange(start: 120, end: 300)]
        }
        let notices: [MinimumNotice] = [.none, .seconds(Int.random(in: 1...48, using: &random) * 3600), .notSameDay]
        let now = from + Int.random(in: -86_400...86_400, using: &random)
        let length = [15, 30, 45, 60, 90][Int.random(in: 0..<5, using: &random)] * 60
        let rules = AvailabilityRules(
            zone: zone, workingHours: hours, slotLength: length,
            slotStep: [15, 30, 60][Int.random(in: 0..<3, using: &random)] * 60,
            dateOverrides: overrides, bufferBefore: Int.random(in: 0...3, using: &random) * 300,
            bufferAfter: Int.random(in: 0...3, using: &random) * 300,
            minimumNotice: notices[Int.random(in: 0..<3, using: &random)],
            window: Bool.random(using: &random) ? (from + 86_400, to - 3600) : nil,
            dailyLimit: Bool.random(using: &random) ? Int.random(in: 1...4, using: &random) : nil,
            weeklyLimit: Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 3...15, using: &random) : nil,
            firstWeekday: Bool.random(using: &random) ? .monday : .sunday, tentativeIsBusy: Bool.random(using: &random),
            allDayIsBusy: Bool.random(using: &random))
        let found = AvailabilitySearch.freeSlots(busy: busy, rules: rules, from: from, to: to, now: now)
        let expected = Self.oracle(busy: busy, rules: rules, from: from, to: to, now: now)
        #expect(found == expected, "seed \(seed) in \(zoneName): \(found.count) slots, oracle \(expected.count)")
    }

    @Test func workingHoursRead() throws {
        let hours = try #require(AvailabilityRules.workingHours("Mon-Fri 09:00-12:00 13:00-17:00, Sat 10:00-14:00"))
        #expect(hours[.monday] == [ClockRange(start: 540, end: 720), ClockRange(start: 780, end: 1020)])
        #expect(hours[.friday] == hours[.monday])
        #expect(hours[.saturday] == [ClockRange(start: 600, end: 840)])
        #expect(hours[.sunday] == nil)
        #expect(AvailabilityRules.workingHours("Fri-Mon 08:00-09:00")?.keys.count == 4)
        for bad in ["Mon", "Xyz 09:00-10:00", "Mon 10:00-09:00", "Mon 9-17", "Mon 25:00-26:00"] {
            #expect(AvailabilityRules.workingHours(bad) == nil, "\(bad)")
        }
    }

    /// Conflicts name the busy block and whether the times overlap or only the buffers do.
    @Test func conflictsSayWhy() throws {
        let zone = try #require(TimeZoneDatabase.zone(named: "Europe/Berlin"))
        let meeting = BusyBlock(start: utcInstant(2026, 12, 1, 10), end: utcInstant(2026, 12, 1, 11), source: "meeting")
        let rules = AvailabilityRules(
            zone: zone, workingHours: [:], slotLength: 3600, bufferBefore: 600, bufferAfter: 600)
        let overlapping = AvailabilitySearch.conflicts(
            proposed: [(utcInstant(2026, 12, 1, 10, 30), utcInstant(2026, 12, 1, 11, 30))], busy: [meeting],
            rules: rules)
        #expect(overlapping.map(\.reason) == [.overlap])
        #expect(overlapping.first?.with.source == "meeting")
        // Ten minutes after the meeting: its buffer after and ours before need twenty.
        let close = AvailabilitySearch.conflicts(
            proposed: [(utcInstant(2026, 12, 1, 11, 10), utcInstant(2026, 12, 1, 12))], busy: [meeting], rules: rules)
        #expect(close.map(\.reason) == [.buffer])
        let clear = AvailabilitySearch.conflicts(
            proposed: [(utcInstant(2026, 12, 1, 11, 20), utcInstant(2026, 12, 1, 12))], busy: [meeting], rules: rules)
        #expect(clear.isEmpty)
    }
}

/// Unix seconds of a UTC wall clock.
func utcInstant(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0) -> Int {
    CivilDateTime(year: year, month: month, day: day, hour: hour, minute: minute)!.secondsSinceEpoch
}

/// Bounds that keep one search from answering millions of slots.
@Suite struct AvailabilityBoundTests {
    static let from = CivilDateTime(year: 2099, month: 3, day: 2)!.secondsSinceEpoch  // 2099-03-02T00:00:00Z, a Monday
    static let to = CivilDateTime(year: 2099, month: 3, day: 3)!.secondsSinceEpoch  // 2099-03-03T00:00:00Z

    @Test func aSpanGivenManyTimesYieldsItsSlotsOnce() throws {
        let text = "Mon " + Array(repeating: "09:00-12:00", count: 2_600).joined(separator: " ") + " 11:00-13:00"
        let hours = try #require(AvailabilityRules.workingHours(text))
        let rules = AvailabilityRules(zone: .utc, workingHours: hours, slotLength: 3600)
        let slots = AvailabilitySearch.freeSlots(busy: [], rules: rules, from: Self.from, to: Self.to, now: 0)
        // 09:00-13:00 as one span: four hour-long slots, each once.
        #expect(slots.map { ($0.start - Self.from) / 3600 } == [9, 10, 11, 12])
    }

    @Test func theLimitStopsTheSearchInsideADay() {
        let rules = AvailabilityRules.allDay(zone: .utc, slotLength: 60)
        let slots = AvailabilitySearch.freeSlots(
            busy: [], rules: rules, from: Self.from, to: Self.to, now: 0, limit: 101)
        #expect(slots.count == 101 && slots.last?.start == Self.from + 100 * 60)
    }
}
