/// A property parameter (RFC 5545 §3.2), such as `TZID=Europe/Berlin` or
/// `MEMBER="mailto:a@example.com","mailto:b@example.com"`.
public struct Parameter: Sendable, Hashable {
    /// The name, upper-cased (parameter names are case-insensitive).
    public var name: String
    /// The values, with quotes removed and RFC 6868 caret escapes decoded.
    public var values: [String]

    /// Creates a parameter; `name` is upper-cased.
    public init(name: String, values: [String]) {
        self.name = name.uppercased()
        self.values = values
    }

    /// Creates a single-valued parameter; `name` is upper-cased.
    public init(name: String, value: String) {
        self.init(name: name, values: [value])
    }

    init(uncheckedName name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    /// The values joined by commas, as a single-valued parameter is usually read.
    public var value: String { values.count == 1 ? values[0] : values.joined(separator: ",") }
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
    /// The value as iCalendar text (escaped where its type escapes).
    public var value: String

    /// Creates a property from its raw iCalendar value; `name` is upper-cased.
    public init(name: String, parameters: [Parameter] = [], value: String) {
        self.name = name.uppercased()
        self.parameters = parameters
        self.value = value
    }

    init(uncheckedName name: String, parameters: [Parameter], value: String) {
        self.name = name
        self.parameters = parameters
        self.value = value
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
                    parameters.append(Parameter(uncheckedName: wanted, values: [newValue]))
                }
            } else {
                parameters.removeAll { $0.name == wanted }
            }
        }
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
