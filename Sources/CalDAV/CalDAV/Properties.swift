import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import Recurrence

// The live and dead properties of the CalDAV tree (RFC 4918 §15, RFC 4791 §5.2, §6.2):
// what PROPFIND reads and what PROPPATCH and MKCALENDAR may set.
extension DAVContext {
    /// The members listed at Depth 1, with the listing of each object (so its
    /// properties need no lookup of their own).
    /// A calendar's members come with the calendar, whose access decides their privileges.
    func members(of path: DAVPath) throws(StoreError) -> (
        members: [(path: DAVPath, info: ResourceInfo?)], calendar: EventCalendar?
    ) {
        switch path {
        case .root: return ([(.principal(user: user), nil), (.home(user: user), nil)], nil)
        // The principals the operator lets the user see (RFC 3744 §5.8: a subset is allowed).
        case .principals: return (try visiblePrincipals().map { (.principal(user: $0.name), nil) }, nil)
        case .principal, .object, .notification: return ([], nil)
        // The user's own calendars and those shared with them, under their names here.
        case .home(let owner):
            return (try store.calendars().map { (DAVPath.calendar(user: owner, name: $0.name), nil) }, nil)
        case .calendar(let owner, let name):
            let calendar = try self.calendar(named: name)
            let members = try store.resources(calendar: calendar).map {
                (DAVPath.object(user: owner, calendar: name, name: $0.name), Optional($0))
            }
            return (members, calendar.calendar)
        case .notifications(let owner):
            return (try notificationMembers().map { (.notification(user: owner, name: $0.name), nil) }, nil)
        case .inbox(let owner):
            return (
                try handler.backend.scheduling.inboxEntries(of: owner).map {
                    (.inboxItem(user: owner, name: $0.name), nil)
                },
                nil
            )
        case .inboxItem, .outbox, .pushRegistration: return ([], nil)
        }
    }

    /// The live properties of a calendar object.
    static let objectPropertyNames: [PropertyName] = [
        .currentUserPrincipal, .currentUserPrivilegeSet, .principalCollectionSet, .resourceType, .getETag,
        .getContentType, .getContentLength, .getLastModified, .supportedReportSet, .supportedCollationSet,
    ]

    /// One property of a calendar object, as inner XML, from its listing and its
    /// calendar; nil for a property objects do not have.
    func objectProperty(_ name: PropertyName, _ info: ResourceInfo, in calendar: EventCalendar) -> String? {
        switch name {
        case .getETag: XMLText.escape(info.etag)
        case .scheduleTag: info.scheduleTag.map { XMLText.escape($0) }
        case .getContentType: "text/calendar; charset=utf-8; component=\(info.componentType.rawValue)"
        case .getContentLength: String(info.size)
        case .getLastModified: CivilDateTime(secondsSinceEpoch: info.lastModified).httpDate
        case .resourceType: ""
        case .currentUserPrincipal: "<D:href>\(XMLText.escape(principalHref))</D:href>"
        case .currentUserPrivilegeSet: privileges(in: calendar)
        case .principalCollectionSet: Self.principalCollectionSet
        // What REPORT answers on an object (RFC 3253 §3.1.5; RFC 4791 §7, free-busy-query aside).
        case .supportedReportSet: Self.objectReports
        case .supportedCollationSet: Self.supportedCollations
        default: nil
        }
    }

    /// Every property of a calendar object (a scheduling object's schedule-tag too, which
    /// PROPFIND gives only when it is named, RFC 6638 §9.3).
    func objectProperties(_ info: ResourceInfo, in calendar: EventCalendar) -> [PropertyName: String] {
        var properties: [PropertyName: String] = [:]
        for name in Self.objectPropertyNames + [.scheduleTag] {
            properties[name] = objectProperty(name, info, in: calendar)
        }
        return properties
    }

    /// The asked properties of an object: those it has, with their values, and those it has not.
    func objectProperties(_ names: [PropertyName], _ info: ResourceInfo, in calendar: EventCalendar) -> (
        found: [(name: PropertyName, value: String)], missing: [PropertyName]
    ) {
        var found: [(name: PropertyName, value: String)] = []
        var missing: [PropertyName] = []
        for name in names {
            if let value = objectProperty(name, info, in: calendar) {
                found.append((name, value))
            } else {
                missing.append(name)
            }
        }
        return (found, missing)
    }

    /// Every live and dead property of a resource, as inner XML.
    func properties(of target: DAVPath) throws(StoreError) -> [PropertyName: String] {
        var properties: [PropertyName: String] = [
            .currentUserPrincipal: "<D:href>\(XMLText.escape(principalHref))</D:href>",
            .currentUserPrivilegeSet: privileges(in: nil),
            .principalCollectionSet: Self.principalCollectionSet,
        ]
        switch target {
        case .root:
            properties[.resourceType] = "<D:collection/>"
            properties[.displayName] = "Almanac"
            properties[.supportedReportSet] = Self.anywhereReports
        case .principals:
            properties[.resourceType] = "<D:collection/>"
            properties[.displayName] = "Principals"
            properties[.supportedReportSet] = Self.anywhereReports
        case .principal(let owner):
            properties.merge(try principalProperties(of: try handler.backend.user(named: owner))) { $1 }
        case .home(let owner):
            properties[.resourceType] = "<D:collection/>"
            properties[.displayName] = XMLText.escape(owner)
            properties[.owner] = "<D:href>\(XMLText.escape(DAVPath.principal(user: owner).href))</D:href>"
            // sync-collection is answered on calendars, not on the home (RFC 6578 lets a
            // server choose); the principal searches are answered everywhere.
            properties[.supportedReportSet] = Self.anywhereReports
            if owner == user, let availability = calendarAvailability(of: owner) {
                properties[.calendarAvailability] = XMLText.escape(availability)
            }
        case .calendar(let owner, let name):
            let calendar = try self.calendar(named: name).calendar
            properties[.resourceType] = "<D:collection/><C:calendar/>"
            properties[.displayName] = XMLText.escape(calendar.title)
            properties[.owner] = "<D:href>\(XMLText.escape(DAVPath.principal(user: owner).href))</D:href>"
            try sharingProperties(of: calendar, into: &properties)
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
            properties[.supportedCollationSet] = Self.supportedCollations
            properties[.getCTag] = XMLText.escape(calendar.ctag)
            properties[.syncToken] = XMLText.escape(calendar.syncToken.description)
            properties[.supportedReportSet] =
                Self.reports(["calendar-query", "calendar-multiget", "free-busy-query"], namespace: "C")
                + Self.reports(["sync-collection"], namespace: "D") + Self.anywhereReports
            // Whether the calendar's events make its owner busy (RFC 6638 §9.1): OPAQUE until
            // a client sets it (then its value, kept as set, answers below).
            properties[.scheduleCalendarTransp] = "<C:opaque/>"
            if let push = handler.push {
                properties.merge(push.properties(of: calendar)) { $1 }
            }
            for (clark, value) in calendar.deadProperties {
                if let name = PropertyName(clark: clark) { properties[name] = value }
            }
            // A sharee sees what they set for themselves over the owner's.
            if calendar.access != nil {
                for (clark, value) in try store.personalProperties(ofCalendar: calendar.id) {
                    if let name = PropertyName(clark: clark) { properties[name] = value }
                }
            }
        case .object(_, let calendarName, let name):
            let calendar = try self.calendar(named: calendarName)
            properties.merge(
                objectProperties(try store.resource(named: name, calendar: calendar).info, in: calendar.calendar)
            ) { $1 }
        case .notifications:
            properties.merge(try notificationsProperties()) { $1 }
        case .notification(_, let name):
            properties.merge(notificationProperties(try notification(named: name))) { $1 }
        case .inbox(let owner):
            properties.merge(try inboxProperties()) { $1 }
            if owner == user, let availability = calendarAvailability(of: owner) {
                properties[.calendarAvailability] = XMLText.escape(availability)
            }
        case .inboxItem(_, let name):
            properties.merge(Self.inboxMessageProperties(try inboxMessage(named: name))) { $1 }
        case .outbox:
            properties.merge(Self.outboxProperties(principalHref)) { $1 }
        case .pushRegistration:
            throw StoreError(.notFound, "a push registration has no properties")
        }
        // What a collection's GET answers (an object's and an item's are set above).
        if properties[.getContentType] == nil {
            properties[.getContentType] = "text/plain; charset=utf-8"
            properties[.getContentLength] = String(Self.collectionText(target).utf8.count)
        }
        return properties
    }

    /// The live properties of a user's principal (RFC 3744 §4, RFC 4791 §6.2), read from
    /// their account. Another user's principal (visible with `PrincipalVisibility.all`)
    /// is only read.
    func principalProperties(of account: User) throws(StoreError) -> [PropertyName: String] {
        let path = DAVPath.principal(user: account.name)
        let addresses = try handler.backend.addresses(ofUser: account.name)
        let href = "<D:href>\(XMLText.escape(path.href))</D:href>"
        return [
            .currentUserPrincipal: "<D:href>\(XMLText.escape(principalHref))</D:href>",
            .currentUserPrivilegeSet: account.name == user ? privileges(in: nil) : Self.readPrivileges,
            .principalCollectionSet: Self.principalCollectionSet,
            .resourceType: "<D:principal/>",
            .displayName: XMLText.escape(account.displayName ?? account.name),
            .principalURL: href,
            .owner: href,
            .calendarHomeSet: "<D:href>\(XMLText.escape(DAVPath.home(user: account.name).href))</D:href>",
            // The user's e-mail addresses first (clients take the first as theirs), then the principal.
            .calendarUserAddressSet: addresses.map { "<D:href>mailto:\(XMLText.escape($0))</D:href>" }.joined() + href,
            .notificationURL: "<D:href>\(XMLText.escape(DAVPath.notifications(user: account.name).href))</D:href>",
            .scheduleInboxURL: "<D:href>\(XMLText.escape(DAVPath.inbox(user: account.name).href))</D:href>",
            .scheduleOutboxURL: "<D:href>\(XMLText.escape(DAVPath.outbox(user: account.name).href))</D:href>",
            .calendarUserType: "INDIVIDUAL",
            .supportedReportSet: Self.anywhereReports,
        ]
    }

    /// Where the principals are (RFC 3744 §5.8), the same on every resource.
    static let principalCollectionSet = "<D:href>\(DAVPath.principals.href)</D:href>"

    /// What a user may do with another user's principal: read it.
    /// Reading includes seeing the calendar's busy time (RFC 4791 §6.1.1: CALDAV:read-free-busy
    /// is aggregated in DAV:read), which clients look for before a free-busy-query.
    static let readPrivileges =
        "<D:privilege><D:read/></D:privilege><D:privilege><C:read-free-busy/></D:privilege>"
        + "<D:privilege><D:read-current-user-privilege-set/></D:privilege>"

    static let privileges =
        "<D:privilege><D:read/></D:privilege><D:privilege><C:read-free-busy/></D:privilege>"
        + "<D:privilege><D:write/></D:privilege>"
        + "<D:privilege><D:write-properties/></D:privilege><D:privilege><D:write-content/></D:privilege>"
        + "<D:privilege><D:bind/></D:privilege><D:privilege><D:unbind/></D:privilege>"
        + "<D:privilege><D:read-current-user-privilege-set/></D:privilege>"

    /// The reports answered on every resource: the principal reports (RFC 3744 §9.2–§9.5)
    /// and expand-property (RFC 3253 §3.8), as `supported-report` entries.
    static let anywhereReports = reports(
        [
            "acl-principal-prop-set", "expand-property", "principal-match", "principal-property-search",
            "principal-search-property-set",
        ],
        namespace: "D")

    /// What a calendar object answers (RFC 4791 §7): calendar-query and calendar-multiget
    /// (free-busy-query "MUST fail" there, §7.10), and the reports answered everywhere.
    static let objectReports = reports(["calendar-query", "calendar-multiget"], namespace: "C") + anywhereReports

    /// The collations text-match takes (RFC 4791 §7.5.1), on every resource calendar-query answers.
    static let supportedCollations = QueryFilter.collations.map {
        "<C:supported-collation>\($0)</C:supported-collation>"
    }.joined()

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

    /// Applies property settings and removals to a calendar; the status of each.
    func apply(_ settings: [XMLElement], removals: [XMLElement], to calendar: inout EventCalendar) -> [(
        name: PropertyName, status: Int
    )] {
        var statuses: [(name: PropertyName, status: Int)] = []
        for element in settings {
            let name = PropertyName(element)
            var status = 200
            switch name {
            case .resourceType:
                status = element.child(DAVNamespace.caldav, "calendar") != nil ? 200 : 403
            case .displayName:
                calendar.title = element.text.isEmpty ? calendar.title : element.text
            case .calendarDescription:
                calendar.calendarDescription = element.text.isEmpty ? nil : element.text
            case .calendarColor:
                calendar.color = element.text.isEmpty ? nil : element.text
            case .calendarOrder:
                if let order = Int(element.text) { calendar.order = order } else { status = 400 }
            case .calendarTimezone:
                // RFC 4791 §5.2.2 (CALDAV:valid-calendar-data): an iCalendar object with one
                // VTIMEZONE, here one whose TZID names a zone this server knows.
                if let zone = Self.zoneName(fromTimezoneProperty: element.text) {
                    calendar.timeZone = zone
                } else {
                    status = 403
                }
            case .supportedComponents:
                let types = Set(
                    element.children(DAVNamespace.caldav, "comp").compactMap {
                        $0.attributes["name"].flatMap { ComponentType(rawValue: $0.uppercased()) }
                    })
                if types.isEmpty { status = 400 } else { calendar.componentTypes = types }
            case .getCTag, .syncToken, .getETag, .owner, .currentUserPrincipal, .currentUserPrivilegeSet,
                .supportedReportSet, .principalCollectionSet,
                .supportedCalendarData, .maxResourceSize, .supportedCollationSet:
                status = 403
            default:
                // A dead property: kept as given and returned as given (RFC 4918 §4.3).
                calendar.deadProperties[name.clark] = DeadProperty.stored(element)
            }
            statuses.append((name, status))
        }
        for element in removals {
            let name = PropertyName(element)
            switch name {
            case .calendarDescription: calendar.calendarDescription = nil
            case .calendarColor: calendar.color = nil
            case .calendarTimezone: calendar.timeZone = nil
            case .displayName, .calendarOrder: break
            default: calendar.deadProperties[name.clark] = nil
            }
            statuses.append((name, 200))
        }
        return statuses
    }

    /// The IANA zone a CALDAV:calendar-timezone names: its VTIMEZONE's TZID when that is
    /// an IANA name, or the IANA zone of a Windows name; nil otherwise.
    static func zoneName(fromTimezoneProperty text: String) -> String? {
        guard let calendar = try? ICalendarParser.parse(Array(text.utf8), options: .lenient).components.first,
            let timezone = calendar.components(named: "VTIMEZONE").first, let tzid = timezone.property("TZID")?.value
        else { return nil }
        if TimeZoneDatabase.zone(named: tzid) != nil { return tzid }
        return WindowsZones.ianaIdentifier(forWindowsName: tzid)
    }
}

extension EventCalendar {
    /// Whether a client set the calendar's `schedule-calendar-transp` (RFC 6638 §9.1) to
    /// TRANSPARENT: its events then make no one busy in scheduling free-busy answers.
    var isScheduleTransparent: Bool {
        guard let value = deadProperties[PropertyName.scheduleCalendarTransp.clark] else { return false }
        // An element named transparent (in whatever prefix the client used) inside it.
        return value.split(separator: "<").dropFirst().contains { tag in
            let name = tag.prefix { $0 != " " && $0 != "/" && $0 != ">" }
            return name == "transparent" || name.hasSuffix(":transparent")
        }
    }
}
