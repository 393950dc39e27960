/// Dead properties (RFC 4918 §4.3): a property a client sets that the server does not
/// interpret, kept and returned as it was set.
///
/// The calendar stores the whole property element as this writes it from the parsed
/// request: `<local xmlns="namespace" xml:lang="…">value</local>`, the property element
/// unprefixed in its own namespace and every element of the value with its prefix
/// declared on itself, so the element means the same wherever it is written (inside a
/// multistatus with other prefixes in scope). What §4.3 says a server MUST keep is there:
/// the property's name and the `xml:lang` in scope for it (its own, else one on an
/// enclosing `prop`, `set` or the root, §14.26); in the value every element's name,
/// attributes (prefixed ones with their namespace) and character data, white space
/// included; and, as §4.3 says a server SHOULD, the value's prefixes. Comments are dropped.
///
/// Nothing in the stored form comes from the request as markup: names are ones the XML
/// reader accepted (no markup characters can be in them), and namespaces, attribute values
/// and text are escaped here, so a stored value cannot close the element it is in.
///
/// Values stored before the element was kept are the value's inner XML (escaped text, or
/// elements written `<X:…`); ``element(_:as:)`` writes those inside a property element.
enum DeadProperty {
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"

    /// The stored form of a property element as set (with the `xml:lang` in scope already
    /// on it, ``properties(in:_:)``).
    static func stored(_ property: XMLElement) -> String {
        var output = ""
        write(property, isProperty: true, into: &output)
        return output
    }

    /// The property element to answer for a stored value.
    static func element(_ stored: String, as name: PropertyName) -> String {
        isElement(stored, of: name) ? stored : name.element(stored)
    }

    /// Whether a value is a whole property element as ``stored(_:language:)`` writes it for
    /// `name` (rather than the inner XML of a live property or of an older dead one).
    static func isElement(_ value: String, of name: PropertyName) -> Bool {
        // Every property of every response passes here: compare bytes, build nothing.
        var rest = value.utf8[...]
        guard rest.first == UInt8(ascii: "<") else { return false }
        rest = rest.dropFirst()
        for part in [name.name, " xmlns=\"", escapedAttribute(name.namespace), "\""] {
            guard rest.starts(with: part.utf8) else { return false }
            rest = rest.dropFirst(part.utf8.count)
        }
        return true
    }

    /// The property elements of each `set` or `remove` (`operation`) of a PROPPATCH,
    /// MKCALENDAR or MKCOL body, each with the `xml:lang` in scope for it as an attribute
    /// of its own (RFC 4918 §14.26: language tagging in the scope of `prop` is stored with
    /// the property).
    static func properties(in body: XMLElement, _ operation: String) -> [XMLElement] {
        body.children(DAVNamespace.dav, operation).flatMap { update in
            update.children(DAVNamespace.dav, "prop").flatMap { prop in
                let language =
                    prop.attributes["xml:lang"] ?? update.attributes["xml:lang"] ?? body.attributes["xml:lang"]
                return prop.children.map { property in
                    var property = property
                    if property.attributes["xml:lang"] == nil, let language {
                        property.attributes["xml:lang"] = language
                        property.attributeNamespaces["xml:lang"] = xmlNamespace
                    }
                    return property
                }
            }
        }
    }

    private static func write(_ element: XMLElement, isProperty: Bool, into output: inout String) {
        var attributes: [(name: String, value: String)] = []
        var declared: [String: String] = [:]
        let name: String
        if element.namespace == xmlNamespace {
            name = "xml:" + element.name
        } else if isProperty || element.prefix.isEmpty || element.namespace.isEmpty || element.prefix == "xml" {
            // No namespace (a sloppy client's undeclared prefix) is written unprefixed too,
            // as `xmlns:p=""` cannot be written.
            name = element.name
            attributes.append(("xmlns", element.namespace))
        } else {
            name = element.prefix + ":" + element.name
            declared[element.prefix] = element.namespace
            attributes.append(("xmlns:" + element.prefix, element.namespace))
        }
        for (key, value) in element.attributes.sorted(by: { $0.key < $1.key }) {
            guard let colon = key.firstIndex(of: ":") else {
                attributes.append((key, value))
                continue
            }
            let prefix = String(key[..<colon])
            let namespace = element.attributeNamespaces[key] ?? ""
            if prefix == "xml" {
                attributes.append((key, value))
            } else if namespace.isEmpty {
                // An undeclared prefix named no namespace: the attribute is written without
                // it, unless an unprefixed attribute of that name is there already.
                let local = String(key[key.index(after: colon)...])
                guard element.attributes[local] == nil, !attributes.contains(where: { $0.name == local }) else {
                    continue
                }
                attributes.append((local, value))
            } else {
                if declared[prefix] == nil {
                    declared[prefix] = namespace
                    attributes.append(("xmlns:" + prefix, namespace))
                }
                attributes.append((key, value))
            }
        }
        output += "<" + name
        for (key, value) in attributes { output += " \(key)=\"\(escapedAttribute(value))\"" }
        let runs = element.textRuns
        if element.children.isEmpty {
            let text = runs.first ?? element.text
            guard !text.isEmpty else {
                output += "/>"
                return
            }
            output += ">" + escapedText(text)
        } else {
            output += ">"
            if runs.isEmpty { output += escapedText(element.text) }
            for (index, child) in element.children.enumerated() {
                if index < runs.count { output += escapedText(runs[index]) }
                write(child, isProperty: false, into: &output)
            }
            if runs.count > element.children.count { output += escapedText(runs[element.children.count]) }
        }
        output += "</" + name + ">"
    }

    private static func escapedText(_ text: String) -> String {
        XMLText.escape(text, references: XMLText.textReferences)
    }

    private static func escapedAttribute(_ value: String) -> String {
        XMLText.escape(value, references: XMLText.attributeReferences)
    }
}
