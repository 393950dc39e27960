import CalendarStore
import HTTPTypes

/// What a route asks of the principal behind a request. A password or session has
/// full access; a token's scope decides. The router checks it before the handler runs.
enum ScopeRequirement: Sendable {
    /// Every principal (an add-only token's handler still shows it only its own events).
    case any
    /// A scope that may read everything: read or read-write, not add-only.
    case read
    /// A scope that may add (events, added marks): read-write or add-only, not read.
    /// `action` completes "a read-only token may not …".
    case add(action: String)
    /// A scope that may change the calendar: read-write (or admin).
    case write
    /// An admin's provisioning routes: a password or session of an admin, or an admin's
    /// token with the admin scope (checked in ``APIContext/authorizedRoute()``).
    case admin

    /// The problem a principal with `scope` gets here, nil when it may go on.
    func refusal(for scope: AccessToken.Scope) -> APIProblem? {
        switch self {
        case .any:
            return nil
        case .read:
            guard scope == .addOnly else { return nil }
            return APIProblem(.forbidden, "an add-only token may only create events and read back its own")
        case .add(let action):
            guard scope == .read else { return nil }
            return APIProblem(.forbidden, "a read-only token may not \(action)")
        case .write:
            guard scope != .readWrite, scope != .admin else { return nil }
            return APIProblem(.forbidden, "this token may not change the calendar (scope \(scope.rawValue))")
        case .admin:
            guard scope != .admin, scope != .readWrite else { return nil }
            return APIProblem(.forbidden, "only a token with the admin scope may manage accounts")
        }
    }
}

/// What the API keeps for each route of its table: the access it needs and the handler
/// that answers it.
struct APIRoute: Sendable {
    var access: ScopeRequirement
    var handler: @Sendable (APIContext, RouteParameters) throws(APIProblem) -> HTTPResponse
}

/// One route: a method, a path template (HTTPTypes' ``RouteTemplate``), the access it
/// needs, and the handler that answers it.
typealias Route = RouteTable<APIRoute>.Route

extension RouteTable<APIRoute>.Route {
    init(
        _ method: String, _ template: String, _ access: ScopeRequirement,
        _ handler: @escaping @Sendable (APIContext, RouteParameters) throws(APIProblem) -> HTTPResponse
    ) {
        self.init(method, template, APIRoute(access: access, handler: handler))
    }
}

extension APIContext {
    /// Every route of the API, one per method and path template; the OpenAPI document
    /// describes exactly these (a test checks it). Where two templates fit a path, the
    /// earlier wins (by-title before `{id}`).
    static let routes: [Route] = [
        Route("GET", "/api/v1/openapi.json", .any) { (context, _) throws(APIProblem) in
            JSONAPIHandler.openAPIResponse(to: context.request)
        },
        Route("GET", "/api/v1/calendars", .read) { (context, _) throws(APIProblem) in try context.listCalendars() },
        Route("POST", "/api/v1/calendars", .write) { (context, _) throws(APIProblem) in try context.createCalendar() },
        Route("PUT", "/api/v1/calendars/by-title/{title}", .write) { (context, path) throws(APIProblem) in
            try context.calendarByTitle(path["title"])
        },
        Route("GET", "/api/v1/calendars/{id}", .read) { (context, path) throws(APIProblem) in
            try context.readCalendar(path["id"])
        },
        Route("PATCH", "/api/v1/calendars/{id}", .write) { (context, path) throws(APIProblem) in
            try context.updateCalendar(path["id"])
        },
        Route("DELETE", "/api/v1/calendars/{id}", .write) { (context, path) throws(APIProblem) in
            try context.deleteCalendar(path["id"])
        },
        Route("GET", "/api/v1/calendars/{id}/shares", .read) { (context, path) throws(APIProblem) in
            try context.listShares(calendar: path["id"])
        },
        Route("PUT", "/api/v1/calendars/{id}/shares/{user}", .write) { (context, path) throws(APIProblem) in
            try context.putShare(calendar: path["id"], user: path["user"])
        },
        Route("DELETE", "/api/v1/calendars/{id}/shares/{user}", .write) { (context, path) throws(APIProblem) in
            try context.deleteShare(calendar: path["id"], user: path["user"])
        },
        Route("POST", "/api/v1/calendars/{id}/answer", .write) { (context, path) throws(APIProblem) in
            try context.answerShare(calendar: path["id"])
        },
        Route("POST", "/api/v1/calendars/{id}/refresh", .write) { (context, path) throws(APIProblem) in
            try context.refreshSubscription(path["id"])
        },
        Route("POST", "/api/v1/events/{id}/rsvp", .write) { (context, path) throws(APIProblem) in
            try context.rsvp(path["id"])
        },
        Route("GET", "/api/v1/events/{id}/proposals", .read) { (context, path) throws(APIProblem) in
            try context.proposals(path["id"])
        },
        Route("POST", "/api/v1/events/{id}/proposals", .write) { (context, path) throws(APIProblem) in
            try context.propose(path["id"])
        },
        Route("POST", "/api/v1/events/{id}/proposals/{proposalId}", .write) { (context, path) throws(APIProblem) in
            try context.answerProposal(path["id"], path["proposalId"])
        },
        Route("POST", "/api/v1/imip", .write) { (context, _) throws(APIProblem) in try context.receiveIMIP() },
        Route("GET", "/api/v1/subscriptions", .read) { (context, _) throws(APIProblem) in
            try context.listSubscriptions()
        },
        Route("POST", "/api/v1/subscriptions", .write) { (context, _) throws(APIProblem) in try context.subscribe() },
        Route("GET", "/api/v1/sharing/notifications", .read) { (context, _) throws(APIProblem) in
            try context.sharingNotifications()
        },
        Route("DELETE", "/api/v1/sharing/notifications/{uid}", .write) { (context, path) throws(APIProblem) in
            try context.deleteSharingNotification(path["uid"])
        },
        Route("GET", "/api/v1/calendars/{id}/occurrences", .read) { (context, path) throws(APIProblem) in
            try context.occurrences(calendar: path["id"])
        },
        Route("GET", "/api/v1/calendars/{id}/changes", .read) { (context, path) throws(APIProblem) in
            try context.changes(calendar: path["id"])
        },
        Route("GET", "/api/v1/calendars/{id}/events", .read) { (context, path) throws(APIProblem) in
            try context.listEvents(calendar: path["id"])
        },
        Route("DELETE", "/api/v1/calendars/{id}/events", .write) { (context, path) throws(APIProblem) in
            try context.removeMatching(calendar: path["id"])
        },
        Route("POST", "/api/v1/events", .add(action: "create events")) { (context, _) throws(APIProblem) in
            try context.createEvent()
        },
        Route("GET", "/api/v1/events/{id}", .any) { (context, path) throws(APIProblem) in
            try context.readEvent(path["id"])
        },
        Route("PUT", "/api/v1/events/{id}", .write) { (context, path) throws(APIProblem) in
            try context.saveEvent(path["id"], replacing: true)
        },
        Route("PATCH", "/api/v1/events/{id}", .write) { (context, path) throws(APIProblem) in
            try context.saveEvent(path["id"], replacing: false)
        },
        Route("DELETE", "/api/v1/events/{id}", .write) { (context, path) throws(APIProblem) in
            try context.deleteEvent(path["id"])
        },
        Route("GET", "/api/v1/events/{id}/add-to-calendar", .any) { (context, path) throws(APIProblem) in
            try context.addToCalendar(event: path["id"])
        },
        Route("GET", "/api/v1/events/{id}/added", .any) { (context, path) throws(APIProblem) in
            try context.addedMark(event: path["id"])
        },
        Route("PUT", "/api/v1/events/{id}/added", .add(action: "mark events")) { (context, path) throws(APIProblem) in
            try context.markAdded(event: path["id"])
        },
        Route("DELETE", "/api/v1/events/{id}/added", .add(action: "mark events")) {
            (context, path) throws(APIProblem) in
            try context.removeAddedMark(event: path["id"])
        },
        Route("GET", "/api/v1/occurrences/{eventId}", .read) { (context, path) throws(APIProblem) in
            try context.readOccurrence(event: path["eventId"], recurrenceID: nil)
        },
        Route("PATCH", "/api/v1/occurrences/{eventId}", .write) { (context, path) throws(APIProblem) in
            try context.editOccurrence(event: path["eventId"], recurrenceID: nil)
        },
        Route("DELETE", "/api/v1/occurrences/{eventId}", .write) { (context, path) throws(APIProblem) in
            try context.removeOccurrence(event: path["eventId"], recurrenceID: nil)
        },
        Route("GET", "/api/v1/occurrences/{eventId}/{recurrenceId}", .read) { (context, path) throws(APIProblem) in
            try context.readOccurrence(event: path["eventId"], recurrenceID: path["recurrenceId"])
        },
        Route("PATCH", "/api/v1/occurrences/{eventId}/{recurrenceId}", .write) { (context, path) throws(APIProblem) in
            try context.editOccurrence(event: path["eventId"], recurrenceID: path["recurrenceId"])
        },
        Route("DELETE", "/api/v1/occurrences/{eventId}/{recurrenceId}", .write) {
            (context, path) throws(APIProblem) in
            try context.removeOccurrence(event: path["eventId"], recurrenceID: path["recurrenceId"])
        },
        Route("GET", "/api/v1/alarms", .read) { (context, _) throws(APIProblem) in try context.alarms() },
        Route("POST", "/api/v1/alarms/acknowledge", .write) { (context, _) throws(APIProblem) in
            try context.dismissAlarm(snooze: false)
        },
        Route("POST", "/api/v1/alarms/snooze", .write) { (context, _) throws(APIProblem) in
            try context.dismissAlarm(snooze: true)
        },
        Route("GET", "/api/v1/summary", .read) { (context, _) throws(APIProblem) in try context.summary() },
        Route("GET", "/api/v1/availability", .read) { (context, _) throws(APIProblem) in try context.availability() },
        Route("GET", "/api/v1/availability-schedules", .read) { (context, _) throws(APIProblem) in
            try context.listSchedules()
        },
        Route("POST", "/api/v1/availability-schedules", .write) { (context, _) throws(APIProblem) in
            try context.createSchedule()
        },
        Route("GET", "/api/v1/availability-schedules/{id}", .read) { (context, path) throws(APIProblem) in
            try context.readSchedule(path["id"])
        },
        Route("PATCH", "/api/v1/availability-schedules/{id}", .write) { (context, path) throws(APIProblem) in
            try context.updateSchedule(path["id"])
        },
        Route("DELETE", "/api/v1/availability-schedules/{id}", .write) { (context, path) throws(APIProblem) in
            try context.deleteSchedule(path["id"])
        },
        Route("GET", "/api/v1/booking-types", .read) { (context, _) throws(APIProblem) in
            try context.listBookingTypes()
        },
        Route("POST", "/api/v1/booking-types", .write) { (context, _) throws(APIProblem) in
            try context.createBookingType()
        },
        Route("GET", "/api/v1/booking-types/{id}", .read) { (context, path) throws(APIProblem) in
            try context.readBookingType(path["id"])
        },
        Route("PATCH", "/api/v1/booking-types/{id}", .write) { (context, path) throws(APIProblem) in
            try context.updateBookingType(path["id"])
        },
        Route("DELETE", "/api/v1/booking-types/{id}", .write) { (context, path) throws(APIProblem) in
            try context.deleteBookingType(path["id"])
        },
        Route("GET", "/api/v1/booking-types/{id}/slots", .read) { (context, path) throws(APIProblem) in
            try context.bookingSlots(path["id"])
        },
        Route("GET", "/api/v1/booking-types/{id}/occurrences/{recurrenceId}/seats", .read) {
            (context, path) throws(APIProblem) in
            try context.seats(path["id"], occurrence: path["recurrenceId"])
        },
        Route("POST", "/api/v1/booking-types/{id}/holds", .write) { (context, path) throws(APIProblem) in
            try context.createHold(path["id"])
        },
        Route("DELETE", "/api/v1/booking-types/{id}/holds/{holdId}", .write) { (context, path) throws(APIProblem) in
            try context.deleteHold(path["id"], hold: path["holdId"])
        },
        Route("GET", "/api/v1/bookings", .read) { (context, _) throws(APIProblem) in try context.listBookings() },
        Route("POST", "/api/v1/bookings", .write) { (context, _) throws(APIProblem) in try context.createBooking() },
        Route("GET", "/api/v1/bookings/{id}", .read) { (context, path) throws(APIProblem) in
            try context.readBooking(path["id"])
        },
        Route("POST", "/api/v1/bookings/{id}/cancel", .write) { (context, path) throws(APIProblem) in
            _ = try context.body(allowing: [])
            return try context.cancelBooking(try context.booking(path["id"]))
        },
        Route("POST", "/api/v1/bookings/{id}/reschedule", .write) { (context, path) throws(APIProblem) in
            try context.rescheduleBooking(
                try context.booking(path["id"]), try context.body(allowing: ["start", "duration"]))
        },
        Route("POST", "/api/v1/conflicts", .read) { (context, _) throws(APIProblem) in try context.conflicts() },
        Route("POST", "/api/v1/busy", .write) { (context, _) throws(APIProblem) in try context.importBusy() },
        Route("GET", "/api/v1/tokens", .read) { (context, _) throws(APIProblem) in try context.listTokens() },
        Route("POST", "/api/v1/tokens", .write) { (context, _) throws(APIProblem) in try context.createOwnToken() },
        Route("DELETE", "/api/v1/tokens/{id}", .write) { (context, path) throws(APIProblem) in
            try context.revokeToken(path["id"])
        },
        Route("GET", "/api/v1/admin/users", .admin) { (context, _) throws(APIProblem) in try context.listUsers() },
        Route("POST", "/api/v1/admin/users", .admin) { (context, _) throws(APIProblem) in try context.createUser() },
        Route("GET", "/api/v1/admin/users/{name}", .admin) { (context, path) throws(APIProblem) in
            try context.readUser(path["name"])
        },
        Route("PATCH", "/api/v1/admin/users/{name}", .admin) { (context, path) throws(APIProblem) in
            try context.updateUser(path["name"])
        },
        Route("DELETE", "/api/v1/admin/users/{name}", .admin) { (context, path) throws(APIProblem) in
            try context.deleteUser(path["name"])
        },
        Route("POST", "/api/v1/admin/users/{name}/tokens", .admin) { (context, path) throws(APIProblem) in
            try context.mintToken(for: path["name"])
        },
        Route("GET", "/api/v1/webhooks", .read) { (context, _) throws(APIProblem) in try context.listWebhooks() },
        Route("POST", "/api/v1/webhooks", .write) { (context, _) throws(APIProblem) in try context.createWebhook() },
        Route("GET", "/api/v1/webhooks/{id}", .read) { (context, path) throws(APIProblem) in
            try context.readWebhook(path["id"])
        },
        Route("PATCH", "/api/v1/webhooks/{id}", .write) { (context, path) throws(APIProblem) in
            try context.updateWebhook(path["id"])
        },
        Route("DELETE", "/api/v1/webhooks/{id}", .write) { (context, path) throws(APIProblem) in
            try context.deleteWebhook(path["id"])
        },
        Route("POST", "/api/v1/webhooks/{id}/test", .write) { (context, path) throws(APIProblem) in
            try context.testWebhook(path["id"])
        },
        Route("POST", "/api/v1/webhooks/{id}/replay", .write) { (context, path) throws(APIProblem) in
            try context.replayWebhook(path["id"])
        },
        Route("GET", "/api/v1/webhooks/{id}/deliveries", .read) { (context, path) throws(APIProblem) in
            try context.listDeliveries(path["id"])
        },
        Route("GET", "/events/{id}.ics", .any) { (context, path) throws(APIProblem) in
            try context.eventICS(path["id"])
        },
    ]

    /// The routes a token limited to some calendars may use: those that read and write
    /// through its limited store. Every other route (bookings, schedules, webhooks,
    /// subscriptions, sharing) could reach other calendars, and is 403 to it.
    static let calendarRoutes: Set<String> = [
        "/api/v1/calendars", "/api/v1/calendars/{id}", "/api/v1/calendars/{id}/occurrences",
        "/api/v1/calendars/{id}/changes", "/api/v1/calendars/{id}/events", "/api/v1/events", "/api/v1/events/{id}",
        "/api/v1/events/{id}/rsvp", "/api/v1/events/{id}/add-to-calendar", "/api/v1/events/{id}/added",
        "/api/v1/occurrences/{eventId}", "/api/v1/occurrences/{eventId}/{recurrenceId}", "/api/v1/alarms",
        "/api/v1/alarms/acknowledge", "/api/v1/alarms/snooze", "/api/v1/summary", "/api/v1/tokens",
        "/api/v1/tokens/{id}", "/events/{id}.ics", "/api/v1/openapi.json",
    ]

    /// The table of ``routes``, matched in their order.
    static let table = RouteTable(routes)

    /// Finds the route for the request's path and method (HEAD as GET), checks its
    /// access, and hands the request to its handler: see ``authorizedRoute()``.
    func route() throws(APIProblem) -> HTTPResponse {
        let (route, parameters) = try authorizedRoute()
        return try route.payload.handler(self, parameters)
    }

    /// The route for the request's path and method (HEAD as GET), once the principal may
    /// use it: 404 for a path no template fits, 405 with `Allow` for a path whose
    /// template has no route for this method, 403 for a token whose scope the route does
    /// not take.
    func authorizedRoute() throws(APIProblem) -> (Route, RouteParameters) {
        switch Self.table.match(method: request.method, path: request.path) {
        case .notFound:
            throw APIProblem(.notFound, "no such resource: \(request.path)")
        case .methodNotAllowed(let allow):
            throw methodNotAllowed(allow)
        case .found(let route, let parameters):
            if let refusal = route.payload.access.refusal(for: principal.scope) { throw refusal }
            if principal.token?.calendars != nil, !Self.calendarRoutes.contains(route.template.description) {
                throw APIProblem(
                    .forbidden,
                    "this token sees only some calendars: it may use the calendar, event and occurrence routes, not \(request.method) \(route.template.description)"
                )
            }
            if case .admin = route.payload.access { try requireAdmin() }
            return (route, parameters)
        }
    }

    func methodNotAllowed(_ allowed: [String]) -> APIProblem {
        APIProblem(
            .methodNotAllowed, "\(request.method) is not allowed here; use \(allowed.joined(separator: ", "))",
            allow: allowed)
    }
}
