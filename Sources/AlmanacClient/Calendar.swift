import Foundation

/// A calendar of the signed-in user. (Named so that it does not hide Foundation's
/// `Calendar`.)
public struct AlmanacCalendar: Sendable, Hashable, Codable, Identifiable {
    /// The store's identifier, used in every path.
    public var id: String
    /// The title, unique per user only by convention (``AlmanacClient/findOrCreateCalendar(titled:creatingWith:idempotencyKey:)`` finds the first).
    public var title: String
    /// `#RRGGBB` or `#RRGGBBAA`, as given; a calendar created without one gets the palette
    /// colour the user's calendars use least.
    public var color: String?
    /// A description, or nil.
    public var description: String?
    /// The IANA zone for its all-day and floating events, or nil.
    public var timeZone: String?
    /// Where it sorts among the user's calendars.
    public var order: Int
    /// What it holds: `VEVENT`, `VTODO`, `VJOURNAL`.
    public var componentTypes: [String]
    /// The calendar's ETag (its sync token, quoted), for `ifMatch:`.
    public var etag: String

    enum CodingKeys: String, CodingKey {
        case id, title, color, description, timeZone, order, componentTypes, etag
    }

    /// Reads a calendar; members this client does not know are ignored, and members it
    /// knows but the answer lacks take their empty value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        title = try container.decodeIfPresent(String.self, forKey: .title) ?? ""
        color = try container.decodeIfPresent(String.self, forKey: .color)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        timeZone = try container.decodeIfPresent(String.self, forKey: .timeZone)
        order = try container.decodeIfPresent(Int.self, forKey: .order) ?? 0
        componentTypes = try container.decodeIfPresent([String].self, forKey: .componentTypes) ?? []
        etag = try container.decodeIfPresent(String.self, forKey: .etag) ?? ""
    }
}

/// What to set on a calendar: every member that is nil is left out of the request
/// (unchanged on an update, the default on a creation); the members in ``clearing``
/// are sent as `null`, which clears them.
public struct CalendarDraft: Sendable, Hashable, Encodable {
    /// The title (not empty).
    public var title: String?
    /// `#RRGGBB` or `#RRGGBBAA`.
    public var color: String?
    /// A description.
    public var description: String?
    /// An IANA zone name (`Europe/Berlin`).
    public var timeZone: String?
    /// Where it sorts.
    public var order: Int?
    /// What it may hold (`["VEVENT"]`).
    public var componentTypes: [String]?
    /// Members to clear (sent as `null`).
    public var clearing: Set<Member>

    /// The members that can be cleared.
    public enum Member: String, Sendable, Hashable, CaseIterable {
        case color, description, timeZone
    }

    /// A draft with the given members.
    public init(
        title: String? = nil, color: String? = nil, description: String? = nil, timeZone: String? = nil,
        order: Int? = nil, componentTypes: [String]? = nil, clearing: Set<Member> = []
    ) {
        self.title = title
        self.color = color
        self.description = description
        self.timeZone = timeZone
        self.order = order
        self.componentTypes = componentTypes
        self.clearing = clearing
    }

    /// Writes the members that are set, and `null` for those in ``clearing``.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encodeIfPresent(title, forKey: AnyKey("title"))
        try container.encodeIfPresent(color, forKey: AnyKey("color"))
        try container.encodeIfPresent(description, forKey: AnyKey("description"))
        try container.encodeIfPresent(timeZone, forKey: AnyKey("timeZone"))
        try container.encodeIfPresent(order, forKey: AnyKey("order"))
        try container.encodeIfPresent(componentTypes, forKey: AnyKey("componentTypes"))
        for member in clearing { try container.encodeNil(forKey: AnyKey(member.rawValue)) }
    }
}
