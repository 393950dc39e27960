import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence

extension DAVContext {
    /// REPORT: calendar-multiget and calendar-query (RFC 4791 §7.8, §7.9) and
    /// sync-collection (RFC 6578) on a calendar collection.
    func report() -> HTTPResponse {
        let body: XMLElement
        switch self.body() {
        case .success(let element): body = element
        case .failure(let failure): return failure.response
        }
        switch (body.namespace, body.name) {
        case (DAVNamespace.dav, "principal-property-search"): return principalSearch(body)
        case (DAVNamespace.dav, "principal-search-property-set"): return principalSearchPropertySet()
        default: break
        }
        guard case .calendar(_, let calendarName) = path else {
            return DAVError(403, "this REPORT is answered on a calendar collection", dav: "supported-report").response
        }
        do throws(StoreError) {
            let calendar = try self.calendar(named: calendarName)
            let request: ReportRequest
            do throws(DAVError) {
                request = try ReportRequest(body)
            } catch {
                return error.response
            }
            switch (body.namespace, body.name) {
            case (DAVNamespace.caldav, "calendar-multiget"):
                return try multiget(body, calendar: calendar, request: request)
            case (DAVNamespace.caldav, "calendar-query"):
                return try query(body, calendar: calendar, request: request)
            case (DAVNamespace.dav, "sync-collection"):
                return try syncCollection(body, calendar: calendar, request: request)
            case (DAVNamespace.caldav, "free-busy-query"):
                return try freeBusy(body, calendar: calendar)
            default:
                return DAVError(403, "unsupported REPORT \(body.name)", dav: "supported-report").response
            }
        } catch {
            return DAVError(error).response
        }
    }

    /// What a report asks for: property names, and how calendar-data is wanted.
    struct ReportRequest {
        var properties: [PropertyName] = []
        var wantsCalendarData = false
        /// `<C:expand start end>`: instances instead of the series.
        var expand: TimeRange?
        /// `<C:limit-recurrence-set start end>`: the master and only the overrides that impact the range.
        var limitRecurrenceSet: TimeRange?

        init(_ body: XMLElement) throws(DAVError) {
            guard let prop = body.child(DAVNamespace.dav, "prop") else {
                properties = [.getETag]
                return
            }
            for element in prop.children {
                if element.namespace == DAVNamespace.caldav && element.name == "calendar-data" {
                    // iCalendar 2.0 is the one calendar data there is (RFC 4791 §7.8, §7.9 precondition).
                    let type = element.attributes["content-type"].map(QueryFilter.asciiLowercased) ?? "text/calendar"
                    guard type == "text/calendar", (element.attributes["version"] ?? "2.0") == "2.0" else {
                        throw DAVError(
                            403, "calendar data is text/calendar version 2.0 only", caldav: "supported-calendar-data")
                    }
                    wantsCalendarData = true
                    if let expand = element.child(DAVNamespace.caldav, "expand") {
                        self.expand = try DAVTime.range(expand, bothBounds: true)
                    }
                    if let limit = element.child(DAVNamespace.caldav, "limit-recurrence-set") {
                        limitRecurrenceSet = try DAVTime.range(limit, bothBounds: true)
                    }
                } else {
                    properties.append(PropertyName(element))
                }
            }
        }
    }

    /// One object's response: the asked properties, and calendar-data (limited if
    /// asked) when `data` is given. Expanded data goes through `respond(_:calendar:…)`.
    func respond(
        _ info: ResourceInfo, data: [UInt8]?, calendar: EventCalendar, request: ReportRequest,
        into multistatus: inout Multistatus
    )
        throws(StoreError)
    {
        let (found, missing) = objectProperties(request.properties, info)
        var calendarData: [UInt8]?
        if request.wantsCalendarData, let data {
            if let range = request.limitRecurrenceSet {
                calendarData = try limited(data, to: range, calendar: calendar)
            } else {
                calendarData = data
            }
        }
        multistatus.add(
            href: DAVPath.object(user: user, calendar: calendar.name, name: info.name).href,
            found: found, calendarData: calendarData, missing: missing)
    }

    /// Answers for `resources`, reading their bytes in one go when calendar-data is asked.
    /// Expanded data comes from the store's own expansion of the range (series are read
    /// once and cached there), each object's instances written on every core.
    func respond(
        _ resources: [ResourceInfo], calendar: EventCalendar, request: ReportRequest,
        into multistatus: inout Multistatus
    )
        throws(StoreError)
    {
        guard request.wantsCalendarData else {
            for info in resources {
                try respond(info, data: nil, calendar: calendar, request: request, into: &multistatus)
            }
            return
        }
        guard let range = request.expand else {
            for resource in try store.resources(named: resources.map(\.name), calendar: calendar.id) {
                try respond(
                    resource.info, data: resource.data, calendar: calendar, request: request, into: &multistatus)
            }
            return
        }
        let zone = calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let found = try store.occurrences(
            in: range, calendars: [calendar.id], matching: EventFilter(componentTypes: Set(ComponentType.allCases)),
            timeZone: nil, limit: .max)
        // One answer expands at most maxExpandedInstances instances, the earliest; past that,
        // or when a bound of expansion cut one of the asked series, the collection's 507 says
        // the answer is incomplete (as for sync-collection). The instances written are then
        // the earliest ones: none after the point where a cut series stopped.
        let wanted = Set(resources.map(\.localIdentifier))
        var occurrences = found.occurrences
        occurrences.removeAll { !wanted.contains($0.eventIdentifier) }
        let cuts = found.truncatedSeries.filter { wanted.contains($0.eventIdentifier) }
        if let stop = cuts.map({ $0.lastListedStart ?? range.start }).min() {
            occurrences.removeAll { $0.startInstant > stop }
        }
        var truncated = !cuts.isEmpty
        if occurrences.count > Self.maxExpandedInstances {
            truncated = true
            occurrences.sort { $0.startInstant < $1.startInstant }
            occurrences.removeLast(occurrences.count - Self.maxExpandedInstances)
        }
        let byEvent = Dictionary(grouping: occurrences, by: \.eventIdentifier)
        let expansions = Parallel.map(resources) { info in
            Self.expanded(byEvent[info.localIdentifier] ?? [], zone: zone)
        }
        for (info, data) in zip(resources, expansions) {
            let (found, missing) = objectProperties(request.properties, info)
            multistatus.add(
                href: DAVPath.object(user: user, calendar: calendar.name, name: info.name).href, found: found,
                calendarData: data, missing: missing)
        }
        if truncated {
            multistatus.add(
                href: DAVPath.calendar(user: user, name: calendar.name).href, status: 507,
                error: PropertyName(DAVNamespace.dav, "number-of-matches-within-limits"))
        }
    }

    /// The most instances one `expand` answer writes (RFC 4791 §9.6.5).
    static let maxExpandedInstances = 10_000

    /// The most FREEBUSY periods one free-busy answer lists (RFC 4791 §7.10).
    static let maxFreeBusyPeriods = 10_000

    func multiget(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError)
        -> HTTPResponse
    {
        var multistatus = Multistatus()
        var names: [String] = []
        for href in body.children(DAVNamespace.dav, "href") {
            guard let target = DAVPath(requestPath: href.text),
                case .object(let owner, let calendarName, let name) = target, owner == user,
                calendarName == calendar.name
            else {
                multistatus.add(href: href.text, status: 404)
                continue
            }
            names.append(name)
        }
        let stored = try store.resources(named: names, calendar: calendar.id)
        if request.expand != nil {
            try respond(stored.map(\.info), calendar: calendar, request: request, into: &multistatus)
        } else {
            for resource in stored {
                try respond(
                    resource.info, data: resource.data, calendar: calendar, request: request, into: &multistatus)
            }
        }
        let found = Set(stored.map(\.name))
        for name in names where !found.contains(name) {
            multistatus.add(href: DAVPath.object(user: user, calendar: calendar.name, name: name).href, status: 404)
        }
        return multistatus.response()
    }

    /// calendar-query (RFC 4791 §7.8). The component's time range is answered by the
    /// store's interval index (recurrence-aware), a VALARM time range by the alarms
    /// that fire in it, and property, parameter and text filters on each remaining object.
    func query(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError) -> HTTPResponse {
        // <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"> [<C:time-range/>] …
        guard let outer = body.child(DAVNamespace.caldav, "filter")?.child(DAVNamespace.caldav, "comp-filter"),
            outer.attributes["name"]?.uppercased() == "VCALENDAR"
        else {
            return DAVError(400, "a calendar-query filters on one comp-filter named VCALENDAR", caldav: "valid-filter")
                .response
        }
        if let refusal = QueryFilter.unsupported(in: outer) { return refusal }
        let inner = outer.child(DAVNamespace.caldav, "comp-filter")
        var type: ComponentType?
        if let name = inner?.attributes["name"] {
            type = ComponentType(rawValue: name.uppercased())
            // Any other member (VTIMEZONE) is looked for in each object, below; one with a
            // time range (VFREEBUSY, which no stored object is made of) has nothing in it.
            if type == nil, inner?.child(DAVNamespace.caldav, "time-range") != nil { return Multistatus().response() }
        }
        let alarms = inner?.children(DAVNamespace.caldav, "comp-filter").first {
            $0.attributes["name"]?.uppercased() == "VALARM"
        }
        func range(in element: XMLElement?) throws(DAVError) -> TimeRange? {
            guard let element = element?.child(DAVNamespace.caldav, "time-range") else { return nil }
            return try DAVTime.range(element)
        }
        let componentRange: TimeRange?
        let alarmRange: TimeRange?
        let outerRange: TimeRange?
        do throws(DAVError) {
            componentRange = try range(in: inner)
            alarmRange = try range(in: alarms)
            // A time range right under VCALENDAR is not legal (RFC 4791 §9.7), but some
            // clients send it; it is answered as a range on whatever the objects hold.
            outerRange = inner == nil ? try range(in: outer) : nil
        } catch {
            return error.response
        }
        var selected: [ResourceInfo]
        // To-dos follow RFC 4791 §9.9's own table; events and journals the store's index.
        func overlapping(_ range: TimeRange, _ type: ComponentType) throws(StoreError) -> [ResourceInfo] {
            type == .todo
                ? try todos(overlapping: range, calendar: calendar)
                : try store.resources(overlapping: range, componentType: type, calendar: calendar.id)
        }
        let absent = inner?.child(DAVNamespace.caldav, "is-not-defined") != nil
        if let type, let componentRange, !absent {
            selected = try overlapping(componentRange, type)
        } else if let outerRange {
            selected = []
            for type in ComponentType.allCases { selected += try overlapping(outerRange, type) }
            selected.sort { $0.name < $1.name }
        } else {
            // `is-not-defined` on the member: the objects made of another component.
            selected = try store.resources(calendar: calendar.id).filter {
                type == nil || ($0.componentType == type) != absent
            }
        }
        if let alarmRange {
            let identifiers = try store.events(withAlarmsFiringIn: alarmRange, calendar: calendar.id)
            selected = selected.filter { identifiers.contains($0.localIdentifier) }
        }
        var multistatus = Multistatus()
        guard let inner, type == nil || Self.needsObjects(inner) else {
            try respond(selected, calendar: calendar, request: request, into: &multistatus)
            return multistatus.response()
        }
        // Property, parameter and text filters read each remaining object.
        let zone = calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let kept = try store.resources(named: selected.map(\.name), calendar: calendar.id).filter { stored in
            guard let root = try? ICalendarParser.parse(stored.data, options: .lenient).components.first else {
                return false
            }
            return QueryFilter.matches(inner, in: root, zone: zone)
        }
        try respond(kept.map(\.info), calendar: calendar, request: request, into: &multistatus)
        return multistatus.response()
    }

    /// Whether a comp-filter says more than time ranges, so objects must be read to answer it.
    static func needsObjects(_ filter: XMLElement) -> Bool {
        filter.children.contains { child in
            if child.name == "time-range" { return false }
            if child.name == "comp-filter" && child.attributes["name"]?.uppercased() == "VALARM" {
                return child.children.contains { $0.name != "time-range" }
            }
            return true
        }
    }

    /// principal-property-search (RFC 3744 §9.4): a user finds their own principal by
    /// display name (or name); other users' principals are not searchable. A search
    /// without criteria (python `caldav` sends one to list principals) finds it too.
    func principalSearch(_ body: XMLElement) -> HTTPResponse {
        let searches = body.children(DAVNamespace.dav, "property-search")
        let account = try? handler.backend.user(named: user)
        let name = account?.displayName ?? user
        let matches = searches.allSatisfy { search in
            let wanted = QueryFilter.asciiLowercased(search.child(DAVNamespace.dav, "match")?.text ?? "")
            return QueryFilter.asciiLowercased(name).contains(wanted)
                || QueryFilter.asciiLowercased(user).contains(wanted)
        }
        // The properties asked for; python `caldav` puts them beside an empty DAV:prop
        // instead of inside it, so stray property elements count as asked too.
        let structure: Set<String> = ["property-search", "prop", "apply-to-principal-collection-set"]
        let asked = body.child(DAVNamespace.dav, "prop")?.children ?? []
        let stray = body.children.filter { $0.namespace != DAVNamespace.dav || !structure.contains($0.name) }
        var wanted = (asked.isEmpty ? stray : asked).map(PropertyName.init)
        if wanted.isEmpty { wanted = [.displayName] }
        var multistatus = Multistatus()
        if matches, let properties = try? properties(of: .principal(user: user)) {
            multistatus.add(
                href: DAVPath.principal(user: user).href,
                found: wanted.compactMap { name in properties[name].map { (name, $0) } },
                missing: wanted.filter { properties[$0] == nil })
        }
        return multistatus.response()
    }

    /// principal-search-property-set (RFC 3744 §9.5): display names are searchable.
    func principalSearchPropertySet() -> HTTPResponse {
        let body =
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:principal-search-property-set\(DAVNamespace.declarations)>"
            + "<D:principal-search-property><D:prop><D:displayname/></D:prop><D:description xml:lang=\"en\">Display name</D:description>"
            + "</D:principal-search-property></D:principal-search-property-set>\n"
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
    }

    /// free-busy-query (RFC 4791 §7.10): the busy time of the range as a VFREEBUSY.
    /// Transparent and cancelled instances leave time free; tentative ones are
    /// BUSY-TENTATIVE.
    func freeBusy(_ body: XMLElement, calendar: EventCalendar) throws(StoreError) -> HTTPResponse {
        guard let timeRange = body.child(DAVNamespace.caldav, "time-range"),
            let start = timeRange.attributes["start"].flatMap(DAVTime.instant),
            let end = timeRange.attributes["end"].flatMap(DAVTime.instant), start < end
        else {
            return DAVError(400, "free-busy-query needs a time-range with start and end in UTC").response
        }
        let occurrences = try store.events(
            in: TimeRange(start: start, end: end), calendars: [calendar.id],
            matching: EventFilter(componentTypes: [.event]),
            timeZone: calendar.timeZone)
        var freeBusy = Component(
            name: "VFREEBUSY",
            properties: [
                Property(name: "DTSTAMP", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc)),
                Property(name: "DTSTART", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc)),
                Property(name: "DTEND", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: end), form: .utc)),
            ])
        var busy: [(start: Int, end: Int, tentative: Bool)] = []
        for occurrence in occurrences where !occurrence.isCancelled && !occurrence.isTransparent {
            let from = max(start, occurrence.startInstant)
            let to = min(end, occurrence.endInstant)
            guard to > from else { continue }
            busy.append((from, to, occurrence.status == .tentative))
        }
        for period in Self.coalesced(busy, span: end - start) {
            freeBusy.properties.append(
                Property(
                    name: "FREEBUSY",
                    parameters: [Parameter(name: "FBTYPE", value: period.tentative ? "BUSY-TENTATIVE" : "BUSY")],
                    value: DAVTime.period(period.start, period.end)))
        }
        let document = Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
            ],
            components: [freeBusy])
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: document.serialized())
    }

    /// Busy periods sorted, with overlapping or touching ones of the same type joined
    /// (RFC 5545 §3.8.2.6 lets FREEBUSY periods be coalesced). Past
    /// ``maxFreeBusyPeriods``, gaps shorter than the range over that count are filled
    /// and tentative time counts as busy: an answer may show more busy time, never less.
    static func coalesced(_ periods: [(start: Int, end: Int, tentative: Bool)], span: Int) -> [(
        start: Int, end: Int, tentative: Bool
    )] {
        func join(_ periods: [(start: Int, end: Int, tentative: Bool)], gap: Int) -> [(
            start: Int, end: Int, tentative: Bool
        )] {
            var result: [(start: Int, end: Int, tentative: Bool)] = []
            for period in periods.sorted(by: { ($0.start, $0.tentative ? 1 : 0) < ($1.start, $1.tentative ? 1 : 0) }) {
                if let last = result.last, last.tentative == period.tentative, period.start <= last.end + gap {
                    result[result.count - 1].end = max(last.end, period.end)
                } else {
                    result.append(period)
                }
            }
            return result
        }
        let joined = join(periods, gap: 0)
        guard joined.count > maxFreeBusyPeriods else { return joined }
        return join(joined.map { ($0.start, $0.end, false) }, gap: span / maxFreeBusyPeriods + 1)
    }

    /// sync-collection (RFC 6578): what changed since the token. With `DAV:limit`, at
    /// most that many changes, a 507 for the collection, and a checkpoint token from
    /// which the client continues without missing anything.
    func syncCollection(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError)
        -> HTTPResponse
    {
        let tokenText = body.child(DAVNamespace.dav, "sync-token")?.text ?? ""
        var token: SyncToken?
        if !tokenText.isEmpty {
            guard let parsed = SyncToken(tokenText) else {
                throw StoreError(.invalidSyncToken, "sync token \(tokenText) was not issued by this server")
            }
            token = parsed
        }
        var limit: Int?
        if let element = body.child(DAVNamespace.dav, "limit") {
            guard let text = element.child(DAVNamespace.dav, "nresults")?.text, let count = Int(text), count > 0 else {
                return DAVError(400, "DAV:limit needs DAV:nresults, a positive number").response
            }
            limit = count
        }
        let changes = try store.changes(since: token, calendar: calendar.id, limit: limit)
        var multistatus = Multistatus()
        try respond(changes.changed, calendar: calendar, request: request, into: &multistatus)
        for name in changes.deleted {
            multistatus.add(href: DAVPath.object(user: user, calendar: calendar.name, name: name).href, status: 404)
        }
        if changes.isTruncated {
            multistatus.add(
                href: DAVPath.calendar(user: user, name: calendar.name).href, status: 507,
                error: PropertyName(DAVNamespace.dav, "number-of-matches-within-limits"))
        }
        multistatus.syncToken = changes.token.description
        return multistatus.response()
    }

    /// The object with its master and only the overrides that impact `range` (RFC 4791
    /// §9.6.6); VTIMEZONEs and other components stay.
    func limited(_ data: [UInt8], to range: TimeRange, calendar: EventCalendar) throws(StoreError) -> [UInt8] {
        guard var root = try Self.parseObject(data) else { return data }
        let members = root.components.filter { ComponentType(rawValue: $0.name) != nil }
        let zone = calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let affecting: [Component]
        do {
            affecting = try CalendarObjectExpansion(resolver: ZoneResolver(calendar: root))
                .prepare(members, uid: members.first?.property("UID")?.value ?? "")
                .overrides(affecting: range.start, to: range.end, viewerZone: zone)
        } catch {
            throw StoreError(.invalidCalendarData, error.description)
        }
        root.components.removeAll { $0.property("RECURRENCE-ID") != nil && !affecting.contains($0) }
        return root.serialized()
    }

    /// A stored object's VCALENDAR.
    static func parseObject(_ data: [UInt8]) throws(StoreError) -> Component? {
        do {
            return try ICalendarParser.parse(data, options: .lenient).components.first
        } catch {
            throw StoreError(.invalidCalendarData, error.description)
        }
    }

    /// An object's instances in `range` as RFC 4791 §9.6.5 asks: one component per
    /// instance with RECURRENCE-ID, times in UTC, no recurrence properties.
    /// An object's instances in the expanded range as RFC 4791 §9.6.5 asks: one
    /// component per instance with RECURRENCE-ID, times in UTC, no recurrence properties.
    static func expanded(_ occurrences: [EventOccurrence], zone: ZoneRules) -> [UInt8] {
        // Instances of the master share its component: strip it once.
        var strippedMaster: Component?
        var components: [Component] = []
        components.reserveCapacity(occurrences.count)
        for occurrence in occurrences {
            let original = occurrence.component
            var component: Component
            if !occurrence.isDetached, let strippedMaster {
                component = strippedMaster
            } else {
                component = original
                component.properties.removeAll { Self.instanceTiming.contains($0.name) }
                if !occurrence.isDetached { strippedMaster = component }
            }
            if component.name != "VTODO" || original.property("DTSTART") != nil {
                component.properties.append(
                    Property(name: "DTSTART", dateTime: DAVTime.value(occurrence.start, zone: zone)))
            }
            let endName = component.name == "VTODO" ? "DUE" : "DTEND"
            if component.name != "VTODO" || original.property("DUE") != nil || original.property("DURATION") != nil {
                component.properties.append(
                    Property(name: endName, dateTime: DAVTime.value(occurrence.end, zone: zone)))
            }
            if let id = occurrence.recurrenceID {
                component.properties.append(Property(name: "RECURRENCE-ID", dateTime: DAVTime.value(id, zone: zone)))
            }
            components.append(component)
        }
        return Component(name: "VCALENDAR", properties: expandedHeader, components: components).serialized()
    }

    static let expandedHeader = [
        Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
    ]

    /// What an expanded instance drops: the recurrence and the series' own times.
    static let instanceTiming: Set<String> = [
        "RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID", "DTSTART", "DTEND", "DUE", "DURATION",
    ]
}

/// CalDAV's time format: `20261201T000000Z` (UTC).
enum DAVTime {
    /// The `start` and `end` of a time-range, expand or limit-recurrence-set element
    /// (UTC date-times; a missing one is open unless `bothBounds`), or the 400 to answer.
    static func range(_ element: XMLElement, bothBounds: Bool = false) throws(DAVError) -> TimeRange {
        func bound(_ name: String) throws(DAVError) -> Int? {
            guard let text = element.attributes[name] else {
                if bothBounds {
                    throw DAVError(400, "\(element.name) needs a \(name) attribute")
                }
                return nil
            }
            guard let instant = instant(text) else {
                throw DAVError(
                    400,
                    "\(element.name) \(name)=\"\(text)\" is not a UTC date-time such as 20261201T000000Z",
                    caldav: "valid-filter")
            }
            return instant
        }
        let start = try bound("start")
        let end = try bound("end")
        guard start != nil || end != nil else {
            throw DAVError(400, "\(element.name) needs a start or an end", caldav: "valid-filter")
        }
        return TimeRange(start: start ?? Int(Int32.min) * 60, end: end ?? Int(Int32.max - 1) * 60)
    }

    static func instant(_ text: String) -> Int? {
        guard let value = try? Property(name: "DTSTART", value: text).dateTimeValue(), value.form == .utc, !value.isDate
        else { return nil }
        return value.civil.secondsSinceEpoch
    }

    /// `20261201T090000Z/20261201T100000Z`, a FREEBUSY period.
    static func period(_ start: Int, _ end: Int) -> String {
        DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc).icalendarText + "/"
            + DateTimeValue(CivilDateTime(secondsSinceEpoch: end), form: .utc).icalendarText
    }

    /// A value for an expanded instance: dates stay dates, times become UTC.
    static func value(_ time: OccurrenceTime, zone: ZoneRules) -> DateTimeValue {
        if case .date(let date) = time { return DateTimeValue(date: date) }
        return DateTimeValue(CivilDateTime(secondsSinceEpoch: time.instant(in: zone)), form: .utc)
    }
}
