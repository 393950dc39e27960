/// A user's availability schedule as the store keeps it: an RFC 7953 VAVAILABILITY
/// (the calendar object's bytes, written and read by the Availability module's
/// `AvailabilitySchedule`), with a title and whether it is the user's default, which
/// everything that asks "when may this person be booked?" follows.
public struct StoredSchedule: Sendable, Hashable {
    /// `av_` and 24 hex digits.
    public var id: String
    /// The name of the user whose schedule it is.
    public var user: String
    /// 1 to 200 bytes; ``defaultTitle`` for a schedule made without one.
    public var title: String
    /// A VCALENDAR holding one VAVAILABILITY.
    public var data: [UInt8]
    /// Whether it is the user's default, which a booking type without a schedule follows.
    public var isDefault: Bool
    /// Unix seconds.
    public var created: Int
    /// Unix seconds; moves on with every save, so ``etag`` changes.
    public var modified: Int

    /// Creates a schedule with a new identifier; `created` and `modified` are set by the store.
    public init(
        id: String = StoredSchedule.newIdentifier(), user: String, title: String, data: [UInt8], isDefault: Bool,
        created: Int = 0, modified: Int = 0
    ) {
        self.id = id
        self.user = user
        self.title = title
        self.data = data
        self.isDefault = isDefault
        self.created = created
        self.modified = modified
    }

    /// Quoted, from the bytes: changes whenever the schedule does.
    public var etag: String { Identifiers.etag(for: data, sequence: modified) }

    /// The title of a schedule made without one.
    public static let defaultTitle = "Working hours"

    /// A new random identifier: `av_` and 24 hex digits.
    public static func newIdentifier() -> String { "av_" + Identifiers.randomHex(bytes: 12) }

    /// How many schedules a user may keep, and how large each may be.
    public static let maxPerUser = 50
    /// The largest ``data``: 256 KiB.
    public static let maxBytes = 256 << 10
}
