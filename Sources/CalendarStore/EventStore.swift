import CivilTime
import Recurrence

/// The calendar operations every interface (CalDAV, the JSON API, the web views,
/// the CLI) uses, in the manner of EventKit's `EKEventStore` and Android's
/// `CalendarContract`.
///
/// A store value acts for one user: it sees that user's calendars and those
/// explicitly granted to them, and nothing else — the ownership check lives
/// here, not only in the server. Operations are synchronous and each runs in
/// one transaction: a write is acknowledged only once it is durable, and a
/// write that throws changes nothing.
///
/// Times are Unix seconds (`TimeRange`); floating and all-day times are read in
/// the zone the caller passes (an IANA name), else the calendar's default zone,
/// else UTC.
public protocol EventStore: Sendable {
    /// The user this store acts for.
    var user: String { get }

    // MARK: Calendars

    /// The user's calendars and those shared with them, by `order`, then title.
    func calendars() throws(StoreError) -> [EventCalendar]
    /// The calendar with this identifier, when the user owns it or has accepted a share of it;
    /// `notFound` otherwise, so a calendar they may not see is not revealed.
    func calendar(withIdentifier identifier: String) throws(StoreError) -> EventCalendar
    /// The calendar whose collection name is `name` in the user's home: one of their own,
    /// else one shared with them (by the name its share has there).
    func calendar(named name: String) throws(StoreError) -> EventCalendar
    /// The calendar with this collection name, resolved once for a request: later calls
    /// take the handle and do not look it up again.
    func calendarHandle(named name: String) throws(StoreError) -> CalendarHandle
    /// Creates a calendar owned by the user; `name` is its URL segment (a new UUID when nil).
    func createCalendar(_ calendar: EventCalendar, name: String?) throws(StoreError) -> EventCalendar
    /// Saves the caller-settable fields of a calendar. With `ifMatch`, the calendar's
    /// sync token (quoted, as its ETag) must still be that, checked inside the write.
    func updateCalendar(_ calendar: EventCalendar, ifMatch: String?) throws(StoreError) -> EventCalendar
    /// Deletes a calendar and everything in it; `ifMatch` as for ``updateCalendar(_:ifMatch:)``.
    func deleteCalendar(withIdentifier identifier: String, ifMatch: String?) throws(StoreError)
    /// The user's calendar with this title (ignoring case), created when missing and
    /// `createIfMissing` is true; nil when missing and not created.
    func calendar(titled title: String, createIfMissing: Bool) throws(StoreError) -> EventCalendar?
    /// Sets (or, with nil, revokes) the secret token of one of a calendar's feeds: its
    /// events (`/feeds/<token>.ics`) or only its busy time (`/feeds/<token>-busy.ics`).
    func setFeedToken(_ token: String?, for kind: FeedKind, calendar identifier: String) throws(StoreError)
        -> EventCalendar

    // MARK: Sharing

    /// Shares one of this user's calendars with `user`, read-only or read-write, or (nil)
    /// stops sharing it. With `invite`, the share waits for the sharee's answer
    /// (``answerShare(ofCalendar:accept:)``) and they get an invitation; without, it takes
    /// effect at once. A share already accepted keeps its state and takes the new access.
    /// `summary` is the note the sharee sees. A sharee who loses a share is told.
    func share(
        calendar identifier: String, with user: String, access: Access?, invite: Bool, summary: String?
    ) throws(StoreError)
    /// Who one of this user's calendars is shared with, by user name.
    func shares(ofCalendar identifier: String) throws(StoreError) -> [CalendarShare]
    /// The sharee's answer to an invitation (or, declining, leaving a share they had
    /// accepted); the owner is told. Accepting returns the calendar as it now appears in
    /// the sharee's home.
    @discardableResult
    func answerShare(ofCalendar identifier: String, accept: Bool) throws(StoreError) -> EventCalendar?
    /// The object with this UID in one of the user's own (not shared, not subscribed)
    /// calendars, with its calendar: their copy of a scheduling object (the first by
    /// calendar order when they keep more than one; never the one at `location`).
    func ownResource(withUID uid: String, except location: ResourceLocation?) throws(StoreError) -> (
        calendar: EventCalendar, resource: StoredResource
    )?
    /// The identifier of the calendar `owner` keeps under `name` when it is shared with
    /// this user (answered or not, until the owner withdraws it); nil otherwise.
    func sharedCalendarIdentifier(owner: String, name: String) throws(StoreError) -> String?
    /// What this user set for themselves on a calendar shared with them (its name, colour
    /// and the like in their home), by property name as the interface keeps them.
    func personalProperties(ofCalendar identifier: String) throws(StoreError) -> [String: String]
    /// Sets (a value) or removes (nil) properties this user keeps for themselves on a
    /// calendar shared with them, all in one transaction; `notFound` when it is not.
    func setPersonalProperties(_ values: [String: String?], ofCalendar identifier: String) throws(StoreError)
    /// The invitations and answers this user was sent, oldest first.
    func sharingNotifications() throws(StoreError) -> [SharingNotification]
    /// Removes one of this user's notifications (by its uid).
    func removeSharingNotification(_ uid: String) throws(StoreError)

    // MARK: Events

    /// The event with this local identifier, or with this UID (external identifier).
    func event(withIdentifier identifier: String) throws(StoreError) -> Event
    /// Events with this UID (external identifier) in the calendars the user sees.
    func events(withExternalIdentifier uid: String) throws(StoreError) -> [Event]
    /// A calendar's events (every object, series whole) in identifier order: at most
    /// `limit`, those after the identifier `cursor`. Paging by identifier neither skips
    /// nor repeats an event that was there throughout, whatever is written meanwhile.
    func events(inCalendar calendar: String, after cursor: String?, limit: Int) throws(StoreError) -> [Event]
    /// The occurrences overlapping `range` in the given calendars (all visible when nil),
    /// in start order, that match `filter`.
    ///
    /// At most `limit` of them, the earliest: the store keeps no more than that many (and
    /// a few thousand more) while it looks, so a range of millions of instances costs
    /// bounded memory. Ask for one more than you show to learn whether there were more.
    /// Each series is expanded within the bounds of ``ExpansionLimits`` (100,000 instances
    /// per series); a series cut by them before the range's end, where that could change
    /// this answer, is named in ``OccurrenceList/truncatedSeries`` — show that, never only the list.
    func occurrences(
        in range: TimeRange, calendars: [String]?, matching filter: EventFilter, timeZone: String?, limit: Int
    )
        throws(StoreError) -> OccurrenceList
    /// Saves an event: creates it when new, else changes it with `span` (see `Span`).
    /// Returns the event as stored. With `ifMatch` (an ETag, a comma-separated list of
    /// them, or `*`), the stored object must still have it when the write begins — checked
    /// inside the write's transaction, so of racing writers with one ETag exactly one wins.
    @discardableResult
    func save(_ event: Event, span: Span, ifMatch: String?) throws(StoreError) -> Event
    /// Removes an event with `span`: the whole event, one instance (EXDATE), or
    /// this and later instances (UNTIL); `ifMatch` as for ``save(_:span:ifMatch:)``.
    func remove(_ event: Event, span: Span, ifMatch: String?) throws(StoreError)
    /// Removes every occurrence of a calendar overlapping `range`, optionally only those
    /// titled `title` (ignoring case); a series loses only its instances in the range.
    /// Returns the occurrences removed.
    @discardableResult
    func removeEvents(in range: TimeRange, calendar: String, title: String?, timeZone: String?)
        throws(StoreError) -> [EventOccurrence]
    /// Removes the occurrences of a calendar in `range` (none when nil) and adds `events`
    /// (new ones) to it, in one transaction: all of it happens, or none of it.
    func replaceEvents(in range: TimeRange?, calendar: String, with events: [Event], timeZone: String?)
        throws(StoreError) -> (removed: Int, added: [Event])
    /// The busy time of events in `range`: every instance that is neither transparent
    /// (TRANSP) nor cancelled, in no particular order. Cheaper than `events(in:)`, for
    /// free-slot searches over many events.
    func busyTime(in range: TimeRange, calendars: [String]?, timeZone: String?) throws(StoreError) -> [BusyTime]
    /// The busy time of one calendar in `range`, floating and all-day times read in
    /// `timeZone` (a CalDAV request's own), else in the calendar's zone.
    func busyTime(in range: TimeRange, calendar: some CalendarReference, timeZone: ZoneRules?)
        throws(StoreError) -> [BusyTime]
    /// The first `limit` alarm firings in `range`, with their occurrences, in firing order
    /// (repeats of one alarm are separate firings), each with its alarm's UID and what the
    /// scheduler did with it. Ask for one more than you will show to learn whether the
    /// answer was cut.
    func alarms(firingIn range: TimeRange, calendars: [String]?, timeZone: String?, limit: Int) throws(StoreError)
        -> [AlarmFiring]
    /// The identifiers of the events in a calendar with an alarm that fires in `range`
    /// (RFC 4791 §9.9, a VALARM time range).
    func events(withAlarmsFiringIn range: TimeRange, calendar: String) throws(StoreError) -> Set<String>
    /// Dismisses or snoozes the alarm named `alarmUID` (its UID, or the name the store
    /// derives for one without) of an event, in the override of `recurrenceID` when the
    /// series has one, else in the master: writes exactly what RFC 9074 clients write, so
    /// every synced device sees it. `notFound` when the event has no such alarm there.
    func dismissAlarm(
        _ alarmUID: String, ofEvent identifier: String, recurrenceID: OccurrenceTime?, _ dismissal: AlarmDismissal,
        ifMatch: String?
    ) throws(StoreError) -> Event

    // MARK: Resources (CalDAV)

    /// Stores iCalendar bytes at `name` in a calendar, as sent, when
    /// ``ICalendar/AcceptancePolicy`` accepts them (its repairs come back as warnings;
    /// a refusal is `invalidCalendarData` with the parser's line, and nothing changes).
    /// `ifMatch` requires the current ETag; `ifNoneMatch` (`*`) requires that nothing is
    /// there yet. The Schedule-Tag changes or stays as `scheduleTag` says (nil: as it
    /// was); with `ifScheduleTagMatch`, it must still be that, checked inside the write
    /// (RFC 6638 §3.2.10). A sharee's VALARMs and TRANSP are kept as theirs. Returns the
    /// new ETag, and whether the name was free (created) or replaced.
    func writeResource(
        _ data: [UInt8], name: String, calendar: some CalendarReference, ifMatch: String?, ifNoneMatch: Bool,
        scheduleTag: ScheduleTagChange?, ifScheduleTagMatch: String?
    ) throws(StoreError) -> ResourceWrite
    /// Stores iCalendar bytes at `name` in a calendar, as sent, with the checks, `ifMatch` and `ifNoneMatch` of
    /// ``writeResource(_:name:calendar:ifMatch:ifNoneMatch:scheduleTag:ifScheduleTagMatch:)``, the Schedule-Tag
    /// kept as it was. Returns the new ETag, and whether the name was free (created) or replaced.
    func writeResource(
        _ data: [UInt8], name: String, calendar: some CalendarReference, ifMatch: String?, ifNoneMatch: Bool
    )
        throws(StoreError) -> ResourceWrite
    /// The resource at `name` in a calendar with its bytes and ETag (a sharee's as they see it); `notFound` if none.
    func resource(named name: String, calendar: some CalendarReference) throws(StoreError) -> StoredResource
    /// Deletes the resource at `name`, leaving a tombstone for sync; `ifMatch` (the ETag the user sees,
    /// or `*`) must match, else `preconditionFailed`. `notFound` when there is none.
    func deleteResource(named name: String, calendar: some CalendarReference, ifMatch: String?) throws(StoreError)
    /// Every resource of a calendar with its ETag, by name.
    func resources(calendar: some CalendarReference) throws(StoreError) -> [ResourceInfo]
    /// The resources of a calendar with an instance of a `componentType` component that
    /// overlaps `range` (RFC 4791 §9.9: recurrence-aware, overrides included, floating
    /// times read in the calendar's time zone), by name.
    func resources(overlapping range: TimeRange, componentType: ComponentType, calendar: some CalendarReference)
        throws(StoreError)
        -> [ResourceInfo]
    /// The named resources of a calendar with their bytes, in the order asked; names
    /// with nothing stored are left out.
    func resources(named names: [String], calendar: some CalendarReference) throws(StoreError) -> [StoredResource]
    /// The resources of a calendar that `query` selects, each with `content`, read in
    /// one transaction: only the selected objects are read, parsed or expanded.
    func report(_ query: ResourceQuery, content: ResourceContent, calendar: some CalendarReference)
        throws(StoreError) -> ResourceReport
    /// Imports calendar objects (each one VCALENDAR with one UID) in one transaction,
    /// each checked under ``ICalendar/AcceptancePolicy`` as ``writeResource(_:name:calendar:ifMatch:ifNoneMatch:)``
    /// checks it, and each atomically on its own: an object that fails is skipped with its error and
    /// the others are kept. An object whose UID the calendar already has replaces it.
    func importResources(_ objects: [[UInt8]], calendar: String) throws(StoreError) -> [Result<
        ResourceInfo, StoreError
    >]
    /// Imports the objects a file was split into, as `importResources` does.
    func importObjects(_ objects: [CalendarFileSplitter.Object], calendar: String) throws(StoreError) -> [Result<
        ResourceInfo, StoreError
    >]

    // MARK: Changes

    /// What changed in a calendar since `token` (everything there is, when nil), in
    /// change order, with each written resource's bytes when `includingData`, all read in
    /// one transaction (then at most ``ChangeSet/maxDataBytes`` of them, a listing cut there
    /// as at a limit). With a `limit`, at most that many changes, and the token is a
    /// checkpoint from which the rest follow. An unknown or expired token throws
    /// `invalidSyncToken`.
    func changes(since token: SyncToken?, calendar: some CalendarReference, limit: Int?, includingData: Bool)
        throws(StoreError) -> ChangeSet
    /// Forgets tombstones up to `token`; older tokens are then refused as expired.
    func pruneTombstones(through token: SyncToken, calendar: String) throws(StoreError)

}

extension EventStore {
    /// The occurrence of an event whose RECURRENCE-ID reads `recurrenceID` (as
    /// `OccurrenceTime.text` writes it, the part after `/` in an occurrence identifier),
    /// or, with nil, the only occurrence of a one-off event. Floating and all-day times
    /// are read in `timeZone`.
    public func occurrence(ofEvent identifier: String, recurrenceID: String?, timeZone: String?) throws(StoreError)
        -> EventOccurrence
    {
        let event = try event(withIdentifier: identifier)
        guard let calendar = event.calendarIdentifier, let eventID = event.localIdentifier else {
            throw StoreError(.notFound, "no event \(identifier)")
        }
        let center: Int
        if let recurrenceID {
            guard let time = OccurrenceTime(text: recurrenceID) else {
                throw StoreError(
                    .notFound, "no occurrence \(recurrenceID) of event \(identifier)", resource: identifier)
            }
            center = time.instant(in: .utc)
        } else {
            guard !event.isRecurring, let start = event.start else {
                throw StoreError(.notFound, "name an occurrence of the series \(identifier)", resource: identifier)
            }
            center = start.civil.secondsSinceEpoch
        }
        // A wall-clock id means different instants in different zones: look a day and a half either side.
        let found = try occurrences(
            in: TimeRange(start: center - 129_600, end: center + 129_601), calendars: [calendar],
            matching: EventFilter(componentTypes: Set(ComponentType.allCases)),
            timeZone: timeZone, limit: .max)
        if let match = found.occurrences.first(where: {
            $0.eventIdentifier == eventID && $0.recurrenceID?.text == recurrenceID
        }) {
            return match
        }
        // Only a cut of this series leaves the answer open; another series' cut does not.
        if let cut = found.truncatedSeries.first(where: { $0.eventIdentifier == eventID }) {
            throw StoreError(
                .invalidArgument, "cannot find occurrence \(recurrenceID ?? "") of \(cut)", resource: identifier)
        }
        throw StoreError(.notFound, "no occurrence \(recurrenceID ?? "") of event \(identifier)", resource: identifier)
    }

    /// Every change since `token`.
    public func changes(since token: SyncToken?, calendar: some CalendarReference) throws(StoreError) -> ChangeSet {
        try changes(since: token, calendar: calendar, limit: nil, includingData: false)
    }

    /// The changes since `token`, at most `limit` of them, without their bytes.
    public func changes(since token: SyncToken?, calendar: some CalendarReference, limit: Int?) throws(StoreError)
        -> ChangeSet
    {
        try changes(since: token, calendar: calendar, limit: limit, includingData: false)
    }

    /// `writeResource`, when only the new ETag matters.
    public func putResource(_ data: [UInt8], name: String, calendar: String, ifMatch: String?, ifNoneMatch: Bool)
        throws(StoreError) -> String
    {
        try writeResource(data, name: name, calendar: calendar, ifMatch: ifMatch, ifNoneMatch: ifNoneMatch).etag
    }

    /// The occurrences of ``occurrences(in:calendars:matching:timeZone:limit:)`` when they
    /// are complete; when a bound of expansion cut a series, the read is refused with
    /// `expansionLimit`, naming the series (ask for a shorter range, or read the
    /// ``OccurrenceList`` to show what there is and say what is missing).
    public func events(
        in range: TimeRange, calendars: [String]?, matching filter: EventFilter, timeZone: String?, limit: Int
    )
        throws(StoreError) -> [EventOccurrence]
    {
        let list = try occurrences(in: range, calendars: calendars, matching: filter, timeZone: timeZone, limit: limit)
        if let cut = list.truncatedSeries.first {
            throw StoreError(
                .expansionLimit, (list.truncationNotice ?? cut.description) + "; ask for a shorter range",
                resource: cut.eventIdentifier)
        }
        return list.occurrences
    }

    /// The complete occurrences in `range` (every visible calendar when nil), unlimited, floating times
    /// in each calendar's zone; `expansionLimit` when a series was cut.
    public func events(in range: TimeRange, calendars: [String]? = nil, matching filter: EventFilter = .all)
        throws(StoreError) -> [EventOccurrence]
    {
        try events(in: range, calendars: calendars, matching: filter, timeZone: nil, limit: .max)
    }

    /// The complete occurrences in `range`, floating times read in `timeZone`, unlimited;
    /// `expansionLimit` when a series was cut.
    public func events(in range: TimeRange, calendars: [String]?, matching filter: EventFilter, timeZone: String?)
        throws(StoreError) -> [EventOccurrence]
    {
        try events(in: range, calendars: calendars, matching: filter, timeZone: timeZone, limit: .max)
    }

    /// The user's copy of the object with this UID (``ownResource(withUID:except:)``).
    public func ownResource(withUID uid: String) throws(StoreError) -> (
        calendar: EventCalendar, resource: StoredResource
    )? { try ownResource(withUID: uid, except: nil) }

    /// Saves an event with span `.thisEvent` (an occurrence of a series becomes an override), without an ETag check.
    @discardableResult
    public func save(_ event: Event) throws(StoreError) -> Event { try save(event, span: .thisEvent, ifMatch: nil) }

    /// Saves an event with `span`, without an ETag check.
    @discardableResult
    public func save(_ event: Event, span: Span) throws(StoreError) -> Event {
        try save(event, span: span, ifMatch: nil)
    }

    /// Removes an event with `span`, without an ETag check.
    public func remove(_ event: Event, span: Span) throws(StoreError) { try remove(event, span: span, ifMatch: nil) }

    /// Saves a calendar's caller-settable fields without an ETag check.
    public func updateCalendar(_ calendar: EventCalendar) throws(StoreError) -> EventCalendar {
        try updateCalendar(calendar, ifMatch: nil)
    }

    /// Deletes a calendar and everything in it, without an ETag check.
    public func deleteCalendar(withIdentifier identifier: String) throws(StoreError) {
        try deleteCalendar(withIdentifier: identifier, ifMatch: nil)
    }

    /// Removes an event with span `.thisEvent` (an occurrence: only that instance), without an ETag check.
    public func remove(_ event: Event) throws(StoreError) { try remove(event, span: .thisEvent, ifMatch: nil) }

    /// Creates a calendar owned by the user, named by a new UUID.
    public func createCalendar(_ calendar: EventCalendar) throws(StoreError) -> EventCalendar {
        try createCalendar(calendar, name: nil)
    }

    /// ``removeEvents(in:calendar:title:timeZone:)`` with floating times read in each calendar's zone.
    @discardableResult
    public func removeEvents(in range: TimeRange, calendar: String, title: String? = nil) throws(StoreError)
        -> [EventOccurrence]
    {
        try removeEvents(in: range, calendar: calendar, title: title, timeZone: nil)
    }

    /// The first `limit` alarm firings in `range` (all visible calendars when nil), floating times
    /// read in each calendar's zone.
    public func alarms(firingIn range: TimeRange, calendars: [String]? = nil, limit: Int = 10_000) throws(StoreError)
        -> [AlarmFiring]
    {
        try alarms(firingIn: range, calendars: calendars, timeZone: nil, limit: limit)
    }
}
