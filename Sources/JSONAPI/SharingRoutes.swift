import CalendarStore
import HTTPTypes
import ICalendar
import JSON

// Sharing through the API: the owner lists, sets and removes a calendar's shares; a
// sharee reads their notifications and answers an invitation. A share set here is an
// invitation: it takes effect when the sharee accepts it (an account cannot push its
// calendars into another's views, alarms and busy time). Changing the access of an
// accepted share takes effect at once.
extension APIContext {
    static let shareFields: Set<String> = ["access", "invite", "summary"]

    /// GET /calendars/{id}/shares.
    func listShares(calendar identifier: String) throws(APIProblem) -> HTTPResponse {
        let shares = try attempt { () throws(StoreError) in try store.shares(ofCalendar: identifier) }
        return json(.object([("shares", .array(shares.map(Self.json)))]))
    }

    /// PUT /calendars/{id}/shares/{user}: `{"access": "read"|"read-write", "invite", "summary"}`.
    func putShare(calendar identifier: String, user sharee: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: Self.shareFields)
        guard case .string(let text)? = body["access"], let access = Access(rawValue: text) else {
            throw APIProblem(.invalidField, "access is read or read-write", fields: ["access"])
        }
        if let value = body["invite"] {
            guard case .bool(let flag) = value else { throw APIModel.wrongType("invite", "true or false") }
            guard flag else {
                throw APIProblem(
                    .invalidField,
                    "a share through the API is an invitation the sharee answers (\"invite\" is true or left out); the operator shares at once with almanac calendar share",
                    fields: ["invite"])
            }
        }
        let invite = true
        let summary = try body["summary"].flatMap { value throws(APIProblem) in
            try APIModel.optionalString(value, "summary")
        }
        let share = try attempt { () throws(StoreError) -> CalendarShare? in
            try store.share(calendar: identifier, with: sharee, access: access, invite: invite, summary: summary)
            return try store.shares(ofCalendar: identifier).first { $0.user == sharee }
        }
        guard let share else { throw APIProblem(.notFound, "the share of \(sharee) was removed meanwhile") }
        return json(Self.json(share))
    }

    /// DELETE /calendars/{id}/shares/{user}.
    func deleteShare(calendar identifier: String, user sharee: String) throws(APIProblem) -> HTTPResponse {
        try attempt { () throws(StoreError) in
            guard try store.shares(ofCalendar: identifier).contains(where: { $0.user == sharee }) else {
                throw StoreError(.notFound, "\(identifier) is not shared with \(sharee)", resource: sharee)
            }
            try store.share(calendar: identifier, with: sharee, access: nil)
        }
        return HTTPResponse(status: 204)
    }

    /// POST /calendars/{id}/answer: a sharee's `{"accept": true|false}` to an invitation
    /// (declining one already accepted leaves it). Accepting answers the calendar.
    func answerShare(calendar identifier: String) throws(APIProblem) -> HTTPResponse {
        let body = try body(allowing: ["accept"])
        guard case .bool(let accept)? = body["accept"] else {
            throw APIProblem(.invalidField, "accept is true or false", fields: ["accept"])
        }
        let calendar = try attempt { () throws(StoreError) in
            try store.answerShare(ofCalendar: identifier, accept: accept)
        }
        guard let calendar else { return HTTPResponse(status: 204) }
        return json(APIModel.json(calendar), etag: APIModel.etag(calendar))
    }

    /// GET /sharing/notifications: invitations, answers and removed shares, oldest first.
    func sharingNotifications() throws(APIProblem) -> HTTPResponse {
        _ = try query(allowing: [])
        let notes = try attempt { () throws(StoreError) in try store.sharingNotifications() }
        return json(.object([("notifications", .array(notes.map(Self.json)))]))
    }

    /// DELETE /sharing/notifications/{uid}.
    func deleteSharingNotification(_ uid: String) throws(APIProblem) -> HTTPResponse {
        try attempt { () throws(StoreError) in try store.removeSharingNotification(uid) }
        return HTTPResponse(status: 204)
    }

    static func json(_ share: CalendarShare) -> JSONValue {
        .object([
            ("user", .string(share.user)), ("displayName", share.displayName.map(JSONValue.string) ?? .null),
            ("access", .string(share.access.rawValue)), ("status", .string(share.status.rawValue)),
            ("summary", share.summary.map(JSONValue.string) ?? .null),
        ])
    }

    static func json(_ note: SharingNotification) -> JSONValue {
        .object([
            ("uid", .string(note.uid)), ("kind", .string(note.kind.rawValue)),
            ("createdAt", .string(utc(note.created))),
            ("from", .string(note.from)), ("calendar", .string(note.calendar)), ("title", .string(note.title)),
            ("owner", .string(note.hostOwner)), ("access", note.access.map { .string($0.rawValue) } ?? .null),
            ("status", .string(note.status.rawValue)), ("summary", note.summary.map(JSONValue.string) ?? .null),
            ("inReplyTo", note.inReplyTo.map(JSONValue.string) ?? .null),
        ])
    }
}
