import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar

// Calendar sharing as iOS, macOS and DAVx5 speak it: the CalendarServer sharing
// extension (ccs-calendarserver caldav-sharing.txt). The owner POSTs CS:share to the
// calendar; the sharee finds an invitation in their notification collection and POSTs
// CS:invite-reply to their home; the calendar then appears in the sharee's home under
// a name of its own, CS:shared, with the privileges of its access.
extension DAVContext {
    /// POST to a calendar (CS:share, or a WebDAV-Push `push-register`), to the user's home
    /// (CS:invite-reply) or to their schedule outbox (a free-busy request, ``outboxPost()``).
    func post() -> HTTPResponse {
        if case .outbox = path { return outboxPost() }
        guard request.headers["Content-Type"]?.lowercased().contains("xml") ?? true else {
            return DAVError(
                415, "POST takes an XML body (CS:share or push-register on a calendar, CS:invite-reply on the home)"
            )
            .response
        }
        let body: XMLElement
        switch self.body() {
        case .success(let element): body = element
        case .failure(let failure): return failure.response
        }
        do throws(StoreError) {
            switch (path, body.namespace, body.name) {
            case (.calendar(_, let name), DAVNamespace.calendarServer, "share"):
                return try share(calendar: try calendar(named: name), body)
            case (.calendar(_, let name), DAVNamespace.push, "push-register"):
                return try pushRegister(calendar: try calendar(named: name), body)
            case (.home, DAVNamespace.calendarServer, "invite-reply"):
                return try inviteReply(body)
            case (.calendar, _, _):
                return DAVError(400, "POST to a calendar takes a CS:share or push-register body").response
            default:
                return DAVError(400, "POST to the calendar home takes a CS:invite-reply body").response
            }
        } catch {
            return DAVError(error).response
        }
    }

    /// CS:share: CS:set (an invitation, or a new access for one already invited) and
    /// CS:remove, one per sharee. Every sharee is resolved before anything changes.
    func share(calendar handle: CalendarHandle, _ body: XMLElement) throws(StoreError) -> HTTPResponse {
        guard handle.calendar.access == nil else {
            return DAVError(403, "only the owner shares a calendar", dav: "need-privileges").response
        }
        var changes: [(user: String, access: Access?, summary: String?)] = []
        for element in body.children where element.namespace == DAVNamespace.calendarServer {
            guard element.name == "set" || element.name == "remove" else { continue }
            guard let href = element.child(DAVNamespace.dav, "href")?.text, !href.isEmpty else {
                return DAVError(400, "each CS:\(element.name) names its sharee in a DAV:href").response
            }
            guard let sharee = try user(at: href) else {
                return DAVError(403, "\(href) is no user of this server", precondition: Self.validSharee).response
            }
            guard sharee != user else {
                return DAVError(403, "a calendar is not shared with its owner", precondition: Self.validSharee)
                    .response
            }
            if element.name == "remove" {
                changes.append((sharee, nil, nil))
            } else {
                let access: Access =
                    element.child(DAVNamespace.calendarServer, "read-write") != nil ? .readWrite : .read
                let summary = element.child(DAVNamespace.calendarServer, "summary")?.text
                changes.append((sharee, access, summary?.isEmpty == false ? summary : nil))
            }
        }
        guard !changes.isEmpty else { return DAVError(400, "CS:share names no CS:set or CS:remove").response }
        for change in changes {
            try store.share(
                calendar: handle.calendar.id, with: change.user, access: change.access, invite: true,
                summary: change.summary)
        }
        return HTTPResponse(status: 200)
    }

    /// CS:invite-reply: the sharee accepts or declines the invitation its `in-reply-to`
    /// (else its `hosturl`) names; with the notification deleted, the share its `hosturl`
    /// names, which can be answered until the owner withdraws it. Accepting answers
    /// CS:shared-as with where the calendar now is in their home.
    func inviteReply(_ body: XMLElement) throws(StoreError) -> HTTPResponse {
        let accepted = body.child(DAVNamespace.calendarServer, "invite-accepted") != nil
        guard accepted || body.child(DAVNamespace.calendarServer, "invite-declined") != nil else {
            return DAVError(400, "CS:invite-reply holds CS:invite-accepted or CS:invite-declined").response
        }
        let inReplyTo = body.child(DAVNamespace.calendarServer, "in-reply-to")?.text
        let host = body.child(DAVNamespace.calendarServer, "hosturl")?.child(DAVNamespace.dav, "href")?.text
        let hostPath = host.flatMap(DAVPath.init(requestPath:))
        let invitation = try store.sharingNotifications().last { note in
            guard note.kind == .invite else { return false }
            if let inReplyTo, !inReplyTo.isEmpty { return note.uid == inReplyTo }
            return hostPath == .calendar(user: note.hostOwner, name: note.hostName)
        }
        var shared = invitation?.calendar
        if shared == nil, case .calendar(let owner, let name)? = hostPath {
            shared = try store.sharedCalendarIdentifier(owner: owner, name: name)
        }
        guard let shared else {
            return DAVError(403, "no invitation of this user's matches the reply", precondition: Self.validSharee)
                .response
        }
        guard let calendar = try store.answerShare(ofCalendar: shared, accept: accepted) else {
            return HTTPResponse(status: 204)
        }
        let href = DAVPath.calendar(user: user, name: calendar.name).href
        let xml =
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<CS:shared-as\(DAVNamespace.declarations)>"
            + "<D:href>\(XMLText.escape(href))</D:href></CS:shared-as>\n"
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/xml; charset=utf-8"], body: Array(xml.utf8))
    }

    /// The user a sharee href names: their principal URL, or one of their e-mail
    /// addresses (`mailto:`); nil when it names nobody.
    func user(at href: String) throws(StoreError) -> String? {
        if href.lowercased().hasPrefix("mailto:") { return try handler.backend.user(withAddress: href)?.name }
        guard case .principal(let name) = DAVPath(requestPath: href) else { return nil }
        return try? handler.backend.user(named: name).name
    }

    /// The precondition of a share or reply that names no one it can reach.
    static let validSharee = PropertyName(DAVNamespace.calendarServer, "valid-sharee")

    // MARK: Properties

    /// What a calendar says of its sharing: CS:allowed-sharing-modes, and either the
    /// owner's CS:invite (every sharee with their access and answer) or a sharee's view
    /// (CS:shared in resourcetype, CS:shared-url, the owner as organizer).
    func sharingProperties(of calendar: EventCalendar, into properties: inout [PropertyName: String])
        throws(StoreError)
    {
        properties[.currentUserPrivilegeSet] = privileges(in: calendar)
        let ownerHref = "<D:href>\(XMLText.escape(DAVPath.principal(user: calendar.owner).href))</D:href>"
        let organizer =
            "<CS:organizer>\(ownerHref)<CS:common-name>\(XMLText.escape(calendar.owner))</CS:common-name></CS:organizer>"
        if let access = calendar.access {
            properties[.resourceType] = "<D:collection/><C:calendar/><CS:shared/>"
            properties[.owner] = ownerHref
            let shared = DAVPath.calendar(user: calendar.owner, name: calendar.ownerCollectionName).href
            properties[.sharedURL] = "<D:href>\(XMLText.escape(shared))</D:href>"
            properties[.invite] =
                organizer + "<CS:user><D:href>\(XMLText.escape(principalHref))</D:href>"
                + "<CS:invite-accepted/><CS:access>\(Self.accessElement(access))</CS:access></CS:user>"
            return
        }
        properties[.allowedSharingModes] = "<CS:can-be-shared/>"
        let shares = try store.shares(ofCalendar: calendar.id)
        guard !shares.isEmpty else { return }
        properties[.resourceType] = "<D:collection/><C:calendar/><CS:shared-owner/>"
        properties[.invite] =
            organizer
            + shares.map { share in
                "<CS:user><D:href>\(XMLText.escape(DAVPath.principal(user: share.user).href))</D:href>"
                    + "<CS:common-name>\(XMLText.escape(share.displayName ?? share.user))</CS:common-name>"
                    + Self.statusElement(share.status)
                    + "<CS:access>\(Self.accessElement(share.access))</CS:access>"
                    + (share.summary.map { "<CS:summary>\(XMLText.escape($0))</CS:summary>" } ?? "") + "</CS:user>"
            }.joined()
    }

    static func accessElement(_ access: Access) -> String { access == .readWrite ? "<CS:read-write/>" : "<CS:read/>" }

    static func statusElement(_ status: CalendarShare.Status) -> String {
        switch status {
        case .invited: "<CS:invite-noresponse/>"
        case .accepted: "<CS:invite-accepted/>"
        case .declined: "<CS:invite-declined/>"
        }
    }

    /// What the user may do with a calendar and its objects: everything with their own
    /// (read with a subscribed one); a read-write sharee everything too, as clients expect
    /// before they offer editing (its properties are the sharee's own: a PROPPATCH sets
    /// their name, colour, order and transparency, the rest stays the owner's); a read-only
    /// sharee read and free-busy. (A read-only sharee may still PROPPATCH their own
    /// properties; DAV:write-properties is left out because clients take it for a writable
    /// calendar.)
    func privileges(in calendar: EventCalendar?) -> String {
        // A subscribed calendar's objects come from its feed: read-only for everyone; a
        // read-only app password reads only, and says so before a client tries a write.
        if calendar?.subscriptionURL != nil || readOnly { return Self.readPrivileges }
        return switch calendar?.access {
        case nil, .readWrite: Self.privileges
        case .read: Self.readPrivileges
        }
    }

    // MARK: The notification collection

    /// The user's notifications as members of their collection, by file name.
    func notificationMembers() throws(StoreError) -> [(name: String, note: SharingNotification)] {
        try store.sharingNotifications().map { ("\($0.uid).xml", $0) }
    }

    /// The notification a file name in the collection names.
    func notification(named name: String) throws(StoreError) -> SharingNotification {
        guard let found = try notificationMembers().first(where: { $0.name == name }) else {
            throw StoreError(.notFound, "no notification \(name)", resource: name)
        }
        return found.note
    }

    /// Changes whenever a notification comes, goes or is answered (CS:getctag of the collection).
    static func notificationsTag(_ notes: [SharingNotification]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in notes.map({ "\($0.uid):\($0.status.rawValue);" }).joined().utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return "\"n-\(notes.count)-\(String(hash, radix: 16))\""
    }

    static func etag(_ note: SharingNotification) -> String { "\"\(note.uid)-\(note.status.rawValue)\"" }

    func notificationsProperties() throws(StoreError) -> [PropertyName: String] {
        [
            .resourceType: "<D:collection/><CS:notification/>",
            .displayName: "Notifications",
            .getCTag: XMLText.escape(Self.notificationsTag(try store.sharingNotifications())),
            .owner: "<D:href>\(XMLText.escape(principalHref))</D:href>",
        ]
    }

    func notificationProperties(_ note: SharingNotification) -> [PropertyName: String] {
        [
            .resourceType: "",
            .getETag: XMLText.escape(Self.etag(note)),
            .getContentType: "application/xml; charset=utf-8",
            .getContentLength: String(notificationXML(note).utf8.count),
            .getLastModified: CivilDateTime(secondsSinceEpoch: note.created).httpDate,
            .notificationType: note.kind == .reply ? "<CS:invite-reply/>" : "<CS:invite-notification/>",
        ]
    }

    /// A notification's body, as CalendarServer writes it.
    func notificationXML(_ note: SharingNotification) -> String {
        let stamp = DateTimeValue(CivilDateTime(secondsSinceEpoch: note.created), form: .utc).icalendarText
        let host =
            "<CS:hosturl><D:href>\(XMLText.escape(DAVPath.calendar(user: note.hostOwner, name: note.hostName).href))</D:href></CS:hosturl>"
        let from = "<D:href>\(XMLText.escape(DAVPath.principal(user: note.from).href))</D:href>"
        let summary = note.summary.map { "<CS:summary>\(XMLText.escape($0))</CS:summary>" } ?? ""
        let inner: String
        switch note.kind {
        case .invite, .removed:
            let status = note.kind == .removed ? "<CS:invite-deleted/>" : Self.statusElement(note.status)
            inner =
                "<CS:invite-notification shared-type=\"calendar\"><CS:uid>\(XMLText.escape(note.uid))</CS:uid>"
                + "<D:href>\(XMLText.escape(principalHref))</D:href>\(status)"
                + (note.access.map { "<CS:access>\(Self.accessElement($0))</CS:access>" } ?? "") + host
                + "<CS:organizer>\(from)<CS:common-name>\(XMLText.escape(note.from))</CS:common-name></CS:organizer>"
                + (summary.isEmpty ? "<CS:summary>\(XMLText.escape(note.title))</CS:summary>" : summary)
                + "</CS:invite-notification>"
        case .reply:
            inner =
                "<CS:invite-reply>\(from)\(Self.statusElement(note.status))\(host)"
                + (note.inReplyTo.map { "<CS:in-reply-to>\(XMLText.escape($0))</CS:in-reply-to>" } ?? "")
                + "<CS:summary>\(XMLText.escape(note.title))</CS:summary></CS:invite-reply>"
        }
        return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<CS:notification\(DAVNamespace.declarations)>"
            + "<CS:dtstamp>\(stamp)</CS:dtstamp><CS:uid>\(XMLText.escape(note.uid))</CS:uid>\(inner)</CS:notification>\n"
    }
}

extension PropertyName {
    static let invite = PropertyName(DAVNamespace.calendarServer, "invite")
    static let sharedURL = PropertyName(DAVNamespace.calendarServer, "shared-url")
    static let allowedSharingModes = PropertyName(DAVNamespace.calendarServer, "allowed-sharing-modes")
    static let notificationURL = PropertyName(DAVNamespace.calendarServer, "notification-URL")
    static let notificationType = PropertyName(DAVNamespace.calendarServer, "notificationtype")
}
