import CalendarStore
import HTTPTypes

extension DAVContext {
    /// COPY and MOVE (RFC 4918 §9.8, §9.9) of a calendar object to another object path of
    /// the same user: `Destination` (a path or an absolute URL), `Overwrite` (T unless F),
    /// `If-Match` on the source. 201 when the destination is new, 204 when it was replaced.
    /// The destination calendar's preconditions apply (RFC 4791 §5.3.2.1: a UID already in
    /// it is 403 `no-uid-conflict`, so a COPY into the same calendar is refused). A MOVE
    /// writes the destination first and removes the source only then, so a failure part-way
    /// loses nothing. Collections are neither copied nor moved (405, by ``CalDAVHandler/allowed(on:)``),
    /// nor is an object renamed inside its calendar (403: its UID would be there twice for a moment).
    func transfer() -> HTTPResponse {
        let isMove = request.method == "MOVE"
        guard case .object(_, let sourceCalendar, let sourceName) = path else {
            return DAVError(403, "\(request.method) moves or copies calendar objects, not collections").response
        }
        guard let destinationText = request.headers["Destination"] else {
            return DAVError(400, "\(request.method) needs a Destination header").response
        }
        guard let destination = DAVPath(requestPath: destinationText) else {
            return DAVError(502, "the Destination \(destinationText) is not a path of this server").response
        }
        guard case .object(let owner, let targetCalendar, let targetName) = destination, owner == user else {
            return DAVError(403, "the Destination of \(request.method) is an object path in one of your calendars")
                .response
        }
        if destination == path {
            return DAVError(403, "the Destination of \(request.method) is the resource itself").response
        }
        if isMove && targetCalendar == sourceCalendar {
            return DAVError(
                403,
                "an object is not renamed inside its calendar; PUT it under the new name after DELETE of the old one"
            ).response
        }
        let overwriteHeader = request.headers["Overwrite"]?.uppercased()
        guard overwriteHeader == nil || overwriteHeader == "T" || overwriteHeader == "F" else {
            return DAVError(400, "Overwrite is T or F, not \(request.headers["Overwrite"] ?? "")").response
        }
        let overwrite = overwriteHeader != "F"
        do throws(StoreError) {
            let sourceHandle = try self.calendar(named: sourceCalendar)
            let source = try store.resource(named: sourceName, calendar: sourceHandle)
            if let ifMatch, ifMatch != "*", ifMatch != source.etag {
                return DAVError(412, "\(sourceName) has changed: its ETag is \(source.etag), not \(ifMatch)").response
            }
            if let tag = ifScheduleTagMatch, let refusal = Self.scheduleTagRefusal(tag, source) {
                return refusal.response
            }
            let target: CalendarHandle
            do {
                target = try self.calendar(named: targetCalendar)
            } catch {
                // No calendar to put it in: 409 (RFC 4918 §9.8.5, §9.9.4).
                guard error.code == .notFound else { throw error }
                return DAVError(409, "there is no calendar \(targetCalendar) to hold \(targetName)").response
            }
            let written: ResourceWrite
            do {
                // A scheduling object keeps a Schedule-Tag where it lands (moving it schedules nothing).
                written = try store.writeResource(
                    source.data, name: targetName, calendar: target, ifMatch: nil, ifNoneMatch: !overwrite,
                    scheduleTag: Self.mentionsOrganizer(source.data) ? .keep : nil, ifScheduleTagMatch: nil)
            } catch {
                // Overwrite: F and the destination exists (RFC 4918 §9.8.5).
                if error.code == .preconditionFailed {
                    return DAVError(412, "\(targetName) exists and Overwrite is F").response
                }
                return DAVError(error, collectionHref: DAVPath.calendar(user: user, name: targetCalendar).href).response
            }
            if isMove {
                do {
                    try store.deleteResource(
                        named: sourceName, calendar: sourceHandle, ifMatch: source.etag)
                } catch {
                    // The source changed meanwhile: undo the copy, unless it replaced something.
                    if written.created {
                        try? store.deleteResource(named: targetName, calendar: target, ifMatch: written.etag)
                    }
                    return DAVError(error).response
                }
            }
            var response = HTTPResponse(status: written.created ? 201 : 204, headers: ["ETag": written.etag])
            if written.created { response.headers.set("Location", destination.href) }
            if let tag = written.scheduleTag { response.headers.set("Schedule-Tag", tag) }
            return response
        } catch {
            return DAVError(error).response
        }
    }
}
