/// A property's qualified name.
public struct PropertyName: Hashable, Sendable {
    public var namespace: String
    public var name: String

    public init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    init(_ element: XMLElement) {
        self.init(element.namespace, element.name)
    }

    /// `{namespace}name`.
    public var clark: String { "{\(namespace)}\(name)" }

    /// Reads Clark notation.
    init?(clark: String) {
        guard clark.hasPrefix("{"), let close = clark.firstIndex(of: "}") else { return nil }
        self.init(
            String(clark[clark.index(after: clark.startIndex)..<close]), String(clark[clark.index(after: close)...]))
    }

    /// The element with `inner` XML as its content (empty element when `inner` is empty).
    func element(_ inner: String) -> String {
        let (open, close): (String, String)
        if let prefix = DAVNamespace.prefix(for: namespace) {
            open = "\(prefix):\(name)"
            close = open
        } else {
            open = "X:\(name) xmlns:X=\"\(XMLText.escape(namespace))\""
            close = "X:\(name)"
        }
        return inner.isEmpty ? "<\(open)/>" : "<\(open)>\(inner)</\(close)>"
    }
}

extension PropertyName {
    static let resourceType = PropertyName(DAVNamespace.dav, "resourcetype")
    static let displayName = PropertyName(DAVNamespace.dav, "displayname")
    static let currentUserPrincipal = PropertyName(DAVNamespace.dav, "current-user-principal")
    static let principalURL = PropertyName(DAVNamespace.dav, "principal-URL")
    static let owner = PropertyName(DAVNamespace.dav, "owner")
    static let supportedReportSet = PropertyName(DAVNamespace.dav, "supported-report-set")
    static let principalCollectionSet = PropertyName(DAVNamespace.dav, "principal-collection-set")
    static let currentUserPrivilegeSet = PropertyName(DAVNamespace.dav, "current-user-privilege-set")
    static let getETag = PropertyName(DAVNamespace.dav, "getetag")
    static let getContentType = PropertyName(DAVNamespace.dav, "getcontenttype")
    static let getContentLength = PropertyName(DAVNamespace.dav, "getcontentlength")
    static let getLastModified = PropertyName(DAVNamespace.dav, "getlastmodified")
    static let syncToken = PropertyName(DAVNamespace.dav, "sync-token")
    static let calendarHomeSet = PropertyName(DAVNamespace.caldav, "calendar-home-set")
    /// RFC 7953 §7: the user's availability (on the calendar home here).
    static let calendarAvailability = PropertyName(DAVNamespace.caldav, "calendar-availability")
    static let calendarUserAddressSet = PropertyName(DAVNamespace.caldav, "calendar-user-address-set")
    static let calendarDescription = PropertyName(DAVNamespace.caldav, "calendar-description")
    static let calendarTimezone = PropertyName(DAVNamespace.caldav, "calendar-timezone")
    static let supportedComponents = PropertyName(DAVNamespace.caldav, "supported-calendar-component-set")
    static let supportedCalendarData = PropertyName(DAVNamespace.caldav, "supported-calendar-data")
    static let maxResourceSize = PropertyName(DAVNamespace.caldav, "max-resource-size")
    static let supportedCollationSet = PropertyName(DAVNamespace.caldav, "supported-collation-set")
    static let getCTag = PropertyName(DAVNamespace.calendarServer, "getctag")
    static let calendarColor = PropertyName(DAVNamespace.apple, "calendar-color")
    static let calendarOrder = PropertyName(DAVNamespace.apple, "calendar-order")
    /// WebDAV-Push: the transports a collection is pushed over, its topic, and which
    /// changes a registration may ask for.
    static let pushTransports = PropertyName(DAVNamespace.push, "transports")
    static let pushTopic = PropertyName(DAVNamespace.push, "topic")
    static let pushSupportedTriggers = PropertyName(DAVNamespace.push, "supported-triggers")
}
