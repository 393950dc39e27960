import CalendarStore
import CivilTime
import HTTPTypes

/// What each object's response in a report carries (RFC 4791 §9.6, RFC 4918 §14.18):
/// the properties named in `DAV:prop`, and calendar-data as stored, limited to the
/// overrides that impact a range, or expanded into instances.
struct ReportProperties {
    var properties: [PropertyName] = []
    var wantsCalendarData = false
    /// `<C:expand start end>`: instances instead of the series.
    var expand: TimeRange?
    /// `<C:limit-recurrence-set start end>`: the master and only the overrides that impact the range.
    var limitRecurrenceSet: TimeRange?
    /// `<C:comp>` (§9.6.1): only the components and properties it names.
    var selection: ComponentSelection?

    /// `DAV:propname`: the names of the properties, without their values.
    var namesOnly = false

    /// Reads the report's `DAV:prop`, `DAV:allprop` or `DAV:propname` (RFC 4791 §9.5,
    /// §9.10); only the ETag when there is none.
    init(_ body: XMLElement) throws(DAVError) {
        guard let prop = body.child(DAVNamespace.dav, "prop") else {
            if body.child(DAVNamespace.dav, "allprop") != nil {
                properties = DAVContext.objectPropertyNames
            } else if body.child(DAVNamespace.dav, "propname") != nil {
                properties = DAVContext.objectPropertyNames
                namesOnly = true
            } else {
                properties = [.getETag]
            }
            return
        }
        for element in prop.children {
            guard element.namespace == DAVNamespace.caldav && element.name == "calendar-data" else {
                properties.append(PropertyName(element))
                continue
            }
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
                guard expand == nil else {
                    throw DAVError(400, "calendar-data has expand or limit-recurrence-set, not both")
                }
                limitRecurrenceSet = try DAVTime.range(limit, bothBounds: true)
            }
            // `<C:limit-freebusy-set>` (§9.6.7) limits FREEBUSY periods to its range: it is
            // checked, and has nothing to limit, as no stored object holds a VFREEBUSY (a
            // calendar's supported-calendar-component-set has none).
            if let limit = element.child(DAVNamespace.caldav, "limit-freebusy-set") {
                _ = try DAVTime.range(limit, bothBounds: true)
            }
            let comps = element.children(DAVNamespace.caldav, "comp")
            if let comp = comps.first {
                let selection = try ComponentSelection(comp)
                guard comps.count == 1, selection.name == "VCALENDAR" else {
                    throw DAVError(400, "calendar-data selects from one CALDAV:comp named VCALENDAR")
                }
                self.selection = selection
            }
        }
    }

    /// What the store reads of each selected object for these properties.
    var content: ResourceContent {
        guard wantsCalendarData else { return .listing }
        guard let expand else { return .data }
        return .instances(expand, limit: Self.maxExpandedInstances)
    }

    /// The most instances one `expand` answer writes (RFC 4791 §9.6.5).
    static let maxExpandedInstances = 10_000
}

/// A report answered on a calendar collection, read from its body first.
protocol CalendarReport {
    func answer(in context: DAVContext, calendar: CalendarHandle) throws(StoreError) -> HTTPResponse
}

/// A report answered on any resource of the tree.
protocol AnywhereReport {
    func answer(in context: DAVContext) throws(StoreError) -> HTTPResponse
}

extension AnywhereReport {
    /// The answer, or the store's error as a DAV error.
    func response(in context: DAVContext) -> HTTPResponse {
        do {
            return try answer(in: context)
        } catch {
            return DAVError(error).response
        }
    }
}

extension PrincipalSearchReport: AnywhereReport {}
extension PrincipalMatchReport: AnywhereReport {}

extension CalendarMultigetReport: CalendarReport {}
extension CalendarQueryReport: CalendarReport {}
extension SyncCollectionReport: CalendarReport {}
extension FreeBusyQueryReport: CalendarReport {}

extension DAVContext {
    /// REPORT (RFC 3253 §3.6): each report's body is read into its value, then answered.
    /// The principal searches and expand-property are answered anywhere; the calendar
    /// reports on a calendar collection, calendar-query and calendar-multiget also on a
    /// calendar object resource (RFC 4791 §7), the calendar resolved once for the request.
    func report() -> HTTPResponse {
        let body: XMLElement
        switch self.body() {
        case .success(let element): body = element
        case .failure(let failure): return failure.response
        }
        do throws(DAVError) {
            // The RFC 3744 reports are defined at Depth 0 alone (§9.2–§9.5: "other values
            // result in a 400"); REPORT's Depth is 0 when not given (RFC 3253 §3.6).
            let principalReports = [
                "acl-principal-prop-set", "principal-match", "principal-property-search",
                "principal-search-property-set",
            ]
            if body.namespace == DAVNamespace.dav, principalReports.contains(body.name),
                let depth = request.headers["Depth"], depth.trimmingCharacters(in: .whitespaces) != "0"
            {
                throw DAVError(400, "the \(body.name) report is answered with Depth: 0 only, not \(depth)")
            }
            switch (body.namespace, body.name) {
            case (DAVNamespace.dav, "acl-principal-prop-set"):
                do {
                    return try AclPrincipalPropSetReport(body).answer(in: self)
                } catch {
                    return DAVError(error).response
                }
            case (DAVNamespace.dav, "principal-property-search"):
                return try PrincipalSearchReport(body).response(in: self)
            case (DAVNamespace.dav, "principal-match"):
                return try PrincipalMatchReport(body).response(in: self)
            case (DAVNamespace.dav, "principal-search-property-set"):
                return PrincipalSearchReport.propertySet()
            case (DAVNamespace.dav, "expand-property"):
                return try ExpandPropertyReport(body).answer(in: self)
            default: break
            }
            let calendarName: String
            switch path {
            case .calendar(_, let name): calendarName = name
            case .inbox: return try inboxReport(body)
            // free-busy-query "MUST fail" on an object (RFC 4791 §7.10); sync-collection is a
            // collection's (RFC 6578 §3).
            case .object(_, let name, _) where !["sync-collection", "free-busy-query"].contains(body.name):
                calendarName = name
            default:
                throw DAVError(
                    403, "this REPORT is answered on a calendar collection or calendar object", dav: "supported-report")
            }
            let calendar: CalendarHandle
            do {
                calendar = try self.calendar(named: calendarName)
                // A report on an object answers for that object, which must be there.
                if let objectScope { _ = try store.resource(named: objectScope[0], calendar: calendar) }
            } catch {
                throw DAVError(error)
            }
            let report: any CalendarReport =
                switch (body.namespace, body.name) {
                case (DAVNamespace.caldav, "calendar-multiget"): try CalendarMultigetReport(body, in: self)
                case (DAVNamespace.caldav, "calendar-query"): try CalendarQueryReport(body)
                case (DAVNamespace.dav, "sync-collection"): try SyncCollectionReport(body)
                case (DAVNamespace.caldav, "free-busy-query"): try FreeBusyQueryReport(body)
                default: throw DAVError(403, "unsupported REPORT \(body.name)", dav: "supported-report")
                }
            do {
                return try report.answer(in: self, calendar: calendar)
            } catch {
                return DAVError(error).response
            }
        } catch {
            return error.response
        }
    }

    /// A report on a calendar object resource considers only that object (RFC 4791 §7):
    /// its name, or nil on a collection.
    var objectScope: [String]? {
        if case .object(_, _, let name) = path { [name] } else { nil }
    }

    /// The zone a calendar reads floating and all-day times in (its `calendar-timezone`), else UTC.
    static func zone(of calendar: CalendarHandle) -> ZoneRules {
        calendar.calendar.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) } ?? .utc
    }

    /// Writes a store report's objects: the asked properties of each, its calendar-data
    /// (limited or expanded as asked), and, when instances were left out, the
    /// collection's 507 saying the answer is incomplete (as sync-collection does).
    /// Floating and all-day times are read in `zone` (the request's), else the calendar's.
    func write(
        _ report: ResourceReport, properties: ReportProperties, calendar: CalendarHandle, zone: ZoneRules? = nil,
        into multistatus: inout Multistatus
    ) throws(StoreError) {
        let zone = zone ?? Self.zone(of: calendar)
        var calendarData: [[UInt8]?]
        if properties.expand != nil {
            // Each object's instances written on every core.
            calendarData = Parallel.map(report.items) { item in
                Self.selected(Self.expanded(item.instances, zone: zone), by: properties.selection).serialized()
            }
        } else if properties.limitRecurrenceSet != nil || properties.selection != nil {
            let results = Parallel.map(report.items) { item in
                Result { () throws(StoreError) -> [UInt8]? in
                    guard let data = item.data, var root = try Self.parseObject(data) else { return item.data }
                    if let range = properties.limitRecurrenceSet {
                        root = try Self.limited(root, to: range, zone: zone)
                    }
                    return Self.selected(root, by: properties.selection).serialized()
                }
            }
            calendarData = []
            for result in results { calendarData.append(try result.get()) }
        } else {
            calendarData = report.items.map(\.data)
        }
        for (item, data) in zip(report.items, calendarData) {
            var (found, missing) = objectProperties(properties.properties, item.info, in: calendar.calendar)
            if properties.namesOnly { found = found.map { ($0.name, "") } }
            multistatus.add(
                href: DAVPath.object(user: user, calendar: calendar.calendar.name, name: item.info.name).href,
                found: found, calendarData: properties.wantsCalendarData ? data : nil, missing: missing)
        }
        if report.isTruncated {
            multistatus.addTruncation(of: DAVPath.calendar(user: user, name: calendar.calendar.name).href)
        }
    }
}
