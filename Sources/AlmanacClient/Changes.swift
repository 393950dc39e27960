import Foundation

/// What changed in a calendar since a sync token (`GET /api/v1/calendars/{id}/changes`).
public struct ChangeListing: Sendable, Hashable, Codable {
    /// Each resource once, at its latest change, in change order.
    public var changes: [Change]
    /// The position after the last change listed: keep it and pass it as `since:` next time.
    public var token: String
    /// True when the limit cut the listing: ask again from ``token`` for the rest.
    public var more: Bool
    /// The link asking for what follows ``token``, with the same limit and include.
    public var next: String?
}

/// One resource's latest change.
public struct Change: Sendable, Hashable, Codable {
    /// `created` (absent at the token), `updated` (present at it) or `deleted`.
    public var type: Kind
    /// The resource's name in the calendar (its CalDAV href's last segment).
    public var name: String
    /// The event's identifier (nil only for deletions recorded before schema 9).
    public var eventID: String?
    /// The event's UID (nil only for deletions recorded before schema 9).
    public var uid: String?
    /// The change's position in the calendar's change log.
    public var sequence: Int
    /// Writes: the current strong ETag.
    public var etag: String?
    /// Writes: `VEVENT`, `VTODO` or `VJOURNAL`.
    public var componentType: String?
    /// Writes: the stored bytes' length.
    public var size: Int?
    /// Writes: when it was last written.
    public var lastModified: Date?
    /// Writes: the event in this API (`/api/v1/events/…`).
    public var href: String?
    /// Writes, with `includeData: true`: the iCalendar text as stored.
    public var data: String?

    enum CodingKeys: String, CodingKey {
        case type, name
        case eventID = "eventId"
        case uid, sequence, etag, componentType, size, lastModified, href, data
    }

    /// A change's kind.
    public struct Kind: RawRepresentable, Sendable, Hashable, Codable {
        /// The value as sent.
        public var rawValue: String
        /// The kind `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// New since the token (or deleted and written again).
        public static let created = Kind(rawValue: "created")
        /// Present at the token and written since.
        public static let updated = Kind(rawValue: "updated")
        /// Gone.
        public static let deleted = Kind(rawValue: "deleted")

        /// Reads the value from a JSON string.
        public init(from decoder: any Decoder) throws {
            rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Writes the value as a JSON string.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }
    }
}
