import ICalendar

/// `<C:comp>` inside calendar-data (RFC 4791 §9.6.1–§9.6.4): the components and
/// properties an answer keeps of each object, the rest left out.
///
/// `allprop` and `allcomp` keep everything of their kind; `prop` and `comp` children
/// keep only what they name (so a `comp` with `prop` children and no `comp` child keeps
/// no subcomponent, as the DTD says). A `comp` with no children at all keeps its
/// component whole: §7.8.1's example asks `<C:comp name="VTIMEZONE"/>` and answers
/// the whole VTIMEZONE. `novalue="yes"` keeps a property's name and parameters with
/// an empty value.
struct ComponentSelection: Equatable {
    enum Properties: Equatable {
        case all
        /// Upper-cased names, each with whether its value is left out.
        case named([String: Bool])
    }

    enum Components: Equatable {
        case all
        case named([ComponentSelection])
    }

    /// The component's name, upper-cased.
    var name: String
    var properties: Properties
    var components: Components

    /// The deepest `comp` nesting read: iCalendar nests VCALENDAR → VEVENT → VALARM,
    /// and VTIMEZONE → STANDARD; deeper requests name nothing there is.
    static let maximumDepth = 8

    init(_ element: XMLElement, depth: Int = 0) throws(DAVError) {
        guard let name = element.attributes["name"], !name.isEmpty else {
            throw DAVError(400, "a CALDAV:comp element needs a name attribute")
        }
        guard depth < Self.maximumDepth else {
            throw DAVError(400, "CALDAV:comp elements nest at most \(Self.maximumDepth) deep")
        }
        self.name = name.uppercased()
        let children = element.children.filter { $0.namespace == DAVNamespace.caldav }
        func has(_ name: String) -> Bool { children.contains { $0.name == name } }
        let props = children.filter { $0.name == "prop" }
        let comps = children.filter { $0.name == "comp" }
        guard !(has("allprop") && !props.isEmpty), !(has("allcomp") && !comps.isEmpty) else {
            throw DAVError(400, "CALDAV:comp \(name) has allprop beside prop, or allcomp beside comp")
        }
        if children.isEmpty || has("allprop") {
            properties = .all
        } else {
            var named: [String: Bool] = [:]
            for prop in props {
                guard let propertyName = prop.attributes["name"], !propertyName.isEmpty else {
                    throw DAVError(400, "a CALDAV:prop element needs a name attribute")
                }
                let novalue: Bool
                switch prop.attributes["novalue"] ?? "no" {
                case "yes": novalue = true
                case "no": novalue = false
                case let other: throw DAVError(400, "novalue=\"\(other)\" is neither yes nor no")
                }
                // Asked twice, with and without its value: the value is kept.
                let key = propertyName.uppercased()
                named[key] = (named[key] ?? true) && novalue
            }
            properties = .named(named)
        }
        if children.isEmpty || has("allcomp") {
            components = .all
        } else {
            var selections: [ComponentSelection] = []
            for comp in comps { selections.append(try ComponentSelection(comp, depth: depth + 1)) }
            components = .named(selections)
        }
    }

    /// `component` with only what this selection keeps; nil when its name is another's.
    func applied(to component: Component) -> Component? {
        guard component.name == name else { return nil }
        var result = Component(name: component.name)
        switch properties {
        case .all:
            result.properties = component.properties
        case .named(let named):
            for var property in component.properties {
                guard let novalue = named[property.name] else { continue }
                if novalue { property.value = "" }
                result.properties.append(property)
            }
        }
        switch components {
        case .all:
            result.components = component.components
        case .named(let selections):
            for child in component.components {
                // The first selection naming the child's component decides what it keeps.
                if let kept = selections.lazy.compactMap({ $0.applied(to: child) }).first {
                    result.components.append(kept)
                }
            }
        }
        return result
    }
}

extension DAVContext {
    /// What a `<C:comp>` selection keeps of an object's VCALENDAR (all of it without one).
    static func selected(_ root: Component, by selection: ComponentSelection?) -> Component {
        guard let selection else { return root }
        return selection.applied(to: root) ?? Component(name: root.name)
    }
}
