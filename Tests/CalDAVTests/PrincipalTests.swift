import AlmanacTesting
import CalDAV
import Testing

/// Principals as RFC 3744 defines them: the principal collection (§5.8) listing the
/// principals a user may see (the operator's `--visible-principals`: their own by
/// default, or everyone's), `principal-collection-set` on every resource (§5.8), and the
/// principal-match (§9.3) and principal-property-search (§9.4) reports.
@Suite struct PrincipalTests {
    static let collection = "/dav/principals/"
    static let anna = "/dav/principals/anna/"
    static let bob = "/dav/principals/bob/"
    static let carla = "/dav/principals/carla/"
    static let collectionSet = DAVName.dav("principal-collection-set")

    /// anna ("Anna Berg"), bob ("Bob Stone") and carla (no display name).
    func server(_ setup: ServerSetup, visible: PrincipalVisibility = .onlySelf) throws -> TestServer {
        let server = try TestServer(setup, users: [], visiblePrincipals: visible)
        try server.createUser("anna", displayName: "Anna Berg")
        try server.createUser("bob", displayName: "Bob Stone")
        try server.createUser("carla")
        return server
    }

    /// A principal-property-search body: each criterion's properties (inner XML of its
    /// DAV:prop) and match, then `extra` (a DAV:prop, apply-to-principal-collection-set).
    static func search(_ criteria: [(String, String)], test: String? = nil, _ extra: String = "") -> String {
        let attribute = test.map { " test=\"\($0)\"" } ?? ""
        let searches = criteria.map {
            "<D:property-search><D:prop>\($0.0)</D:prop><D:match>\($0.1)</D:match></D:property-search>"
        }
        return
            "<D:principal-property-search \(DAVClient.namespaces)\(attribute)>\(searches.joined())\(extra)</D:principal-property-search>"
    }

    static let applyToSet = "<D:apply-to-principal-collection-set/>"

    func found(_ dav: DAVClient, at path: String, _ body: String) throws -> [String] {
        let answer = try dav.report(path, body)
        #expect(answer.status == 207, "\(path): \(answer.text)")
        return try answer.multistatus().hrefs.sorted()
    }

    // MARK: The principal collection (RFC 3744 §5.8)

    /// §5.8: "a server MAY report only a subset of the entire set of known principal
    /// collections": by default each user's principal collection holds their own alone.
    @Test(arguments: ServerSetup.all) func principalCollectionListsOnlyTheUsersOwnByDefault(_ setup: ServerSetup)
        throws
    {
        let server = try server(setup)
        let anna = server.dav("anna")
        let itself = try anna.propfind(Self.collection, props: [.resourceType, .displayName]).multistatus()
        #expect(itself.hrefs == [Self.collection])
        #expect(itself.response(Self.collection)?.property(.resourceType)?.childNames == [.dav("collection")])
        let listing = try anna.propfind(Self.collection, depth: "1", props: [.displayName, .dav("no-such-property")])
            .multistatus()
        #expect(listing.hrefs == [Self.collection, Self.anna])
        let own = try #require(listing.response(Self.anna))
        #expect(own.property(.displayName)?.text == "Anna Berg")
        // RFC 4918 §9.1: a property the resource does not have is in a 404 propstat.
        #expect(own.status(of: .dav("no-such-property")) == 404)
        #expect(!listing.allHrefs.contains(Self.bob))
        // bob sees only himself; neither sees the other's principal at all.
        #expect(
            try server.dav("bob").propfind(Self.collection, depth: "1").multistatus().hrefs == [
                Self.collection, Self.bob,
            ])
        #expect(try anna.propfind(Self.bob).status == 404)
        #expect(try anna.propfind("/dav/principals/nobody/").status == 404)
    }

    /// With `--visible-principals all` every user's principal is listed and readable, but
    /// only readable, and their calendars stay out of reach.
    @Test(arguments: ServerSetup.all) func everyPrincipalIsListedWhenAllAreVisible(_ setup: ServerSetup) throws {
        let server = try server(setup, visible: .all)
        let anna = server.dav("anna")
        let listing = try anna.propfind(Self.collection, depth: "1", props: [.displayName, .calendarHomeSet])
            .multistatus()
        #expect(listing.hrefs == [Self.collection, Self.anna, Self.bob, Self.carla])
        #expect(listing.response(Self.bob)?.property(.displayName)?.text == "Bob Stone")
        // A user without a display name is shown by their name.
        #expect(listing.response(Self.carla)?.property(.displayName)?.text == "carla")
        #expect(listing.response(Self.bob)?.property(.calendarHomeSet)?.hrefs == ["/dav/calendars/bob/"])

        let bob = try anna.propfind(Self.bob, props: [.dav("current-user-privilege-set"), .resourceType])
        #expect(bob.status == 207)
        let principal = try #require(try bob.multistatus().response(Self.bob))
        #expect(principal.property(.resourceType)?.childNames == [.dav("principal")])
        // RFC 3744 §3.7: current-user-privilege-set says what anna may do there: read.
        let privileges = try #require(principal.property(.dav("current-user-privilege-set")))
        let granted = Set(privileges.children(.dav("privilege")).flatMap(\.childNames))
        #expect(granted.contains(.dav("read")) && !granted.contains(.dav("write")))
        #expect(try anna.send("DELETE", Self.bob).status == 405)
        // Seeing bob's principal is not seeing his calendars.
        #expect(try anna.propfind("/dav/calendars/bob/").status == 404)
        // A principal of no user is not found, whatever is visible.
        #expect(try anna.propfind("/dav/principals/nobody/").status == 404)
        #expect(try anna.report("/dav/principals/nobody/", Self.search([])).status == 404)
    }

    // MARK: DAV:principal-collection-set (RFC 3744 §5.8)

    /// §5.8: "This protected property of a resource contains a set of URLs that identify
    /// the root collections that contain the principals": asked of every kind of resource,
    /// by PROPFIND at Depth 0 and 1 and in a report on an object.
    @Test(arguments: ServerSetup.all) func everyResourceNamesThePrincipalCollection(_ setup: ServerSetup) throws {
        let dav = try server(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let object = "/dav/calendars/anna/work/lunch.ics"
        #expect(try dav.put(object, CalDAVTests.event).status == 201)
        for path in [
            "/", "/dav/", Self.collection, Self.anna, "/dav/calendars/anna/", "/dav/calendars/anna/work/", object,
        ] {
            let answer = try dav.propfind(path, props: [Self.collectionSet]).multistatus()
            #expect(answer.responses.first?.property(Self.collectionSet)?.hrefs == [Self.collection], "\(path)")
        }
        let listing = try dav.propfind("/dav/calendars/anna/work/", depth: "1", props: [Self.collectionSet])
            .multistatus()
        #expect(listing.response(object)?.property(Self.collectionSet)?.hrefs == [Self.collection])
        let multiget = try dav.multiget(
            "/dav/calendars/anna/work/", prop: "<D:principal-collection-set/>", hrefs: [object]
        ).multistatus()
        #expect(multiget.response(object)?.property(Self.collectionSet)?.hrefs == [Self.collection])
        // It is protected (RFC 3744 §5.8): a PROPPATCH of it is refused.
        let patch = try dav.proppatch("/dav/calendars/anna/work/", set: [(Self.collectionSet, "")]).multistatus()
        #expect(patch.responses.first?.status(of: Self.collectionSet) == 403)
    }

    // MARK: principal-property-search (RFC 3744 §9.4)

    /// §9.4: "If DAV:apply-to-principal-collection-set is specified in the request body,
    /// the request is applied instead to each collection identified by the
    /// DAV:principal-collection-set property of the resource identified by the
    /// Request-URI"; by default it "searches all members (at any depth) of the collection
    /// identified by the Request-URI".
    @Test(arguments: ServerSetup.all) func searchCoversThePrincipalCollection(_ setup: ServerSetup) throws {
        let server = try server(setup, visible: .all)
        let dav = server.dav("anna")
        let stone = Self.search([("<D:displayname/>", "stone")])
        let stoneInSet = Self.search([("<D:displayname/>", "stone")], Self.applyToSet)
        // The root and the collection hold the principals: the same with and without.
        for path in ["/", "/dav/", Self.collection] {
            #expect(try found(dav, at: path, stone) == [Self.bob], "\(path)")
            #expect(try found(dav, at: path, stoneInSet) == [Self.bob], "\(path)")
        }
        // A principal's own scope is itself; its principal-collection-set holds bob.
        #expect(try found(dav, at: Self.anna, stone) == [])
        #expect(try found(dav, at: Self.anna, stoneInSet) == [Self.bob])
        #expect(try found(dav, at: Self.anna, Self.search([("<D:displayname/>", "berg")])) == [Self.anna])
        // From a calendar home, through its principal-collection-set.
        #expect(try found(dav, at: "/dav/calendars/anna/", stoneInSet) == [Self.bob])

        // By default only anna's own principal is there to be found.
        let alone = try self.server(setup).dav("anna")
        for path in ["/dav/", Self.collection, Self.anna] {
            #expect(try found(alone, at: path, stoneInSet) == [], "\(path)")
            #expect(
                try found(alone, at: path, Self.search([("<D:displayname/>", "berg")], Self.applyToSet)) == [Self.anna],
                "\(path)")
        }
        let none = try alone.report("/dav/", stoneInSet)
        #expect(!none.text.contains("bob") && !none.text.contains("Stone"))
    }

    /// §9.4: "Multiple property-search elements or multiple elements within a DAV:prop
    /// element will be interpreted with a logical AND"; `test="anyof"` (the extension
    /// Apple's clients send) asks for any one, `test="allof"` is the default spelt out.
    /// Matching is caseless substring matching, the "preferred default semantics".
    /// Clients find a sharee by e-mail address: the address set holds `mailto:` URIs of the
    /// user's addresses, searched like the rest.
    @Test func searchFindsUsersByEMailAddress() throws {
        let server = try server(.inProcess, visible: .all)
        try server.backend.setAddresses(["bob.stone@example.com"], forUser: "bob")
        let dav = server.dav("anna")
        let byAddress = Self.search([("<C:calendar-user-address-set/>", "bob.stone@")], Self.applyToSet)
        #expect(try found(dav, at: "/dav/", byAddress) == [Self.bob])
        let byURI = Self.search([("<C:calendar-user-address-set/>", "mailto:bob.stone")], Self.applyToSet)
        #expect(try found(dav, at: "/dav/", byURI) == [Self.bob])
        #expect(
            try found(dav, at: "/dav/", Self.search([("<C:calendar-user-address-set/>", "nobody@")], Self.applyToSet))
                == [])
    }

    @Test(arguments: ServerSetup.everyStore) func searchCriteriaAreANDedUnlessAnyOf(_ setup: ServerSetup) throws {
        let dav = try server(setup, visible: .all).dav("anna")
        let name = "<D:displayname/>"
        #expect(try found(dav, at: Self.collection, Self.search([(name, "BERG")])) == [Self.anna])
        // A user's name is searched with their display name; carla has only a name.
        #expect(try found(dav, at: Self.collection, Self.search([(name, "bob")])) == [Self.bob])
        #expect(try found(dav, at: Self.collection, Self.search([(name, "arl")])) == [Self.carla])
        #expect(try found(dav, at: Self.collection, Self.search([(name, "a"), (name, "berg")])) == [Self.anna])
        #expect(try found(dav, at: Self.collection, Self.search([(name, "berg"), (name, "stone")])) == [])
        #expect(
            try found(dav, at: Self.collection, Self.search([(name, "berg"), (name, "stone")], test: "allof")) == [])
        #expect(
            try found(dav, at: Self.collection, Self.search([(name, "berg"), (name, "stone")], test: "anyof")) == [
                Self.anna, Self.bob,
            ])
        // Two properties in one DAV:prop: both must contain the match.
        let both = "<D:displayname/><C:calendar-user-address-set/>"
        #expect(try found(dav, at: Self.collection, Self.search([(both, "anna")])) == [Self.anna])
        #expect(try found(dav, at: Self.collection, Self.search([(both, "berg")])) == [])
        // "A search requesting properties that are not searchable for a particular
        // principal will not match that principal."
        #expect(try found(dav, at: Self.collection, Self.search([("<D:getetag/>", "a")])) == [])
        #expect(
            try found(dav, at: Self.collection, Self.search([("<D:getetag/>", "a"), (name, "a")], test: "anyof")) == [
                Self.anna, Self.carla,
            ])
        #expect(try dav.report(Self.collection, Self.search([(name, "a")], test: "some")).status == 400)
        // principal-search-property-set (§9.5) names what is searched, display names first.
        let set = try DAVElement.parse(
            try dav.report(Self.collection, "<D:principal-search-property-set xmlns:D=\"DAV:\"/>").body)
        #expect(
            set.children(.dav("principal-search-property")).compactMap { $0.child(.dav("prop"))?.children.first?.name }
                == [.displayName, .caldav("calendar-user-address-set")])
    }

    /// §9.4: "If DAV:prop is specified in the request body, the properties specified in
    /// the DAV:prop element MUST be reported"; python `caldav` sends them beside an
    /// empty DAV:prop, which counts too. Properties a principal lacks are 404.
    @Test(arguments: ServerSetup.everyStore) func searchReportsTheAskedProperties(_ setup: ServerSetup) throws {
        let dav = try server(setup).dav("anna")
        let asked = try dav.report(
            Self.collection,
            Self.search([("<D:displayname/>", "anna")], "<D:prop><C:calendar-home-set/><D:getetag/></D:prop>")
        ).multistatus()
        let anna = try #require(asked.response(Self.anna))
        #expect(anna.property(.calendarHomeSet)?.hrefs == ["/dav/calendars/anna/"])
        #expect(anna.status(of: .getETag) == 404)
        let beside = try dav.report(
            "/dav/", Self.search([("<D:displayname/>", "anna")], "<D:prop/><C:calendar-home-set/>")
        ).multistatus()
        #expect(beside.response(Self.anna)?.property(.calendarHomeSet)?.hrefs == ["/dav/calendars/anna/"])
    }

    // MARK: principal-match (RFC 3744 §9.3)

    /// §9.3: the report identifies "all members (at any depth) of the collection identified
    /// by the Request-URI that are principals and that match the current user"; with
    /// DAV:principal-property, those whose property names the current user's principal.
    /// Without DAV:prop each match is an href with its status.
    @Test(arguments: ServerSetup.all) func principalMatchFindsTheUsersOwn(_ setup: ServerSetup) throws {
        let dav = try server(setup, visible: .all).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let match = "<D:principal-match xmlns:D=\"DAV:\"><D:self/></D:principal-match>"
        let answer = try dav.report(Self.collection, match).multistatus()
        #expect(answer.hrefs == [Self.anna])
        #expect(answer.response(Self.anna)?.status == 200)
        #expect(try dav.report("/dav/", match).multistatus().hrefs == [Self.anna])
        #expect(try dav.report(Self.anna, match).multistatus().hrefs == [Self.anna])
        // Others' principals and the calendar home are not anna's principal.
        #expect(try dav.report(Self.bob, match).multistatus().hrefs == [])
        #expect(try dav.report("/dav/calendars/anna/", match).multistatus().hrefs == [])
        let named = try dav.report(
            Self.collection,
            "<D:principal-match xmlns:D=\"DAV:\"><D:self/><D:prop><D:displayname/></D:prop></D:principal-match>"
        ).multistatus()
        #expect(named.response(Self.anna)?.property(.displayName)?.text == "Anna Berg")
        // §9.3.1's example: what the current user owns.
        let owned = try dav.report(
            "/dav/calendars/anna/",
            "<D:principal-match xmlns:D=\"DAV:\"><D:principal-property><D:owner/></D:principal-property></D:principal-match>"
        ).multistatus()
        #expect(owned.hrefs.sorted() == ["/dav/calendars/anna/", "/dav/calendars/anna/work/"])
        #expect(try dav.report(Self.collection, "<D:principal-match xmlns:D=\"DAV:\"/>").status == 400)
        // Advertised where it is answered (RFC 3253 §3.1.5).
        let reports = try dav.propfind(Self.collection, props: [.dav("supported-report-set")]).multistatus()
        #expect(
            reports.responses.first?.property(.dav("supported-report-set"))?.descendants.contains {
                $0.name == .dav("principal-match")
            } == true)
    }
}
