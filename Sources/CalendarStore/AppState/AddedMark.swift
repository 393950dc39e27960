/// A user's note that they added an event to a device calendar.
public struct AddedMark: Sendable, Hashable {
    /// The local identifier of the event added.
    public var eventIdentifier: String
    /// `ios`, `android` or `web`, when told.
    public var platform: String?
    /// The identifier the device's calendar gave the copy, when told.
    public var nativeIdentifier: String?
    /// Unix seconds.
    public var added: Int

    /// Creates a mark; `added` is set by the store when it is kept.
    public init(eventIdentifier: String, platform: String? = nil, nativeIdentifier: String? = nil, added: Int = 0) {
        self.eventIdentifier = eventIdentifier
        self.platform = platform
        self.nativeIdentifier = nativeIdentifier
        self.added = added
    }
}
