/// A namespace-aware reader of the XML that WebDAV and CalDAV bodies are made of
/// (XML 1.0 and Namespaces in XML 1.0), from bytes to an ``XMLElement`` tree.
///
/// It reads what DAV clients send — elements, attributes, namespace declarations,
/// character data, the five predefined entities and character references, CDATA
/// sections, comments, and the XML declaration — and refuses everything else with an
/// error: a DOCTYPE (so no entity can be declared or expanded), processing
/// instructions, undeclared prefixes, mismatched or unclosed tags, text or a second
/// element outside the root, control characters, and more than
/// ``XMLBody/maximumDepth`` levels or ``XMLBody/maximumElements`` elements.
///
/// It replaces FoundationXML's `XMLParser`, which on Linux trapped on a name that is
/// not UTF-8, read past the end of an empty processing instruction, and leaked about
/// 300 bytes for every malformed document (all found by fuzzing).
struct XMLReader {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// An element being read: what it will be, its tag as written, and the namespace
    /// declarations in scope for its content.
    private struct Open {
        var element: XMLElement
        var tag: ArraySlice<UInt8>
        var scope: [String: String]
        var text: [UInt8] = []
        /// Where in `text` each child began (the ends of the runs before them).
        var childOffsets: [Int] = []

        /// Adds a finished child, marking where the character data around it splits.
        mutating func append(_ child: XMLElement) {
            childOffsets.append(text.count)
            element.children.append(child)
        }

        /// The element, with its text trimmed and, when that loses anything, its runs.
        consuming func finished() -> XMLElement {
            var element = element
            element.text = XMLReader.trimmed(text)
            if childOffsets.isEmpty {
                if !text.isEmpty, element.text.utf8.count != text.count {
                    element.textRuns = [String(decoding: text, as: UTF8.self)]
                }
            } else if !text.isEmpty {
                var start = 0
                for end in childOffsets + [text.count] {
                    element.textRuns.append(String(decoding: text[start..<end], as: UTF8.self))
                    start = end
                }
            }
            return element
        }
    }

    private static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    private func fail(_ message: String) -> XMLBodyError {
        XMLBodyError(description: "malformed XML at byte \(index): \(message)")
    }

    mutating func read() throws(XMLBodyError) -> XMLElement {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        if starts(with: "<?xml"), index + 5 < bytes.count, Self.isSpace(bytes[index + 5]) {
            guard let end = find("?>", from: index) else { throw fail("the XML declaration is not closed") }
            index = end + 2
        }
        try skipMisc()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "<") else { throw fail("expected the root element") }
        var stack: [Open] = []
        var count = 0
        var root: XMLElement?
        let initialScope = ["xml": Self.xmlNamespace]
        while root == nil {
            guard index < bytes.count else {
                throw fail("unclosed element <\(String(decoding: stack.last?.tag ?? [], as: UTF8.self))>")
            }
            if bytes[index] != UInt8(ascii: "<") {
                // Character data of the open element.
                guard !stack.isEmpty else { throw fail("text outside the root element") }
                let start = index
                while index < bytes.count, bytes[index] != UInt8(ascii: "<") { index += 1 }
                try decode(bytes[start..<index], into: &stack[stack.count - 1].text, attribute: false)
                continue
            }
            if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<![CDATA[") {
                guard !stack.isEmpty else { throw fail("CDATA outside the root element") }
                guard let end = find("]]>", from: index + 9) else { throw fail("a CDATA section is not closed") }
                let content = bytes[(index + 9)..<end]
                try checkCharacters(content)
                stack[stack.count - 1].text += Self.normalizedLineEnds(content)
                index = end + 3
            } else if starts(with: "</") {
                index += 2
                let tag = try name()
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ">") else {
                    throw fail("expected > after the end tag")
                }
                index += 1
                guard let open = stack.popLast() else { throw fail("an end tag without a start tag") }
                guard open.tag.elementsEqual(tag) else {
                    throw fail(
                        "</\(String(decoding: tag, as: UTF8.self))> closes <\(String(decoding: open.tag, as: UTF8.self))>"
                    )
                }
                let element = open.finished()
                if stack.isEmpty {
                    root = element
                } else {
                    stack[stack.count - 1].append(element)
                }
            } else if starts(with: "<?") || starts(with: "<!") {
                throw fail("DOCTYPE, declarations and processing instructions are not accepted")
            } else {
                count += 1
                guard stack.count < XMLBody.maximumDepth, count <= XMLBody.maximumElements else {
                    throw XMLBodyError(
                        description:
                            "the XML nests deeper than \(XMLBody.maximumDepth) or has more than \(XMLBody.maximumElements) elements"
                    )
                }
                let (open, isEmpty) = try startTag(scope: stack.last?.scope ?? initialScope)
                if isEmpty {
                    if stack.isEmpty {
                        root = open.element
                    } else {
                        stack[stack.count - 1].append(open.element)
                    }
                } else {
                    stack.append(open)
                }
            }
        }
        try skipMisc()
        guard index == bytes.count else { throw fail("content after the root element") }
        return root!
    }

    /// `<name attributes…>` or `<name …/>`, with its namespaces resolved.
    private mutating func startTag(scope parent: [String: String]) throws(XMLBodyError) -> (Open, isEmpty: Bool) {
        index += 1
        let tag = try name()
        var raw: [(name: ArraySlice<UInt8>, value: String)] = []
        // The names seen, so a repeated one is found in constant time (a tag may carry as many
        // attributes as the body has room for).
        var seen = Set<ArraySlice<UInt8>>()
        var scope = parent
        while true {
            let hadSpace = skipSpace()
            guard index < bytes.count else { throw fail("a start tag is not closed") }
            if bytes[index] == UInt8(ascii: ">") || starts(with: "/>") { break }
            guard hadSpace else { throw fail("expected white space between attributes") }
            let attribute = try name()
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                throw fail("expected = after an attribute name")
            }
            index += 1
            skipSpace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
                throw fail("an attribute value is quoted")
            }
            let quote = bytes[index]
            index += 1
            let start = index
            while index < bytes.count, bytes[index] != quote {
                guard bytes[index] != UInt8(ascii: "<") else { throw fail("< in an attribute value") }
                index += 1
            }
            guard index < bytes.count else { throw fail("an attribute value is not closed") }
            var value: [UInt8] = []
            try decode(bytes[start..<index], into: &value, attribute: true)
            index += 1
            guard seen.insert(attribute).inserted else {
                throw fail("the attribute \(String(decoding: attribute, as: UTF8.self)) appears twice")
            }
            let text = String(decoding: value, as: UTF8.self)
            if attribute.elementsEqual("xmlns".utf8) {
                scope[""] = text
            } else if attribute.starts(with: "xmlns:".utf8) {
                let prefix = String(decoding: attribute.dropFirst(6), as: UTF8.self)
                guard !text.isEmpty, prefix != "xmlns" else { throw fail("a namespace prefix must name a namespace") }
                scope[prefix] = text
            }
            raw.append((attribute, text))
        }
        let isEmpty = bytes[index] == UInt8(ascii: "/")
        index += isEmpty ? 2 : 1
        let (namespace, local) = try resolve(tag, in: scope, isAttribute: false)
        var element = XMLElement(namespace: namespace, name: local)
        if let colon = tag.firstIndex(of: UInt8(ascii: ":")) {
            element.prefix = String(decoding: tag[..<colon], as: UTF8.self)
        }
        for (attribute, value) in raw
        where !attribute.elementsEqual("xmlns".utf8) && !attribute.starts(with: "xmlns:".utf8) {
            // Unprefixed attributes are in no namespace and keep their name; prefixed ones keep
            // the name as written, with the namespace their prefix names.
            let (attributeNamespace, _) = try resolve(attribute, in: scope, isAttribute: true)
            let name = String(decoding: attribute, as: UTF8.self)
            element.attributes[name] = value
            if attribute.contains(UInt8(ascii: ":")) { element.attributeNamespaces[name] = attributeNamespace }
        }
        return (Open(element: element, tag: tag, scope: scope), isEmpty)
    }

    /// The namespace and local part of a qualified name.
    private func resolve(_ qualified: ArraySlice<UInt8>, in scope: [String: String], isAttribute: Bool)
        throws(XMLBodyError) -> (String, String)
    {
        guard let colon = qualified.firstIndex(of: UInt8(ascii: ":")) else {
            return (isAttribute ? "" : scope[""] ?? "", String(decoding: qualified, as: UTF8.self))
        }
        let prefix = String(decoding: qualified[..<colon], as: UTF8.self)
        let local = qualified[(colon + 1)...]
        guard !prefix.isEmpty, !local.isEmpty, !local.contains(UInt8(ascii: ":")) else {
            throw fail("\(String(decoding: qualified, as: UTF8.self)) is not a qualified name")
        }
        // An undeclared prefix (a sloppy client's) puts the name in no namespace, as
        // libxml2 reads it: it then matches no DAV name, rather than failing the request.
        return (scope[prefix] ?? "", String(decoding: local, as: UTF8.self))
    }

    /// An XML name: a letter, `_`, `:` or any non-ASCII character, then those, digits, `-` and `.`.
    private mutating func name() throws(XMLBodyError) -> ArraySlice<UInt8> {
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            let isStart = Self.isLetter(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte >= 0x80
            let isLater =
                isStart || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard index == start ? isStart : isLater else { break }
            index += 1
        }
        guard index > start else { throw fail("expected a name") }
        return bytes[start..<index]
    }

    /// Character data or an attribute value with its references replaced (and, for an
    /// attribute, white space characters as spaces; XML 1.0 §3.3.3), appended to `output`.
    private func decode(_ raw: ArraySlice<UInt8>, into output: inout [UInt8], attribute: Bool) throws(XMLBodyError) {
        try checkCharacters(raw)
        var position = raw.startIndex
        var previousWasCR = false
        while position < raw.endIndex {
            let byte = raw[position]
            if byte == UInt8(ascii: "&") {
                guard let semicolon = raw[position...].firstIndex(of: UInt8(ascii: ";")), semicolon - position <= 12
                else {
                    throw fail("& starts no reference")
                }
                let reference = String(decoding: raw[(position + 1)..<semicolon], as: UTF8.self)
                guard let scalar = Self.referenced(reference) else {
                    throw fail("&\(reference); is not a known reference")
                }
                output.append(contentsOf: Array(String(Character(scalar)).utf8))
                position = semicolon + 1
                previousWasCR = false
                continue
            }
            if byte == UInt8(ascii: "]"), raw[position...].starts(with: "]]>".utf8), !attribute {
                throw fail("]]> in character data")
            }
            // Line ends become LF (§2.11); in attributes every white space character a space.
            if byte == 0x0D {
                output.append(attribute ? 0x20 : 0x0A)
            } else if byte == 0x0A {
                if !previousWasCR { output.append(attribute ? 0x20 : 0x0A) }
            } else if byte == 0x09, attribute {
                output.append(0x20)
            } else {
                output.append(byte)
            }
            previousWasCR = byte == 0x0D
            position += 1
        }
    }

    /// The character a reference names: `lt`, `gt`, `amp`, `quot`, `apos`, `#N` or `#xH`.
    private static func referenced(_ reference: String) -> Unicode.Scalar? {
        switch reference {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default: break
        }
        guard reference.hasPrefix("#") else { return nil }
        let digits = reference.dropFirst()
        let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        guard let value, let scalar = Unicode.Scalar(value), isXMLCharacter(value) else { return nil }
        return scalar
    }

    /// XML 1.0 §2.2: tab, LF, CR and from U+0020 on (the surrogates are not scalars).
    private static func isXMLCharacter(_ value: UInt32) -> Bool {
        value == 0x09 || value == 0x0A || value == 0x0D || (value >= 0x20 && value != 0xFFFE && value != 0xFFFF)
    }

    /// Refuses control characters (the body is already known to be UTF-8).
    private func checkCharacters(_ raw: ArraySlice<UInt8>) throws(XMLBodyError) {
        if raw.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) {
            throw fail("a control character")
        }
    }

    private static func normalizedLineEnds(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var previousWasCR = false
        for byte in raw {
            if byte == 0x0D {
                output.append(0x0A)
            } else if byte != 0x0A || !previousWasCR {
                output.append(byte)
            }
            previousWasCR = byte == 0x0D
        }
        return output
    }

    fileprivate static func trimmed(_ text: [UInt8]) -> String {
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(decoding: text[first...last], as: UTF8.self)
    }

    /// White space and comments (before and after the root element).
    private mutating func skipMisc() throws(XMLBodyError) {
        while true {
            skipSpace()
            guard starts(with: "<!--") else { return }
            try skipComment()
        }
    }

    private mutating func skipComment() throws(XMLBodyError) {
        guard let end = find("-->", from: index + 4) else { throw fail("a comment is not closed") }
        try checkCharacters(bytes[(index + 4)..<end])
        index = end + 3
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    private func starts(with text: String) -> Bool { bytes[index...].starts(with: text.utf8) }

    /// Where `text` next occurs at or after `start`.
    private func find(_ text: String, from start: Int) -> Int? {
        let needle = Array(text.utf8)
        guard start <= bytes.count - needle.count else { return nil }
        var position = start
        while position <= bytes.count - needle.count {
            if bytes[position] == needle[0], bytes[position..<(position + needle.count)].elementsEqual(needle) {
                return position
            }
            position += 1
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }
}
