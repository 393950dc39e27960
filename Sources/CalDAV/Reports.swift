import CalendarStore
import CivilTime
import HTTPServer
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
            return DAVError.response(
                status: 403, "this REPORT is answered on a calendar collection", precondition: PropertyName(DAVNamespace.dav, "supported-report"))
        }
        do throws(StoreError) {
            let calendar = try self.calendar(named: calendarName)
            let request = ReportRequest(body)
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
                return DAVError.response(
                    status: 403, "unsupported REPORT \(body.name)", precondition: PropertyName(DAVNamespace.dav, "supported-report"))
            }
        } catch {
            return DAVError.response(for: error)
        }
    }

    /// What a report asks for: property names, and how calendar-data is wanted.
    struct ReportRequest {
        var properties: [PropertyName] = []
        var wantsCalendarData = false
        /// `<C:expand start end>`: instances instead of the series.
        var expand: TimeRange?

        init(_ body: XMLElement) {
            guard let prop = body.child(DAVNamespace.dav, "prop") else {
                properties = [.getETag]
                return
            }
            for element in prop.children {
                if element.namespace == DAVNamespace.caldav && element.name == "calendar-data" {
                    wantsCalendarData = true
                    if let expand = element.child(DAVNamespace.caldav, "expand"), let start = expand.attributes["start"].flatMap(DAVTime.instant),
                        let end = expand.attributes["end"].flatMap(DAVTime.instant)
                    {
                        self.expand = TimeRange(start: start, end: end)
                    }
                } else {
                    properties.append(PropertyName(element))
                }
            }
        }
    }

    static let calendarData = PropertyName(DAVNamespace.caldav, "calendar-data")

    /// One object's response: the asked properties, and calendar-data (expanded if asked).
    func respond(_ object: DAVPath, info: ResourceInfo?, calendar: EventCalendar, request: ReportRequest, into multistatus: inout Multistatus)
        throws(StoreError)
    {
        guard case .object(_, _, let name) = object else { return }
        let available: [PropertyName: String]
        do throws(StoreError) {
            if let info { available = objectProperties(info) } else { available = try properties(of: object) }
        } catch {
            if error.code == .notFound { multistatus.add(href: object.href, status: 404) }
            return
        }
        var found = request.properties.compactMap { name in available[name].map { (name, $0) } }
        let missing = request.properties.filter { available[$0] == nil }
        if request.wantsCalendarData {
            var bytes = try store.resource(named: name, calendar: calendar.id).data
            if let range = request.expand { bytes = try expanded(bytes, in: range, calendar: calendar) }
            found.append((Self.calendarData, XMLText.escape(String(decoding: bytes, as: UTF8.self))))
        }
        multistatus.add(href: object.href, found: found, missing: missing)
    }

    func multiget(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError) -> HTTPResponse {
        var multistatus = Multistatus()
        for href in body.children(DAVNamespace.dav, "href") {
            guard let target = DAVPath(requestPath: href.text), case .object(let owner, let calendarName, _) = target, owner == user,
                calendarName == calendar.name
            else {
                multistatus.add(href: href.text, status: 404)
                continue
            }
            try respond(target, info: nil, calendar: calendar, request: request, into: &multistatus)
        }
        return multistatus.response
    }

    func query(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError) -> HTTPResponse {
        // <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT"> [<C:time-range/>]
        let outer = body.child(DAVNamespace.caldav, "filter")?.child(DAVNamespace.caldav, "comp-filter")
        let inner = outer?.child(DAVNamespace.caldav, "comp-filter")
        let type = inner?.attributes["name"].flatMap { ComponentType(rawValue: $0.uppercased()) }
        let resources = try store.resources(calendar: calendar.id).filter { type == nil || $0.componentType == type }
        var selected = resources
        if let type, let timeRange = inner?.child(DAVNamespace.caldav, "time-range") {
            let start = timeRange.attributes["start"].flatMap(DAVTime.instant) ?? Int(Int32.min) * 60
            let end = timeRange.attributes["end"].flatMap(DAVTime.instant) ?? Int(Int32.max - 1) * 60
            let occurrences = try store.events(
                in: TimeRange(start: start, end: end), calendars: [calendar.id], matching: EventFilter(componentTypes: [type]), timeZone: calendar.timeZone)
            let identifiers = Set(occurrences.map(\.eventIdentifier))
            selected = resources.filter { identifiers.contains($0.localIdentifier) }
        }
        // Property, parameter and text filters read each remaining object.
        if let inner, inner.children.contains(where: { $0.name != "time-range" }) {
            var kept: [ResourceInfo] = []
            for resource in selected {
                let data = try store.resource(named: resource.name, calendar: calendar.id).data
                guard let root = try? ICalendarParser.parse(data, options: .lenient).components.first else { continue }
                if QueryFilter.matches(inner, in: root) { kept.append(resource) }
            }
            selected = kept
        }
        var multistatus = Multistatus()
        for resource in selected {
            try respond(.object(user: user, calendar: calendar.name, name: resource.name), info: resource, calendar: calendar, request: request, into: &multistatus)
        }
        return multistatus.response
    }

    /// principal-property-search (RFC 3744 §9.4): a user finds their own principal by
    /// display name (or name); other users' principals are not searchable.
    func principalSearch(_ body: XMLElement) -> HTTPResponse {
        let searches = body.children(DAVNamespace.dav, "property-search")
        let account = try? handler.backend.user(named: user)
        let name = account?.displayName ?? user
        let matches = !searches.isEmpty && searches.allSatisfy { search in
            let wanted = QueryFilter.asciiLowercased(search.child(DAVNamespace.dav, "match")?.text ?? "")
            return QueryFilter.asciiLowercased(name).contains(wanted) || QueryFilter.asciiLowercased(user).contains(wanted)
        }
        var multistatus = Multistatus()
        if matches, let properties = try? properties(of: .principal(user: user)) {
            let wanted = body.child(DAVNamespace.dav, "prop")?.children.map(PropertyName.init) ?? [.displayName]
            multistatus.add(
                href: DAVPath.principal(user: user).href, found: wanted.compactMap { name in properties[name].map { (name, $0) } },
                missing: wanted.filter { properties[$0] == nil })
        }
        return multistatus.response
    }

    /// principal-search-property-set (RFC 3744 §9.5): display names are searchable.
    func principalSearchPropertySet() -> HTTPResponse {
        let body = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<D:principal-search-property-set\(DAVNamespace.declarations)>"
            + "<D:principal-search-property><D:prop><D:displayname/></D:prop><D:description xml:lang=\"en\">Display name</D:description>"
            + "</D:principal-search-property></D:principal-search-property-set>\n"
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(body.utf8))
    }

    /// free-busy-query (RFC 4791 §7.10): the busy time of the range as a VFREEBUSY.
    /// Transparent and cancelled instances leave time free; tentative ones are
    /// BUSY-TENTATIVE.
    func freeBusy(_ body: XMLElement, calendar: EventCalendar) throws(StoreError) -> HTTPResponse {
        guard let timeRange = body.child(DAVNamespace.caldav, "time-range"), let start = timeRange.attributes["start"].flatMap(DAVTime.instant),
            let end = timeRange.attributes["end"].flatMap(DAVTime.instant), start < end
        else {
            return DAVError.response(status: 400, "free-busy-query needs a time-range with start and end in UTC")
        }
        let occurrences = try store.events(
            in: TimeRange(start: start, end: end), calendars: [calendar.id], matching: EventFilter(componentTypes: [.event]),
            timeZone: calendar.timeZone)
        var freeBusy = Component(
            name: "VFREEBUSY",
            properties: [
                Property(name: "DTSTAMP", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc)),
                Property(name: "DTSTART", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: start), form: .utc)),
                Property(name: "DTEND", dateTime: DateTimeValue(CivilDateTime(secondsSinceEpoch: end), form: .utc)),
            ])
        for occurrence in occurrences where !occurrence.isCancelled {
            let component = occurrence.component
            if component.property("TRANSP")?.value.uppercased() == "TRANSPARENT" { continue }
            let from = max(start, occurrence.startInstant)
            let to = min(end, occurrence.endInstant)
            guard to > from else { continue }
            let period = DAVTime.period(from, to)
            let type = occurrence.status == .tentative ? "BUSY-TENTATIVE" : "BUSY"
            freeBusy.properties.append(Property(name: "FREEBUSY", parameters: [Parameter(name: "FBTYPE", value: type)], value: period))
        }
        let document = Component(
            name: "VCALENDAR", properties: [Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN")],
            components: [freeBusy])
        return HTTPResponse(status: 200, headers: ["Content-Type": "text/calendar; charset=utf-8"], body: document.serialized())
    }

    func syncCollection(_ body: XMLElement, calendar: EventCalendar, request: ReportRequest) throws(StoreError) -> HTTPResponse {
        let tokenText = body.child(DAVNamespace.dav, "sync-token")?.text ?? ""
        var token: SyncToken?
        if !tokenText.isEmpty {
            guard let parsed = SyncToken(tokenText) else {
                throw StoreError(.invalidSyncToken, "sync token \(tokenText) was not issued by this server")
            }
            token = parsed
        }
        let changes = try store.changes(since: token, calendar: calendar.id)
        var multistatus = Multistatus()
        for resource in changes.changed {
            try respond(.object(user: user, calendar: calendar.name, name: resource.name), info: resource, calendar: calendar, request: request, into: &multistatus)
        }
        for name in changes.deleted {
            multistatus.add(href: DAVPath.object(user: user, calendar: calendar.name, name: name).href, status: 404)
        }
        multistatus.syncToken = changes.token.description
        return multistatus.response
    }

    /// An object's instances in `range` as RFC 4791 §9.6.5 asks: one component per
    /// instance with RECURRENCE-ID, times in UTC, no recurrence properties.
    func expanded(_ data: [UInt8], in range: TimeRange, calendar: EventCalendar) throws(StoreError) -> [UInt8] {
        let document: ICalendarDocument
        do {
            document = try ICalendarParser.parse(data, options: .lenient)
        } catch {
            throw StoreError.init(.invalidCalendarData, error.description)
        }
        guard let root = document.components.first else { return data }
        let zone = calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
        let expansion = CalendarObjectExpansion(resolver: ZoneResolver(calendar: root), viewerZone: zone)
        let occurrences: [Occurrence]
        do {
            occurrences = try expansion.occurrences(in: root, from: range.start, to: range.end)
        } catch {
            throw StoreError(.invalidCalendarData, error.description)
        }
        var components: [Component] = []
        for occurrence in occurrences {
            var component = occurrence.component
            for name in ["RRULE", "RDATE", "EXDATE", "EXRULE", "RECURRENCE-ID", "DTSTART", "DTEND", "DURATION"] { component.removeProperties(named: name) }
            component.properties.append(Property(name: "DTSTART", dateTime: DAVTime.value(occurrence.start, zone: zone)))
            component.properties.append(Property(name: "DTEND", dateTime: DAVTime.value(occurrence.end, zone: zone)))
            if let id = occurrence.recurrenceID { component.properties.append(Property(name: "RECURRENCE-ID", dateTime: DAVTime.value(id, zone: zone))) }
            components.append(component)
        }
        return Component(name: "VCALENDAR", properties: root.properties, components: components).serialized()
    }
}

/// CalDAV's time format: `20261201T000000Z` (UTC).
enum DAVTime {
    static func instant(_ text: String) -> Int? {
        guard let value = try? Property(name: "DTSTART", value: text).dateTimeValue(), value.form == .utc, !value.isDate else { return nil }
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
