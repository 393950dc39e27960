import CalendarStore
import HTTPTypes

extension DAVContext {
    /// PROPFIND (RFC 4918 §9.1): Depth 0 or 1; `allprop`, `propname` or a list of names.
    func propfind() -> HTTPResponse {
        let depth = request.headers["Depth"]?.lowercased() ?? "infinity"
        guard depth == "0" || depth == "1" else {
            return DAVError(
                403, "PROPFIND with Depth: infinity is not supported; use Depth 0 or 1", dav: "propfind-finite-depth"
            ).response
        }
        enum Wanted {
            case all, names
            case some([PropertyName])
        }
        var wanted = Wanted.all
        if !request.body.isEmpty {
            let body: XMLElement
            switch self.body(DAVNamespace.dav, "propfind") {
            case .success(let element): body = element
            case .failure(let failure): return failure.response
            }
            // One of them (RFC 4918 §14.20: propname | (allprop, include?) | prop).
            let kinds = ["prop", "propname", "allprop"].filter { body.child(DAVNamespace.dav, $0) != nil }
            guard kinds.count <= 1 else {
                return DAVError(
                    400, "a propfind asks for one of prop, propname or allprop, not \(kinds.joined(separator: " and "))"
                ).response
            }
            if let prop = body.child(DAVNamespace.dav, "prop") {
                wanted = .some(prop.children.map(PropertyName.init))
            } else if body.child(DAVNamespace.dav, "propname") != nil {
                wanted = .names
            }
        }
        var targets: [(path: DAVPath, info: ResourceInfo?)] = [(path, nil)]
        do throws(StoreError) {
            // Objects listed are in this calendar (its access decides their privileges).
            var calendar: EventCalendar?
            if depth == "1" {
                let listed = try members(of: path)
                targets += listed.members
                calendar = listed.calendar
            }
            var multistatus = Multistatus()
            for (index, (target, info)) in targets.enumerated() {
                // The root answers under the href it was asked by: `/` or (any spelling of) `/dav/`.
                let href = index == 0 && target == .root && request.path == "/" ? "/" : target.href
                if let info, let calendar, case .some(let names) = wanted {
                    let (found, missing) = objectProperties(names, info, in: calendar)
                    multistatus.add(href: href, found: found, missing: missing)
                    continue
                }
                let properties: [PropertyName: String]
                do throws(StoreError) {
                    if let info, let calendar {
                        properties = objectProperties(info, in: calendar)
                    } else {
                        properties = try self.properties(of: target)
                    }
                } catch {
                    // The resource itself missing is a 404; a member vanishing mid-listing is skipped.
                    if index == 0 { throw error }
                    continue
                }
                switch wanted {
                case .all:
                    // calendar-availability and schedule-tag are only given when named (RFC 7953
                    // §7.2.4, RFC 6638 §9.3: not in allprop).
                    multistatus.add(
                        href: href,
                        found: properties.filter { $0.key != .calendarAvailability && $0.key != .scheduleTag }.sorted {
                            $0.key.clark < $1.key.clark
                        }.map { ($0.key, $0.value) })
                case .names:
                    multistatus.add(href: href, found: properties.keys.sorted { $0.clark < $1.clark }.map { ($0, "") })
                case .some(let names):
                    multistatus.add(
                        href: href, found: names.compactMap { name in properties[name].map { (name, $0) } },
                        missing: names.filter { properties[$0] == nil })
                }
            }
            return multistatus.response()
        } catch {
            return DAVError(error).response
        }
    }
}
