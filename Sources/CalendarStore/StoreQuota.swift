/// How much one user's calendars may hold: objects (calendar object resources) and
/// their bytes, counted over the calendars the user owns. Nil: no limit.
public struct StoreQuota: Sendable, Hashable {
    /// The most objects a user's calendars may hold; nil for no limit.
    public var maxObjects: Int?
    /// The most bytes their objects may take, counted as stored; nil for no limit.
    public var maxBytes: Int?

    /// A quota; nil for either means no limit on it.
    public init(maxObjects: Int? = nil, maxBytes: Int? = nil) {
        self.maxObjects = maxObjects
        self.maxBytes = maxBytes
    }
}
