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
        do {
            body = try XMLBody.parse(request.body)
        } catch {
            return DAVError.response(status: 400, error.description)
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
        var multistatus = Multistatus()
        for resource in selected {
            try respond(.object(user: user, calendar: calendar.name, name: resource.name), info: resource, calendar: calendar, request: request, into: &multistatus)
        }
        return multistatus.response
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

    /// A value for an expanded instance: dates stay dates, times become UTC.
    static func value(_ time: OccurrenceTime, zone: ZoneRules) -> DateTimeValue {
        if case .date(let date) = time { return DateTimeValue(date: date) }
        return DateTimeValue(CivilDateTime(secondsSinceEpoch: time.instant(in: zone)), form: .utc)
    }
}
