/// A parsed XML element, namespace-resolved: `{DAV:}propfind`.
public struct XMLElement: Sendable, Hashable {
    public var namespace: String
    public var name: String
    public var attributes: [String: String]
    public var children: [XMLElement]
    /// The element's own character data (trimmed of surrounding white space).
    public var text: String
    /// The prefix the element's name was written with (empty for none), which a dead
    /// property's value keeps (RFC 4918 §4.3 SHOULD).
    var prefix = ""
    /// The namespace of each prefixed attribute, by its name as written (`x:kind`).
    var attributeNamespaces: [String: String] = [:]
    /// The character data exactly as read (references decoded, nothing trimmed), in the
    /// runs before, between and after the children: `children.count + 1` of them. Empty when
    /// ``text`` already says it all (no children and nothing to trim) or there is no text.
    /// A dead property's value keeps it (RFC 4918 §4.3: character children are preserved).
    var textRuns: [String] = []

    public init(
        namespace: String, name: String, attributes: [String: String] = [:], children: [XMLElement] = [],
        text: String = ""
    ) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// `{namespace}name`, the Clark notation used for dead properties.
    public var clarkName: String { "{\(namespace)}\(name)" }

    public func child(_ namespace: String, _ name: String) -> XMLElement? {
        children.first { $0.namespace == namespace && $0.name == name }
    }

    public func children(_ namespace: String, _ name: String) -> [XMLElement] {
        children.filter { $0.namespace == namespace && $0.name == name }
    }
}

/// Why a request body is not acceptable XML.
public struct XMLBodyError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

/// Reads request bodies with ``XMLReader``, refusing what could make a parser expand
/// entities or fetch anything: any DOCTYPE (so no entity declarations, internal or
/// external) is an error, as are processing instructions, deep nesting and too many
/// elements.
public enum XMLBody {
    public static let maximumDepth = 64
    public static let maximumElements = 100_000

    public static func parse(_ bytes: [UInt8]) throws(XMLBodyError) -> XMLElement {
        // UTF-16 or UTF-32 bodies (every ASCII character in them has a NUL byte, which
        // UTF-8 XML never has) and bytes that are not UTF-8 are refused before reading.
        if bytes.contains(0) || String(validating: bytes, as: UTF8.self) == nil {
            throw XMLBodyError(description: "an XML body is UTF-8 (this one is not)")
        }
        if containsDeclaration(bytes) {
            throw XMLBodyError(description: "DOCTYPE and entity declarations are not accepted")
        }
        var reader = XMLReader(bytes)
        return try reader.read()
    }

    /// Whether the bytes hold `<!DOCTYPE` or `<!ENTITY` (in any case), which a DAV body never
    /// needs (the reader refuses them too; this says why in the error).
    static func containsDeclaration(_ bytes: [UInt8]) -> Bool {
        let markers = [Array("<!DOCTYPE".utf8), Array("<!ENTITY".utf8)]
        guard bytes.count >= 8 else { return false }
        for index in 0..<bytes.count where bytes[index] == UInt8(ascii: "<") {
            for marker in markers where index + marker.count <= bytes.count {
                var matches = true
                for offset in 1..<marker.count {
                    var byte = bytes[index + offset]
                    if byte >= 0x61 && byte <= 0x7A { byte -= 0x20 }
                    if byte != marker[offset] {
                        matches = false
                        break
                    }
                }
                if matches { return true }
            }
        }
        return false
    }
}

/// Writes XML text: elements with namespace prefixes declared once on the root.
public enum XMLText {
    /// Escapes character data and attribute values. Bytes in `references` (white space a
    /// reader would normalize: a CR in text, a tab or line end in an attribute, XML 1.0
    /// §2.11, §3.3.3) are written as character references, so they read back as written.
    public static func escape(_ text: String, references: Set<UInt8> = []) -> String {
        // Most text has nothing to escape: hand it back without copying.
        guard text.utf8.contains(where: { needsEscape($0) || references.contains($0) }) else { return text }
        var bytes: [UInt8] = []
        escape(text.utf8, references: references, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `bytes` (UTF-8) to `output`, escaped as character data.
    static func escape<Bytes: Collection<UInt8>>(
        _ bytes: Bytes, references: Set<UInt8> = [], into output: inout [UInt8]
    ) {
        output.reserveCapacity(output.count + bytes.count + bytes.count / 16)
        // Which ASCII bytes are written otherwise, as two 64-bit masks: one test per byte
        // (calendar data is mostly plain, with a CR to reference on every line).
        // & (0x26), " (0x22) and < (0x3C), > (0x3E) are below 64; the references are added to them.
        var masks: (low: UInt64, high: UInt64) = (1 << 0x26 | 1 << 0x22 | 1 << 0x3C | 1 << 0x3E, 0)
        for byte in references where byte < 128 {
            if byte < 64 { masks.low |= 1 << UInt64(byte) } else { masks.high |= 1 << UInt64(byte - 64) }
        }
        for byte in bytes {
            let special =
                byte < 64
                ? masks.low >> UInt64(byte) & 1 != 0
                : byte < 128 ? masks.high >> UInt64(byte - 64) & 1 != 0 : references.contains(byte)
            guard special else {
                output.append(byte)
                continue
            }
            switch byte {
            case UInt8(ascii: "&"): output += [0x26, 0x61, 0x6D, 0x70, 0x3B]  // &amp;
            case UInt8(ascii: "<"): output += [0x26, 0x6C, 0x74, 0x3B]  // &lt;
            case UInt8(ascii: ">"): output += [0x26, 0x67, 0x74, 0x3B]  // &gt;
            case UInt8(ascii: "\""): output += [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B]  // &quot;
            default:
                // &#N; in decimal.
                output += [0x26, 0x23]
                if byte >= 100 { output.append(0x30 + byte / 100) }
                if byte >= 10 { output.append(0x30 + byte / 10 % 10) }
                output += [0x30 + byte % 10, 0x3B]
            }
        }
    }

    /// The references character data needs to read back as written (a CR, XML 1.0 §2.11).
    static let textReferences: Set<UInt8> = [0x0D]
    /// The references attribute values need (tab, LF and CR, XML 1.0 §3.3.3).
    static let attributeReferences: Set<UInt8> = [0x09, 0x0A, 0x0D]

    static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">")
            || byte == UInt8(ascii: "\"")
    }
}
