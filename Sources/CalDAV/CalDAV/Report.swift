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
}
