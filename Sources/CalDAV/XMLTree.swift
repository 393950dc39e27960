import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A parsed XML element, namespace-resolved: `{DAV:}propfind`.
public struct XMLElement: Sendable, Hashable {
    public var namespace: String
    public var name: String
    public var attributes: [String: String]
    public var children: [XMLElement]
    /// The element's own character data (trimmed of surrounding white space).
    public var text: String

    public init(namespace: String, name: String, attributes: [String: String] = [:], children: [XMLElement] = [], text: String = "") {
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

/// Reads request bodies with FoundationXML, refusing what could make a parser
/// expand entities or fetch anything: any DOCTYPE (so no entity declarations,
/// internal or external) is an error, as are deep nesting and too many elements.
public enum XMLBody {
    public static let maximumDepth = 64
    public static let maximumElements = 100_000

    public static func parse(_ bytes: [UInt8]) throws(XMLBodyError) -> XMLElement {
        // UTF-16 or UTF-32 would hide a declaration from the byte scan below (every ASCII
        // character in them has a NUL byte, which UTF-8 XML never has), and FoundationXML
        // traps on a name that is not UTF-8 (found by fuzzing): only valid UTF-8 goes on.
        if bytes.contains(0) || String(validating: bytes, as: UTF8.self) == nil {
            throw XMLBodyError(description: "an XML body is UTF-8 (this one is not)")
        }
        if containsDeclaration(bytes) {
            throw XMLBodyError(description: "DOCTYPE and entity declarations are not accepted")
        }
        // FoundationXML reads past the end of a processing instruction without data
        // (`<?x?>`, found by fuzzing); a DAV body needs none but the XML declaration.
        if containsProcessingInstruction(bytes) {
            throw XMLBodyError(description: "processing instructions are not accepted (only the <?xml …?> declaration)")
        }
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let problem = builder.problem { throw XMLBodyError(description: problem) }
        guard parsed, let root = builder.root else {
            throw XMLBodyError(description: "malformed XML: \(parser.parserError.map { "\($0)" } ?? "no root element")")
        }
        return root
    }

    /// Whether the bytes hold `<?` anywhere but an XML declaration (`<?xml` and white
    /// space) at the very start, after an optional byte-order mark.
    static func containsProcessingInstruction(_ bytes: [UInt8]) -> Bool {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        let declaration = Array("<?xml".utf8)
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else { continue }
            let end = index + declaration.count
            let isDeclaration = index == start && end < bytes.count && Array(bytes[index..<end]) == declaration
                && [0x20, 0x09, 0x0A, 0x0D].contains(bytes[end])
            if !isDeclaration { return true }
        }
        return false
    }

    /// Whether the bytes hold `<!DOCTYPE` or `<!ENTITY` (in any case), which a DAV body never needs.
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

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [XMLElement] = []
        var texts: [String] = []
        var root: XMLElement?
        var problem: String?
        var count = 0

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            count += 1
            if stack.count >= XMLBody.maximumDepth || count > XMLBody.maximumElements {
                problem = "the XML nests deeper than \(XMLBody.maximumDepth) or has more than \(XMLBody.maximumElements) elements"
                parser.abortParsing()
                return
            }
            stack.append(XMLElement(namespace: namespaceURI ?? "", name: elementName, attributes: attributes))
            texts.append("")
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if !texts.isEmpty { texts[texts.count - 1] += string }
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            if !texts.isEmpty { texts[texts.count - 1] += String(decoding: CDATABlock, as: UTF8.self) }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            guard var element = stack.popLast(), let text = texts.popLast() else { return }
            element.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if stack.isEmpty {
                root = element
            } else {
                stack[stack.count - 1].children.append(element)
            }
        }

        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            problem = "entity declarations are not accepted"
            parser.abortParsing()
        }

        func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
            problem = "entity declarations are not accepted"
            parser.abortParsing()
        }
    }
}

/// Writes XML text: elements with namespace prefixes declared once on the root.
public enum XMLText {
    /// Escapes character data and attribute values.
    public static func escape(_ text: String) -> String {
        // Most text has nothing to escape: hand it back without copying.
        guard text.utf8.contains(where: needsEscape) else { return text }
        var bytes: [UInt8] = []
        escape(text.utf8, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `bytes` (UTF-8) to `output`, escaped as character data.
    static func escape<Bytes: Collection<UInt8>>(_ bytes: Bytes, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.count + bytes.count / 16)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "&"): output += [0x26, 0x61, 0x6D, 0x70, 0x3B]  // &amp;
            case UInt8(ascii: "<"): output += [0x26, 0x6C, 0x74, 0x3B]  // &lt;
            case UInt8(ascii: ">"): output += [0x26, 0x67, 0x74, 0x3B]  // &gt;
            case UInt8(ascii: "\""): output += [0x26, 0x71, 0x75, 0x6F, 0x74, 0x3B]  // &quot;
            default: output.append(byte)
            }
        }
    }

    static func needsEscape(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
    }
}
