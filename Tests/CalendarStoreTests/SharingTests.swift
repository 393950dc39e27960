import AlmanacTestSupport
import Testing

@testable import CalendarStore

/// Sharing in the store: invitations and their answers, the name a share has in the
/// sharee's home, access, leaving and removal, and the notes each side is sent.
@Suite("Sharing") struct SharingTests {
    @Test(arguments: Backend.allCases) func anInvitationTakesEffectWhenAccepted(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.store.createCalendar(EventCalendar(title: "Work"), name: "work")
        let bob = try fixture.store(for: "bob")
        try fixture.store.share(
            calendar: work.id, with: "bob", access: .readWrite, invite: true, summary: "Our team's calendar")
        // Waiting: not in Bob's calendars, not reachable by name or id.
        #expect(try bob.calendars().isEmpty)
        #expect(throws: StoreError.self) { try bob.calendar(withIdentifier: work.id) }
        #expect(try fixture.store.shares(ofCalendar: work.id).map(\.status) == [.invited])
        let invitation = try #require(try bob.sharingNotifications().first)
        #expect(invitation.kind == .invite && invitation.status == .invited && invitation.from == "alice")
        #expect(invitation.hostOwner == "alice" && invitation.hostName == "work" && invitation.access == .readWrite)
        #expect(invitation.summary == "Our team's calendar" && invitation.calendar == work.id)

        let accepted = try #require(try bob.answerShare(ofCalendar: work.id, accept: true))
        #expect(accepted.name == "alice-work" && accepted.ownerCollectionName == "work")
        #expect(accepted.access == .readWrite && accepted.owner == "alice")
        #expect(try bob.calendars().map(\.id) == [work.id])
        #expect(try bob.calendarHandle(named: "alice-work").calendar.id == work.id)
        // The same calendar: one sync token for both.
        #expect(
            try bob.calendar(withIdentifier: work.id).syncToken
                == (try fixture.store.calendar(withIdentifier: work.id).syncToken))
        #expect(try fixture.store.shares(ofCalendar: work.id).map(\.status) == [.accepted])
        #expect(try bob.sharingNotifications().map(\.status) == [.accepted])
        let reply = try #require(try fixture.store.sharingNotifications().first)
        #expect(reply.kind == .reply && reply.from == "bob" && reply.status == .accepted)
        #expect(reply.inReplyTo == invitation.uid)

        // The owner's own view is unchanged.
        let own = try fixture.store.calendar(withIdentifier: work.id)
        #expect(own.name == "work" && own.access == nil)
    }

    @Test(arguments: Backend.allCases) func accessChangesKeepTheShareAndItsName(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.store.createCalendar(EventCalendar(title: "Work"), name: "work")
        let bob = try fixture.store(for: "bob")
        // Bob already has a calendar of the name the share would take: it is numbered.
        let his = try bob.createCalendar(EventCalendar(title: "His"), name: "alice-work")
        try fixture.store.share(calendar: work.id, with: "bob", access: .read)
        let shared = try bob.calendar(withIdentifier: work.id)
        #expect(shared.name == "alice-work-2" && shared.access == .read)
        #expect(try bob.calendarHandle(named: "alice-work").calendar.id == his.id)
        // A new calendar cannot take the share's name.
        let taken = try #require(throws: StoreError.self) {
            try bob.createCalendar(EventCalendar(title: "Clash"), name: "alice-work-2")
        }
        #expect(taken.code == .alreadyExists)
        // An accepted share stays accepted when its access changes, even through an invitation.
        try fixture.store.share(calendar: work.id, with: "bob", access: .readWrite, invite: true, summary: nil)
        let changed = try bob.calendar(withIdentifier: work.id)
        #expect(changed.name == "alice-work-2" && changed.access == .readWrite)
        #expect(try fixture.store.shares(ofCalendar: work.id).map(\.status) == [.accepted])
        // Bob was told of both, the second superseding the first.
        #expect(try bob.sharingNotifications().map(\.access) == [.readWrite])
    }

    @Test(arguments: Backend.allCases) func leavingAndRemovalTakeTheCalendarAway(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        _ = try fixture.store.putResource(
            resource(vevent(uid: "a", ["DTSTART:20261201T090000Z", "DTEND:20261201T100000Z"])), name: "a.ics",
            calendar: work.id, ifMatch: nil, ifNoneMatch: false)
        let bob = try fixture.store(for: "bob")
        try fixture.store.share(calendar: work.id, with: "bob", access: .read)
        // A read-only sharee deleting the calendar leaves the share; the owner keeps everything.
        try bob.deleteCalendar(withIdentifier: work.id)
        #expect(try bob.calendars().isEmpty)
        #expect(try fixture.store.resources(calendar: work.id).map(\.name) == ["a.ics"])
        #expect(try fixture.store.shares(ofCalendar: work.id).map(\.status) == [.declined])
        #expect(try fixture.store.sharingNotifications().map(\.status) == [.declined])
        // Shared again: once declined, it is an invitation again, never forced on Bob;
        // he accepts, then the owner removes it and Bob is told.
        try fixture.store.share(calendar: work.id, with: "bob", access: .read)
        #expect(try bob.calendars().isEmpty)
        #expect(try fixture.store.shares(ofCalendar: work.id).map(\.status) == [.invited])
        _ = try bob.answerShare(ofCalendar: work.id, accept: true)
        #expect(try bob.calendars().count == 1)
        try fixture.store.share(calendar: work.id, with: "bob", access: nil)
        #expect(try bob.calendars().isEmpty)
        #expect(try fixture.store.shares(ofCalendar: work.id).isEmpty)
        #expect(try bob.sharingNotifications().last?.kind == .removed)
        // Bob removes his notes one by one.
        for note in try bob.sharingNotifications() { try bob.removeSharingNotification(note.uid) }
        #expect(try bob.sharingNotifications().isEmpty)
        let gone = try #require(throws: StoreError.self) { try bob.removeSharingNotification("nothing") }
        #expect(gone.code == .notFound)
    }

    @Test(arguments: Backend.allCases) func badSharesChangeNothing(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        let work = try fixture.calendar()
        let bob = try fixture.store(for: "bob")
        func code(_ body: () throws -> Void) -> StoreError.Code? {
            do { try body() } catch let error as StoreError { return error.code } catch { return nil }
            return nil
        }
        #expect(code { try fixture.store.share(calendar: work.id, with: "alice", access: .read) } == .invalidArgument)
        #expect(code { try fixture.store.share(calendar: work.id, with: "nobody", access: .read) } == .notFound)
        #expect(code { try bob.share(calendar: work.id, with: "bob", access: .read) } == .notFound)
        let long = String(repeating: "x", count: 1025)
        #expect(
            code { try fixture.store.share(calendar: work.id, with: "bob", access: .read, invite: true, summary: long) }
                == .invalidArgument)
        #expect(code { try bob.answerShare(ofCalendar: work.id, accept: true) } == .notFound)
        #expect(try fixture.store.shares(ofCalendar: work.id).isEmpty)
        #expect(try bob.sharingNotifications().isEmpty)
        // A read-write sharee cannot share on, nor see the shares.
        try fixture.store.share(calendar: work.id, with: "bob", access: .readWrite)
        try fixture.backend.createUser(named: "carol")
        #expect(code { try bob.share(calendar: work.id, with: "carol", access: .read) } == .forbidden)
        #expect(code { _ = try bob.shares(ofCalendar: work.id) } == .forbidden)
    }

    /// However many shares come and go, a user keeps at most the newest 500 notes.
    @Test func notificationsAreCapped() throws {
        let fixture = try StoreFixture(.sqlite)
        let work = try fixture.calendar()
        let bob = try fixture.store(for: "bob")
        // Each round leaves one note (the removal; a new invitation replaces the one before).
        for _ in 0..<505 {
            try fixture.store.share(calendar: work.id, with: "bob", access: .read)
            try fixture.store.share(calendar: work.id, with: "bob", access: nil)
        }
        let notes = try bob.sharingNotifications()
        #expect(notes.count == DatabaseEventStore.maxSharingNotifications)
        #expect(notes.last?.kind == .removed)
    }

    @Test(arguments: Backend.allCases) func eMailAddressesNameOneUserEach(_ kind: Backend) throws {
        let fixture = try StoreFixture(kind)
        try fixture.backend.setAddresses(["Alice@Example.com", "mailto:a.l@example.org"], forUser: "alice")
        #expect(try fixture.backend.addresses(ofUser: "alice") == ["alice@example.com", "a.l@example.org"])
        #expect(try fixture.backend.user(withAddress: "MAILTO:ALICE@example.COM")?.name == "alice")
        #expect(try fixture.backend.user(withAddress: "bob@example.com") == nil)
        let taken = try #require(throws: StoreError.self) {
            try fixture.backend.setAddresses(["alice@example.com"], forUser: "bob")
        }
        #expect(taken.code == .alreadyExists)
        #expect(try fixture.backend.addresses(ofUser: "bob").isEmpty)
        for bad in [
            "", "alice", "@example.com", "alice@", "a@b@c", "a b@c.d", "a<b>@c.d",
            String(repeating: "a", count: 250) + "@b.cd",
        ] {
            #expect(throws: StoreError.self, "\(bad)") { try fixture.backend.setAddresses([bad], forUser: "bob") }
        }
        let many = (0...20).map { "a\($0)@example.com" }
        #expect(throws: StoreError.self) { try fixture.backend.setAddresses(many, forUser: "bob") }
        try fixture.backend.setAddresses([], forUser: "alice")
        #expect(try fixture.backend.user(withAddress: "alice@example.com") == nil)
    }
}
