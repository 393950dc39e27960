/// A property parameter (RFC 5545 §3.2), such as `TZID=Europe/Berlin` or
/// `MEMBER="mailto:a@example.com","mailto:b@example.com"`.
public struct Parameter: Sendable, Hashable {
    /// The name, upper-cased (parameter names are case-insensitive).
    public var name: String
    // Nearly every parameter has one value; keeping it apart saves an array per parameter.
    private(set) var first: String
    private(set) var rest: [String]

    /// Creates a parameter; `name` is upper-cased.
    public init(name: String, values: [String]) {
        self.init(uncheckedName: name.uppercased(), values: values)
    }

    /// Creates a single-valued parameter; `name` is upper-cased.
    public init(name: String, value: String) {
        self.init(uncheckedName: name.uppercased(), value: value)
    }

    init(uncheckedName name: String, values: [String]) {
        self.name = name
        first = values.first ?? ""
        rest = Array(values.dropFirst())
    }

    init(uncheckedName name: String, value: String) {
        self.init(uncheckedName: name, first: value, rest: [])
    }

    init(uncheckedName name: String, first: String, rest: [String]) {
        self.name = name
        self.first = first
        self.rest = rest
    }

    /// The values, with quotes removed and RFC 6868 caret escapes decoded.
    public var values: [String] {
        get { rest.isEmpty ? [first] : [first] + rest }
        set {
            first = newValue.first ?? ""
            rest = Array(newValue.dropFirst())
        }
    }

    /// The values joined by commas, as a single-valued parameter is usually read.
    public var value: String { rest.isEmpty ? first : values.joined(separator: ",") }

    /// Bytes the values take when written: each value, a separator and room for quotes.
    var writtenLength: Int {
        var length = first.utf8.count + 3
        for value in rest { length += value.utf8.count + 3 }
        return length
    }
}

/// A content line's property (RFC 5545 §3.5): a name, parameters and a value.
///
/// The value is kept exactly as written in the iCalendar text (TEXT escapes
/// such as `\,` intact), so nothing is lost when the property is written back.
/// Typed accessors (``textValue()``, ``dateTimeValue()``, ``recurrenceRule()``,
/// …) read it as the value type RFC 5545 defines.
public struct Property: Sendable, Hashable {
    /// The name, upper-cased (property names are case-insensitive).
    public var name: String
    /// The parameters in the order they were written.
    public var parameters: [Parameter]
    var storage: ValueStorage

    /// The value as iCalendar text (escaped where its type escapes).
    ///
    /// A raw value can never hold a line break: a CR or LF set here is stored as the
    /// TEXT escape `\n`, so no caller can start a content line of its own (a URL ending
    /// in `\r\nRRULE:…` stays one property). Callers that must refuse such values say
    /// so first (``ValueCharacters``).
    public var value: String {
        get { storage.string }
        set { storage = .string(ValueCharacters.withoutLineBreaks(newValue)) }
    }

    /// Creates a property from its raw iCalendar value; `name` is upper-cased. A line
    /// break in `value` is stored as `\n` (see ``value``).
    public init(name: String, parameters: [Parameter] = [], value: String) {
        self.name = name.uppercased()
        self.parameters = parameters
        self.storage = .string(ValueCharacters.withoutLineBreaks(value))
    }

    init(uncheckedName name: String, parameters: [Parameter], value: String) {
        self.name = name
        self.parameters = parameters
        self.storage = .string(value)
    }

    init(uncheckedName name: String, parameters: [Parameter], storage: ValueStorage) {
        self.name = name
        self.parameters = parameters
        self.storage = storage
    }

    /// Calls `body` with the value's UTF-8 bytes, without making a `String`.
    func withValueBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try storage.withBytes(body)
    }

    public static func == (lhs: Property, rhs: Property) -> Bool {
        lhs.name == rhs.name && lhs.parameters == rhs.parameters
            && lhs.withValueBytes { left in rhs.withValueBytes { right in left.elementsEqual(right) } }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(parameters)
        withValueBytes { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// The first parameter with this name (case-insensitive), if any.
    public func parameter(_ name: String) -> Parameter? {
        let wanted = name.uppercased()
        return parameters.first { $0.name == wanted }
    }

    /// The value of the first parameter with this name (values joined by commas).
    public subscript(parameter name: String) -> String? {
        get { parameter(name)?.value }
        set {
            let wanted = name.uppercased()
            if let newValue {
                if let index = parameters.firstIndex(where: { $0.name == wanted }) {
                    parameters[index].values = [newValue]
                } else {
                    parameters.append(Parameter(uncheckedName: wanted, value: newValue))
                }
            } else {
                parameters.removeAll { $0.name == wanted }
            }
        }
    }
}

extension Property: CustomStringConvertible {
    /// The property as one iCalendar content line, unfolded (for messages and debugging).
    public var description: String {
        var text = name
        for parameter in parameters { text += ";" + parameter.name + "=" + parameter.values.joined(separator: ",") }
        return text + ":" + value
    }
}

/// A component (RFC 5545 §3.6): `VCALENDAR`, `VEVENT`, `VALARM`, an IANA or
/// `X-` component, with its properties and nested components in order.
public struct Component: Sendable, Hashable {
    /// The name, upper-cased.
    public var name: String
    /// The properties in the order they were written.
    public var properties: [Property]
    /// The nested components in the order they were written.
    public var components: [Component]

    /// Creates a component; `name` is upper-cased.
    public init(name: String, properties: [Property] = [], components: [Component] = []) {
        self.name = name.uppercased()
        self.properties = properties
        self.components = components
    }

    init(uncheckedName name: String) {
        self.name = name
        self.properties = []
        self.components = []
    }

    /// The first property with this name (case-insensitive), if any.
    public func property(_ name: String) -> Property? {
        let wanted = name.uppercased()
        return properties.first { $0.name == wanted }
    }

    /// Every property with this name (case-insensitive), in order.
    public func properties(named name: String) -> [Property] {
        let wanted = name.uppercased()
        return properties.filter { $0.name == wanted }
    }

    /// The nested components with this name (case-insensitive), in order.
    /// The TZID parameter values this component's properties and subcomponents name
    /// that no VTIMEZONE here defines (RFC 5545 §3.2.19 and RFC 4791 §4.1 want one for
    /// each), in the order first named.
    public var undefinedTimeZones: [String] {
        let defined = Set(components(named: "VTIMEZONE").compactMap { $0.property("TZID")?.value })
        var missing: [String] = []
        func visit(_ component: Component) {
            guard component.name != "VTIMEZONE" else { return }
            for property in component.properties {
                if let tzid = property[parameter: "TZID"], !defined.contains(tzid), !missing.contains(tzid) {
                    missing.append(tzid)
                }
            }
            component.components.forEach(visit)
        }
        visit(self)
        return missing
    }

    public func components(named name: String) -> [Component] {
        let wanted = name.uppercased()
        return components.filter { $0.name == wanted }
    }

    /// Replaces every property of this name with `property`, or appends it.
    public mutating func setProperty(_ property: Property) {
        if let index = properties.firstIndex(where: { $0.name == property.name }) {
            properties[index] = property
            var next = index + 1
            while next < properties.count {
                if properties[next].name == property.name { properties.remove(at: next) } else { next += 1 }
            }
        } else {
            properties.append(property)
        }
    }

    /// Removes every property with this name (case-insensitive).
    public mutating func removeProperties(named name: String) {
        let wanted = name.uppercased()
        properties.removeAll { $0.name == wanted }
    }

    /// The number of components in this tree, this one included.
    public var componentCount: Int {
        components.reduce(1) { $0 + $1.componentCount }
    }
}
