/// How much one user's calendars may hold: objects (calendar object resources) and
/// their bytes, counted over the calendars the user owns. Nil: no limit.
public struct StoreQuota: Sendable, Hashable {
    public var maxObjects: Int?
    public var maxBytes: Int?

    public init(maxObjects: Int? = nil, maxBytes: Int? = nil) {
        self.maxObjects = maxObjects
        self.maxBytes = maxBytes
    }
}
