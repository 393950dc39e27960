import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence

extension DAVContext {
    /// PROPFIND (RFC 4918 §9.1): Depth 0 or 1; `allprop`, `propname` or a list of names.
    func propfind() -> HTTPResponse {
        let depth = request.headers["Depth"]?.lowercased() ?? "infinity"
        guard depth == "0" || depth == "1" else {
            return DAVError(
                403, "PROPFIND with Depth: infinity is not supported; use Depth 0 or 1", dav: "propfind-finite-depth"
            ).response
        }
        enum Wanted {
            case all, names
            case some([PropertyName])
        }
        var wanted = Wanted.all
        if !request.body.isEmpty {
            let body: XMLElement
            switch self.body(DAVNamespace.dav, "propfind") {
            case .success(let element): body = element
            case .failure(let failure): return failure.response
            }
            if let prop = body.child(DAVNamespace.dav, "prop") {
                wanted = .some(prop.children.map(PropertyName.init))
            } else if body.child(DAVNamespace.dav, "propname") != nil {
                wanted = .names
            }
        }
        var targets: [(path: DAVPath, info: ResourceInfo?)] = [(path, nil)]
        do throws(StoreError) {
            if depth == "1" { targets += try members(of: path) }
            var multistatus = Multistatus()
            for (index, (target, info)) in targets.enumerated() {
                // The root answers under the href it was asked by: `/` or (any spelling of) `/dav/`.
                let href = index == 0 && target == .root && request.path == "/" ? "/" : target.href
                if let info, case .some(let names) = wanted {
                    let (found, missing) = objectProperties(names, info)
                    multistatus.add(href: href, found: found, missing: missing)
                    continue
                }
                let properties: [PropertyName: String]
                do throws(StoreError) {
                    if let info {
                        properties = objectProperties(info)
                    } else {
                        properties = try self.properties(of: target)
                    }
                } catch {
                    // The resource itself missing is a 404; a member vanishing mid-listing is skipped.
                    if index == 0 { throw error }
                    continue
                }
                switch wanted {
                case .all:
                    multistatus.add(
                        href: href, found: properties.sorted { $0.key.clark < $1.key.clark }.map { ($0.key, $0.value) })
                case .names:
                    multistatus.add(href: href, found: properties.keys.sorted { $0.clark < $1.clark }.map { ($0, "") })
                case .some(let names):
                    multistatus.add(
                        href: href, found: names.compactMap { name in properties[name].map { (name, $0) } },
                        missing: names.filter { properties[$0] == nil })
                }
            }
            return multistatus.response()
        } catch {
            return DAVError(error).response
        }
    }

    /// The members listed at Depth 1, with the listing of each object (so its
    /// properties need no lookup of their own).
    func members(of path: DAVPath) throws(StoreError) -> [(path: DAVPath, info: ResourceInfo?)] {
        switch path {
        case .root: return [(.principal(user: user), nil), (.home(user: user), nil)]
        // Other users' principals are not listed (nor searchable).
        case .principals: return [(.principal(user: user), nil)]
        case .principal, .object: return []
        case .home(let owner):
            return try store.calendars().filter { $0.owner == owner }.map {
                (DAVPath.calendar(user: owner, name: $0.name), nil)
            }
        case .calendar(let owner, let name):
            let calendar = try self.calendar(named: name)
            return try store.resources(calendar: calendar.id).map {
                (.object(user: owner, calendar: name, name: $0.name), $0)
            }
        }
    }

    /// The live properties of a calendar object.
    static let objectPropertyNames: [PropertyName] = [
        .currentUserPrincipal, .currentUserPrivilegeSet, .resourceType, .getETag, .getContentType, .getContentLength,
        .getLastModified,
    ]

    /// One property of a calendar object, as inner XML, from its listing; nil for a
    /// property objects do not have.
    func objectProperty(_ name: PropertyName, _ info: ResourceInfo) -> String? {
        switch name {
        case .getETag: XMLText.escape(info.etag)
        case .getContentType: "text/calendar; charset=utf-8; component=\(info.componentType.rawValue)"
        case .getContentLength: String(info.size)
        case .getLastModified: CivilDateTime(secondsSinceEpoch: info.lastModified).httpDate
        case .resourceType: ""
        case .currentUserPrincipal: "<D:href>\(XMLText.escape(principalHref))</D:href>"
        case .currentUserPrivilegeSet: Self.privileges
        default: nil
        }
    }

    /// Every property of a calendar object.
    func objectProperties(_ info: ResourceInfo) -> [PropertyName: String] {
        var properties: [PropertyName: String] = [:]
        for name in Self.objectPropertyNames { properties[name] = objectProperty(name, info) }
        return properties
    }

    /// The asked properties of an object: those it has, with their values, and those it has not.
    func objectProperties(_ names: [PropertyName], _ info: ResourceInfo) -> (
        found: [(name: PropertyName, value: String)], missing: [PropertyName]
    ) {
        var found: [(name: PropertyName, value: String)] = []
        var missing: [PropertyName] = []
        for name in names {
            if let value = objectProperty(name, info) { found.append((name, value)) } else { missing.append(name) }
        }
        return (found, missing)
    }

    /// Every live and dead property of a resource, as inner XML.
    func properties(of target: DAVPath) throws(StoreError) -> [PropertyName: String] {
        var properties: [PropertyName: String] = [
            .currentUserPrincipal: "<D:href>\(XMLText.escape(principalHref))</D:href>",
            .currentUserPrivilegeSet: Self.privileges,
            .principalCollectionSet: "<D:href>\(DAVPath.principals.href)</D:href>",
        ]
        switch target {
        case .root:
            properties[.resourceType] = "<D:collection/>"
            properties[.displayName] = "Almanac"
            properties[.supportedReportSet] = Self.reports(Self.principalReports, namespace: "D")
        case .principals:
            properties[.resourceType] = "<D:collection/>"
            properties[.displayName] = "Principals"
            properties[.supportedReportSet] = Self.reports(Self.principalReports, namespace: "D")
        case .principal(let owner):
            let account = try handler.backend.user(named: owner)
            properties[.resourceType] = "<D:principal/>"
            properties[.displayName] = XMLText.escape(account.displayName ?? account.name)
            properties[.principalURL] = "<D:href>\(XMLText.escape(target.href))</D:href>"
            properties[.owner] = "<D:href>\(XMLText.escape(target.href))</D:href>"
            properties[.calendarHomeSet] = "<D:href>\(XMLText.escape(DAVPath.home(user: owner).href))</D:href>"
            properties[.calendarUserAddressSet] = "<D:href>\(XMLText.escape(target.href))</D:href>"
            properties[.supportedReportSet] = Self.reports(Self.principalReports, namespace: "D")
        case .home(let owner):
            properties[.resourceType] = "<D:collection/>"
            properties[.displayName] = XMLText.escape(owner)
            properties[.owner] = "<D:href>\(XMLText.escape(DAVPath.principal(user: owner).href))</D:href>"
            // sync-collection is answered on calendars, not on the home (RFC 6578 lets a
            // server choose); the principal searches are answered everywhere.
            properties[.supportedReportSet] = Self.reports(Self.principalReports, namespace: "D")
        case .calendar(let owner, let name):
            let calendar = try self.calendar(named: name)
            properties[.resourceType] = "<D:collection/><C:calendar/>"
            properties[.displayName] = XMLText.escape(calendar.title)
            properties[.owner] = "<D:href>\(XMLText.escape(DAVPath.principal(user: owner).href))</D:href>"
            if let description = calendar.calendarDescription {
                properties[.calendarDescription] = XMLText.escape(description)
            }
            if let zone = calendar.timeZone, let timezone = Self.timezoneCalendar(zone) {
                properties[.calendarTimezone] = XMLText.escape(timezone)
            }
            if let color = calendar.color { properties[.calendarColor] = XMLText.escape(color) }
            properties[.calendarOrder] = String(calendar.order)
            properties[.supportedComponents] = ComponentType.allCases.filter(calendar.componentTypes.contains)
                .map { "<C:comp name=\"\($0.rawValue)\"/>" }.joined()
            properties[.supportedCalendarData] = "<C:calendar-data content-type=\"text/calendar\" version=\"2.0\"/>"
            properties[.maxResourceSize] = String(handler.maxResourceSize)
            properties[.getCTag] = XMLText.escape(calendar.ctag)
            properties[.syncToken] = XMLText.escape(calendar.syncToken.description)
            properties[.supportedReportSet] =
                Self.reports(["calendar-query", "calendar-multiget", "free-busy-query"], namespace: "C")
                + Self.reports(["sync-collection"] + Self.principalReports, namespace: "D")
            for (clark, value) in calendar.deadProperties {
                if let name = PropertyName(clark: clark) { properties[name] = value }
            }
        case .object(_, let calendarName, let name):
            let calendar = try self.calendar(named: calendarName)
            properties.merge(objectProperties(try store.resource(named: name, calendar: calendar.id).info)) { $1 }
        }
        return properties
    }

    static let privileges =
        "<D:privilege><D:read/></D:privilege><D:privilege><D:write/></D:privilege>"
        + "<D:privilege><D:write-properties/></D:privilege><D:privilege><D:write-content/></D:privilege>"
        + "<D:privilege><D:bind/></D:privilege><D:privilege><D:unbind/></D:privilege>"
        + "<D:privilege><D:read-current-user-privilege-set/></D:privilege>"

    /// The principal searches (RFC 3744 §9.4, §9.5), answered on every collection.
    static let principalReports = ["principal-property-search", "principal-search-property-set"]

    /// `supported-report` entries for reports in the namespace with this prefix.
    static func reports(_ names: [String], namespace: String) -> String {
        names.map { "<D:supported-report><D:report><\(namespace):\($0)/></D:report></D:supported-report>" }.joined()
    }

    /// A VCALENDAR holding the VTIMEZONE of an IANA zone (CALDAV:calendar-timezone).
    static func timezoneCalendar(_ zone: String) -> String? {
        guard let rules = TimeZoneDatabase.zone(named: zone) else { return nil }
        let now = 1_767_225_600  // 2026-01-01: the rules from a few years back to well ahead
        let component = VTimeZone.component(for: rules, from: now - 5 * 366 * 86_400, to: now + 30 * 366 * 86_400)
        return Component(
            name: "VCALENDAR",
            properties: [
                Property(name: "VERSION", value: "2.0"), Property(name: "PRODID", value: "-//Almanac//Almanac 0.1//EN"),
            ],
            components: [component]
        ).icalendarText
    }
}
