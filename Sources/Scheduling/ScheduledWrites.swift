import CalendarStore

// What a write of an event through the store (the JSON API, the web pages) means for
// scheduling, as a CalDAV PUT or DELETE means it: invitations, updates, cancellations.
extension SchedulingAgent {
    /// A calendar object in one of a user's own local calendars.
    public struct OwnObject: Sendable {
        public var calendar: EventCalendar
        public var resource: StoredResource

        public init(calendar: EventCalendar, resource: StoredResource) {
            self.calendar = calendar
            self.resource = resource
        }

        var location: ResourceLocation { ResourceLocation(calendar: calendar.id, name: resource.name) }
    }

    /// The object at `object`'s location in `store` now.
    public static func ownObject(at object: OwnObject, in store: any EventStore) -> OwnObject? {
        (try? store.resource(named: object.resource.name, calendar: object.calendar.id)).map {
            OwnObject(calendar: object.calendar, resource: $0)
        }
    }

    /// The object that keeps `event`, when it is in one of the store user's own local
    /// calendars (scheduling acts for the calendar's owner only).
    public static func ownObject(keeping event: Event, in store: any EventStore) -> OwnObject? {
        // An occurrence's event may not say where it is kept; its series does.
        var event = event
        if event.resourceName == nil, let identifier = event.localIdentifier,
            let stored = try? store.event(withIdentifier: identifier)
        {
            event = stored
        }
        guard let name = event.resourceName, let identifier = event.calendarIdentifier,
            let calendar = try? store.calendar(withIdentifier: identifier),
            calendar.access == nil, calendar.kind == .local,
            let resource = try? store.resource(named: name, calendar: calendar.id)
        else { return nil }
        return OwnObject(calendar: calendar, resource: resource)
    }

    /// Runs an event write through `store` and then schedules what it changed in the
    /// event's object (`stored`: the event before; nil for a new one): invitations,
    /// answers, cancellations. Objects are found where the events are kept (calendar and
    /// resource name), never by UID, which the client chooses and may share with another
    /// of the user's objects. Returns the event as it is afterwards (SCHEDULE-STATUS set).
    public func scheduling<Failure: Error>(
        in store: any EventStore, of stored: Event?, _ write: () throws(Failure) -> Event
    ) throws(Failure) -> Event {
        let before = stored.flatMap { Self.ownObject(keeping: $0, in: store) }
        let written = try write()
        let now = Self.ownObject(keeping: written, in: store)
        var changes: [(after: OwnObject, previous: OwnObject?)] = []
        if let before {
            let remaining = Self.ownObject(at: before, in: store)
            if let now, now.location == before.location {
                changes = [(now, before)]
            } else if let remaining {
                // This and the following occurrences became a new series: the old one ends
                // (an update), the new one is new to everyone.
                changes = [(remaining, before)] + (now.map { [($0, nil)] } ?? [])
            } else if let now {
                changes = [(now, before)]  // moved to another calendar
            } else {
                deleted(before.resource.data, by: store.user, in: before.calendar)
            }
        } else if let now {
            changes = [(now, nil)]
        }
        for change in changes { schedule(change.after, previous: change.previous, in: store) }
        guard let identifier = written.localIdentifier else { return written }
        return (try? store.event(withIdentifier: identifier)) ?? written
    }

    /// Delivers what writing `after` over `previous` changed, setting SCHEDULE-STATUS.
    private func schedule(_ after: OwnObject, previous: OwnObject?, in store: any EventStore) {
        let plan: Plan
        do {
            plan = try prepare(
                after.resource.data, previous: previous?.resource.data, by: store.user, in: after.calendar,
                name: after.resource.name)
        } catch {
            // The writer ran the same checks before the write (``checkEdit(of:to:splitting:by:)``).
            return
        }
        guard plan.schedules else { return }
        if plan.data != after.resource.data {
            _ = try? store.writeResource(
                plan.data, name: after.resource.name, calendar: after.calendar.id, ifMatch: after.resource.etag,
                ifNoneMatch: false, scheduleTag: plan.scheduleTag, ifScheduleTagMatch: nil)
        }
        deliver(plan)
    }
}
