import CalendarStore
import HTTPTypes

extension DAVContext {
    /// PROPPATCH (RFC 4918 §9.2) on a calendar: every change applies, or none.
    func proppatch() -> HTTPResponse {
        guard case .calendar(_, let name) = path else {
            return DAVError(403, "only calendar properties can be changed", dav: "cannot-modify-protected-property")
                .response
        }
        let body: XMLElement
        switch self.body(DAVNamespace.dav, "propertyupdate") {
        case .success(let element): body = element
        case .failure(let failure): return failure.response
        }
        let sets = body.children(DAVNamespace.dav, "set").flatMap {
            $0.children(DAVNamespace.dav, "prop").flatMap(\.children)
        }
        let removals = body.children(DAVNamespace.dav, "remove").flatMap {
            $0.children(DAVNamespace.dav, "prop").flatMap(\.children)
        }
        do {
            var calendar = try self.calendar(named: name).calendar
            let statuses = apply(sets, removals: removals, to: &calendar)
            var multistatus = Multistatus()
            if statuses.contains(where: { $0.status != 200 }) {
                // Atomic: nothing is saved, and the good changes report 424 Failed Dependency.
                multistatus.add(
                    href: path.href, statuses: statuses.map { ($0.name, $0.status == 200 ? 424 : $0.status) })
            } else {
                _ = try store.updateCalendar(calendar)
                multistatus.add(href: path.href, statuses: statuses)
            }
            return multistatus.response()
        } catch {
            return DAVError(error).response
        }
    }

    /// An element's children written back as XML (a dead property's value).
    static func innerXML(of element: XMLElement) -> String {
        if element.children.isEmpty { return XMLText.escape(element.text) }
        return element.children.map(outerXML).joined()
    }

    static func outerXML(_ element: XMLElement) -> String {
        let attributes = element.attributes.sorted { $0.key < $1.key }.map {
            " \($0.key)=\"\(XMLText.escape($0.value))\""
        }.joined()
        let open = "X:\(element.name) xmlns:X=\"\(XMLText.escape(element.namespace))\"\(attributes)"
        let inner = element.children.isEmpty ? XMLText.escape(element.text) : element.children.map(outerXML).joined()
        return inner.isEmpty ? "<\(open)/>" : "<\(open)>\(inner)</X:\(element.name)>"
    }
}
