import HTTPTypes

/// The WebDAV `If` request header (RFC 4918 §10.4): lists of conditions on entity tags
/// and state tokens, each list for the request's resource or for the resource its tag
/// names. RFC 6578 §5 makes a collection's `DAV:sync-token` one of its state tokens, so a
/// client can say "write this object only if the calendar is as I last synced it".
///
/// The header holds when one of its lists holds; a list holds when every condition in it
/// does. A request whose header does not hold is answered 412 and changes nothing. This
/// server has no locks, so a lock token (and `DAV:no-lock`) is never a resource's state.
struct IfHeader {
    /// One condition of a list: a state token or an entity tag the resource has (or,
    /// `negated`, has not).
    struct Condition {
        enum Kind {
            case stateToken(String)
            case entityTag(String)
        }

        var negated: Bool
        var kind: Kind
    }

    struct List {
        /// The resource the list is about (a tagged list's URL); nil for the request's own.
        var resource: String?
        var conditions: [Condition]
    }

    var lists: [List]

    /// What a resource is, for the conditions: its entity tag and its state tokens (nil
    /// and empty for a resource that is not there).
    struct State {
        var entityTag: String?
        var stateTokens: [String]
    }

    /// The longest header read (a client lists a few tags, never thousands).
    static let maximumLength = 16_384

    /// Reads the header's value (RFC 4918 §10.4.2's grammar); a value that is not one is
    /// a 400.
    init(_ value: String) throws(DAVError) {
        guard value.utf8.count <= Self.maximumLength else {
            throw DAVError(400, "the If header is longer than \(Self.maximumLength) bytes")
        }
        var scanner = Scanner(Array(value.utf8))
        var lists: [List] = []
        var resource: String?
        var tagged: Bool?
        while true {
            scanner.skipSpace()
            guard let byte = scanner.peek else { break }
            switch byte {
            case UInt8(ascii: "<"):
                // A Resource-Tag: the lists after it are about that resource.
                guard tagged != false else { throw Self.malformed("a resource tag after an untagged list") }
                tagged = true
                resource = try scanner.bracketed(UInt8(ascii: "<"), UInt8(ascii: ">"))
            case UInt8(ascii: "("):
                if tagged == nil { tagged = false }
                guard tagged == false || resource != nil else { throw Self.malformed("a list before its tag") }
                lists.append(List(resource: resource, conditions: try scanner.conditions()))
            default:
                throw Self.malformed("expected ( or <")
            }
        }
        guard !lists.isEmpty else { throw Self.malformed("no list of conditions") }
        self.lists = lists
    }

    static func malformed(_ detail: String) -> DAVError {
        DAVError(400, "the If header is not RFC 4918 §10.4's grammar: \(detail)")
    }

    /// Whether the header holds, reading the state of each resource a list is about
    /// (`nil` for the request's own) through `state`.
    func holds(_ state: (String?) -> State) -> Bool {
        var states: [String?: State] = [:]
        return lists.contains { list in
            let current = states[list.resource] ?? state(list.resource)
            states[list.resource] = current
            return list.conditions.allSatisfy { condition in
                let met: Bool
                switch condition.kind {
                case .stateToken(let token): met = current.stateTokens.contains(token)
                case .entityTag(let tag): met = current.entityTag.map { Self.opaque($0) == Self.opaque(tag) } ?? false
                }
                return met != condition.negated
            }
        }
    }

    /// The entity tag the header asks of the request's own resource when that is all it
    /// asks (one untagged list of one entity tag, RFC 4918 §10.4.8's lost-update check): a
    /// write hands it to the store as its If-Match, checked inside the write's transaction.
    var requestEntityTag: String? {
        guard lists.count == 1, lists[0].resource == nil, lists[0].conditions.count == 1,
            let condition = lists[0].conditions.first, !condition.negated,
            case .entityTag(let tag) = condition.kind
        else { return nil }
        return String(Self.opaque(tag))
    }

    /// An entity tag without its weakness mark: the If header compares the tags themselves.
    static func opaque(_ tag: String) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]
    }

    /// Reads the header's bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = peek, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { index += 1 }
        }

        /// The text between `open` and `close` (the scanner is at `open`).
        mutating func bracketed(_ open: UInt8, _ close: UInt8) throws(DAVError) -> String {
            index += 1
            let start = index
            while let byte = peek, byte != close {
                guard byte != open else { throw IfHeader.malformed("a nested \(Character(Unicode.Scalar(open)))") }
                index += 1
            }
            guard peek == close else { throw IfHeader.malformed("an unclosed \(Character(Unicode.Scalar(open)))") }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            index += 1
            return text
        }

        /// `( [Not] <state-token> | [Not] [entity-tag] … )`: at least one condition.
        mutating func conditions() throws(DAVError) -> [Condition] {
            index += 1
            var result: [Condition] = []
            while true {
                skipSpace()
                guard let byte = peek else { throw IfHeader.malformed("an unclosed list") }
                if byte == UInt8(ascii: ")") {
                    index += 1
                    guard !result.isEmpty else { throw IfHeader.malformed("an empty list") }
                    return result
                }
                var negated = false
                if bytes[index...].prefix(3).map({ $0 | 0x20 }) == Array("not".utf8) {
                    negated = true
                    index += 3
                    skipSpace()
                }
                switch peek {
                case UInt8(ascii: "<"):
                    result.append(
                        Condition(
                            negated: negated, kind: .stateToken(try bracketed(UInt8(ascii: "<"), UInt8(ascii: ">")))))
                case UInt8(ascii: "["):
                    result.append(
                        Condition(
                            negated: negated, kind: .entityTag(try bracketed(UInt8(ascii: "["), UInt8(ascii: "]")))))
                default:
                    throw IfHeader.malformed("a condition is <state-token> or [entity-tag]")
                }
            }
        }
    }
}

extension DAVContext {
    /// The entity tag a write must find on its resource, checked in the write's own
    /// transaction: `If-Match`, else an `If` header that asks only that (the header as a
    /// whole was checked before the method ran, ``ifHeaderRefusal()``).
    var ifMatch: String? {
        if let value = request.headers["If-Match"] { return value }
        return request.headers["If"].flatMap { try? IfHeader($0) }?.requestEntityTag
    }

    /// The 412 (or 400) for a request whose `If` header does not hold, nil when it holds
    /// or there is none. A calendar's state token is its sync token (RFC 6578 §5); an
    /// object's entity tag its ETag. A resource of another user's tree, or one that is
    /// not there, has neither.
    func ifHeaderRefusal() -> HTTPResponse? {
        guard let value = request.headers["If"] else { return nil }
        let header: IfHeader
        do {
            header = try IfHeader(value)
        } catch {
            return error.response
        }
        let holds = header.holds { resource in
            guard let target = resource.map({ DAVPath(requestPath: $0) }) ?? path, target.owner == user else {
                return IfHeader.State(entityTag: nil, stateTokens: [])
            }
            switch target {
            case .calendar(_, let name):
                guard let calendar = try? store.calendarHandle(named: name) else { break }
                return IfHeader.State(entityTag: nil, stateTokens: [calendar.calendar.syncToken.description])
            case .object(_, let calendar, let name):
                guard let calendar = try? store.calendarHandle(named: calendar),
                    let resource = try? store.resource(named: name, calendar: calendar)
                else { break }
                return IfHeader.State(entityTag: resource.info.etag, stateTokens: [])
            default: break
            }
            return IfHeader.State(entityTag: nil, stateTokens: [])
        }
        guard !holds else { return nil }
        return DAVError(412, "none of the If header's lists holds (RFC 4918 §10.4)").response
    }
}
