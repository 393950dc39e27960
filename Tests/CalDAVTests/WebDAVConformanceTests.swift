import AlmanacTesting
import CalDAV
import CalendarStore
import Foundation
import HTTPTypes
import Testing

/// The WebDAV side of issue 18: sync-collection's levels and responses (RFC 6578),
/// supported-report-set against the reports answered, dead properties kept as set
/// (RFC 4918 §4.3), malformed bodies, Allow against 403/405, and MKCALENDAR's all or
/// nothing (RFC 4791 §5.3.1).
extension CalDAVTests {
    static let work = "/dav/calendars/anna/work/"

    /// A sync-collection body from the initial token with `level` (none when nil) and `prop`.
    static func syncBody(level: String?, prop: String = "<D:prop><D:getetag/></D:prop>") -> String {
        "<D:sync-collection xmlns:D=\"DAV:\"><D:sync-token/>"
            + (level.map { "<D:sync-level>\($0)</D:sync-level>" } ?? "") + prop + "</D:sync-collection>"
    }

    /// RFC 6578 §3.3: "When the client specifies the DAV:sync-level XML element with a value
    /// of "infinite", all appropriate member URLs of the collection specified as the
    /// request-URI are reported, provided child collections themselves also support the
    /// DAV:sync-collection report." A calendar has no child collections (RFC 4791 §4.2), so
    /// `infinite` reports what `1` reports and no 403 `sync-traversal-supported` is owed;
    /// a level that is neither is not a request §3.3 defines (400). §3.3 says clients MUST
    /// send a level; one that does not is answered as `1`, the only level a calendar has.
    @Test(arguments: ServerSetup.all) func syncLevelIsOneOrInfiniteAndAMissingOneReadsAsOne(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(Self.work + "lunch.ics", Self.event).status == 201)
        let one = try dav.report(Self.work, Self.syncBody(level: "1")).multistatus()
        #expect(one.hrefs == [Self.work + "lunch.ics"])
        for level in ["infinite", nil] {
            let answer = try dav.report(Self.work, Self.syncBody(level: level)).multistatus()
            #expect(answer.hrefs == one.hrefs, "\(level ?? "none")")
            #expect(answer.syncToken == one.syncToken, "\(level ?? "none")")
        }
        for level in ["2", "0", "infinity", ""] {
            #expect(try dav.report(Self.work, Self.syncBody(level: level)).status == 400, "\(level)")
        }
    }

    /// RFC 6578 §3.2: "For members that have changed (i.e., are new or have had their mapped
    /// resource modified), the DAV:response MUST contain at least one DAV:propstat element
    /// and MUST NOT contain any DAV:status element. For members that have been removed, the
    /// DAV:response MUST contain one DAV:status with a value set to '404 Not Found' and MUST
    /// NOT contain any DAV:propstat element." So an empty DAV:prop still gives each changed
    /// member a propstat, with status 200.
    @Test(arguments: ServerSetup.all) func syncWithAnEmptyPropAnswersAPropstatOrA404ForEveryMember(
        _ setup: ServerSetup
    ) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        #expect(try dav.put(Self.work + "lunch.ics", Self.event).status == 201)
        let other = Self.event.replacingOccurrences(of: "lunch@test", with: "other@test")
        #expect(try dav.put(Self.work + "other.ics", other).status == 201)
        let initial = try dav.syncCollection(Self.work, props: []).multistatus()
        #expect(Set(initial.hrefs) == [Self.work + "lunch.ics", Self.work + "other.ics"])
        for response in initial.responses {
            #expect(response.status == nil, "\(response)")
            #expect(response.propstats.map(\.statusLine) == ["HTTP/1.1 200 OK"], "\(response)")
            #expect(response.propstats.first?.properties.isEmpty == true, "\(response)")
        }
        let token = try #require(initial.syncToken)
        #expect(try dav.delete(Self.work + "other.ics").status == 204)
        #expect(
            try dav.put(Self.work + "lunch.ics", Self.event.replacingOccurrences(of: "Lunch", with: "Brunch")).status
                == 204)
        let changes = try dav.syncCollection(Self.work, token: token, props: []).multistatus()
        let changed = try #require(changes.response(Self.work + "lunch.ics"))
        #expect(changed.status == nil && changed.propstats.map(\.statusLine) == ["HTTP/1.1 200 OK"])
        let removed = try #require(changes.response(Self.work + "other.ics"))
        #expect(removed.status == 404 && removed.propstats.isEmpty)
        // Every response has one or the other, never neither.
        #expect(changes.responses.allSatisfy { ($0.status == nil) != $0.propstats.isEmpty })
    }

    /// RFC 3253 §3.1.5: DAV:supported-report-set "identifies the reports that are supported
    /// by the resource". For every kind of resource, a report is advertised there exactly
    /// when REPORT answers it there (anything but 403 `DAV:supported-report`, §3.6).
    @Test(arguments: ServerSetup.all) func everyResourceAdvertisesExactlyTheReportsItAnswers(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let object = Self.work + "lunch.ics"
        #expect(try dav.put(object, Self.event).status == 201)
        let namespaces = DAVClient.namespaces
        let reports: [DAVName: String] = [
            .caldav("calendar-query"):
                "<C:calendar-query \(namespaces)><D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name=\"VCALENDAR\"/></C:filter></C:calendar-query>",
            .caldav("calendar-multiget"):
                "<C:calendar-multiget \(namespaces)><D:prop><D:getetag/></D:prop><D:href>\(object)</D:href></C:calendar-multiget>",
            .caldav("free-busy-query"):
                "<C:free-busy-query \(namespaces)><C:time-range start=\"20261201T000000Z\" end=\"20261202T000000Z\"/></C:free-busy-query>",
            .dav("sync-collection"): Self.syncBody(level: "1"),
            .dav("principal-property-search"):
                "<D:principal-property-search xmlns:D=\"DAV:\"><D:property-search><D:prop><D:displayname/></D:prop><D:match>ann</D:match></D:property-search><D:prop><D:displayname/></D:prop></D:principal-property-search>",
            .dav("principal-search-property-set"): "<D:principal-search-property-set xmlns:D=\"DAV:\"/>",
            .dav("expand-property"): "<D:expand-property xmlns:D=\"DAV:\"/>",
            .dav("principal-match"): "<D:principal-match xmlns:D=\"DAV:\"><D:self/></D:principal-match>",
            .dav("acl-principal-prop-set"):
                "<D:acl-principal-prop-set xmlns:D=\"DAV:\"><D:prop><D:displayname/></D:prop></D:acl-principal-prop-set>",
        ]
        let paths = [
            "/", "/dav/", "/dav/principals/", "/dav/principals/anna/", "/dav/calendars/anna/", Self.work, object,
        ]
        for path in paths {
            let found = try dav.propfind(path, props: [.dav("supported-report-set")]).multistatus()
            let set = try #require(found.responses.first?.property(.dav("supported-report-set")), "\(path)")
            let advertised = Set(
                set.children(.dav("supported-report")).compactMap { $0.child(.dav("report"))?.children.first?.name })
            var answered: Set<DAVName> = []
            for (name, body) in reports {
                let answer = try dav.report(path, body)
                if !(answer.status == 403 && answer.precondition == .dav("supported-report")) { answered.insert(name) }
                #expect(answer.status < 500, "\(name) on \(path): \(answer.status)")
            }
            #expect(advertised == answered, "\(path)")
        }
    }

    /// RFC 4918 §4.3: "Servers MUST preserve the following XML Information Items … in storage
    /// and transmission of dead properties: For the property name Element Information Item
    /// itself: [namespace name] [local name] [attributes] named "xml:lang" or any such
    /// attribute in scope [children] of type element or character. On all Element Information
    /// Items in the property value: [namespace name] [local name] [attributes] [children] of
    /// type element or character. On Attribute Information Items in the property value:
    /// [namespace name] [local name] [normalized value]. On Character Information Items in the
    /// property value: [character code]." §14.26: language tagging in the scope of the
    /// `prop` element is stored with the property. The value is §4.4's example, mixed content
    /// and an element in another namespace included.
    @Test(arguments: ServerSetup.all) func deadPropertiesKeepTheirLanguageNamespacesAndText(_ setup: ServerSetup)
        throws
    {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let author = DAVName("http://example.com/ns", "author")
        let note = DAVName("http://example.com/other", "note")
        let patched = try dav.send(
            "PROPPATCH", Self.work,
            """
            <?xml version="1.0" encoding="utf-8"?>
            <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop xml:lang="en">
              <x:author xmlns:x="http://example.com/ns" xmlns:k="http://example.com/kinds">
                <x:name>Jane Doe</x:name>
                <!-- Jane's contact info -->
                <x:uri k:kind="email" added="2005-11-26">mailto:jane.doe@example.com</x:uri>
                <x:notes xmlns:h="http://www.w3.org/1999/xhtml" xml:lang="de">Jane has been working way <h:em>too</h:em> long on the long-awaited revision of <![CDATA[<RFC2518>]]> &amp; more.</x:notes>
              </x:author>
              <n:note xmlns:n="http://example.com/other" xml:lang="fr">  &lt;/n:note&gt;&lt;D:evil/&gt; </n:note>
            </D:prop></D:set></D:propertyupdate>
            """
        ).multistatus()
        #expect(patched.responses.first?.propertyNamesByStatus == [200: [author, note]])

        let answer = try dav.send(
            "PROPFIND", Self.work,
            "<D:propfind xmlns:D=\"DAV:\" xmlns:x=\"http://example.com/ns\" xmlns:n=\"http://example.com/other\"><D:prop><x:author/><n:note/></D:prop></D:propfind>",
            headers: ["Depth": "0"])
        let found = try #require(try answer.multistatus().responses.first)
        // The property element carries the language that was in scope for it.
        let value = try #require(found.property(author))
        #expect(value.attributes["xml:lang"] == "en")
        #expect(
            value.childNames == [
                .init(author.namespace, "name"), .init(author.namespace, "uri"), .init(author.namespace, "notes"),
            ])
        let uri = try #require(value.child(.init(author.namespace, "uri")))
        #expect(uri.text == "mailto:jane.doe@example.com")
        #expect(uri.attributes["added"] == "2005-11-26" && uri.attributes["k:kind"] == "email")
        #expect(answer.text.contains("xmlns:k=\"http://example.com/kinds\""))
        // Mixed content in order, the XHTML element in its namespace, the child's own language.
        let notes = try #require(value.child(.init(author.namespace, "notes")))
        #expect(notes.attributes["xml:lang"] == "de")
        #expect(notes.childNames == [DAVName("http://www.w3.org/1999/xhtml", "em")])
        #expect(notes.text == "Jane has been working way too long on the long-awaited revision of <RFC2518> & more.")
        // Text that looks like markup stays text, white space and all.
        let escaped = try #require(found.property(note))
        #expect(escaped.attributes["xml:lang"] == "fr")
        #expect(escaped.children.isEmpty && escaped.text == "  </n:note><D:evil/> ")
        #expect(!answer.text.contains("<D:evil/>"))
        // allprop returns it the same way.
        let all = try #require(try dav.propfind(Self.work).multistatus().responses.first?.property(note))
        #expect(all.text == escaped.text && all.attributes["xml:lang"] == "fr")
    }

    /// Dead properties stored before the whole element was kept hold the value's inner XML
    /// (escaped text, or elements written `<X:…` with their namespace): they are still
    /// answered inside their property element.
    @Test(arguments: [ServerSetup.inProcess]) func deadPropertiesStoredAsInnerXMLStillRead(_ setup: ServerSetup)
        throws
    {
        let server = try TestServer(setup)
        let dav = server.dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let store = try server.eventStore(for: "anna")
        var calendar = try store.calendarHandle(named: "work").calendar
        calendar.deadProperties["{http://example.com/ns}flavour"] = "lemon &amp; lime"
        calendar.deadProperties["{http://example.com/ns}shape"] = "<X:round xmlns:X=\"http://example.com/ns\"/>"
        _ = try store.updateCalendar(calendar)
        let found = try #require(try dav.propfind(Self.work).multistatus().responses.first)
        #expect(found.property(DAVName("http://example.com/ns", "flavour"))?.text == "lemon & lime")
        #expect(
            found.property(DAVName("http://example.com/ns", "shape"))?.childNames == [
                DAVName("http://example.com/ns", "round")
            ])
    }

    /// RFC 4918 §8.2: "If a server receives XML that is not well-formed, then the server MUST
    /// reject the entire request with a 400 (Bad Request)." A body that is well-formed but not
    /// the method's element (§9.1 `propfind`, §9.2 `propertyupdate` holding `set` or `remove`,
    /// §14.19) is 400 too: there is no property to answer a status for. §9.1: "An empty
    /// PROPFIND request body MUST be treated as if it were an 'allprop' request."
    @Test(arguments: ServerSetup.all) func malformedPropfindAndProppatchBodiesAre400(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let depth: HTTPHeaders = ["Depth": "0"]
        for body in ["<D:propfind xmlns:D=\"DAV:\"><D:prop>", "<D:prop xmlns:D=\"DAV:\"/>", "not xml"] {
            #expect(try dav.send("PROPFIND", Self.work, body, headers: depth).status == 400, "\(body)")
        }
        for body in [
            "<D:propertyupdate xmlns:D=\"DAV:\"><D:set>", "<D:propfind xmlns:D=\"DAV:\"/>",
            "<D:propertyupdate xmlns:D=\"DAV:\"/>", "<D:propertyupdate xmlns:D=\"DAV:\"><D:set/></D:propertyupdate>",
            "",
        ] {
            #expect(try dav.send("PROPPATCH", Self.work, body).status == 400, "\(body)")
        }
        let all = try dav.send("PROPFIND", Self.work, headers: depth).multistatus()
        #expect(all.responses.first?.property(.displayName)?.text == "Work & more")
        #expect(all.responses.first?.property(.getCTag) != nil)
    }

    /// RFC 9110 §15.5.6: a 405 "MUST generate an Allow header field … containing a list of
    /// the target resource's currently supported methods". For every kind of resource and
    /// every write method: a 405 names the Allow that OPTIONS gives there and the method is
    /// not in it; a method in Allow is never 405 (a precondition refuses it with 403, as PUT
    /// into another user's tree or MKCALENDAR on an existing resource, RFC 4791 §5.3.1.1).
    @Test(arguments: ServerSetup.all) func allowAgreesWithEvery405(_ setup: ServerSetup) throws {
        let dav = try TestServer(setup).dav("anna")
        #expect(try dav.makeCalendar() == 201)
        let object = Self.work + "lunch.ics"
        #expect(try dav.put(object, Self.event).status == 201)
        // The object before its calendar: DELETE, last on each, removes what it answers on.
        let paths = ["/dav/", "/dav/principals/", "/dav/principals/anna/", "/dav/calendars/anna/", object, Self.work]
        let destination: HTTPHeaders = ["Destination": "/dav/calendars/anna/work/"]
        for path in paths {
            let allow = try #require(dav.send("OPTIONS", path).headers["Allow"], "\(path)")
            for method in ["PUT", "PROPPATCH", "MKCOL", "COPY", "MOVE", "MKCALENDAR", "DELETE"] {
                let body =
                    method == "PUT" ? Self.event : method == "PROPPATCH" ? "<D:propertyupdate xmlns:D=\"DAV:\"/>" : ""
                let answer = try dav.send(method, path, body, headers: destination)
                let listed = allow.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains(
                    method)
                if answer.status == 405 {
                    #expect(!listed && answer.headers["Allow"] == allow, "\(method) \(path)")
                } else {
                    #expect(listed, "\(method) \(path): \(answer.status)")
                }
            }
        }
    }

    /// RFC 4791 §5.3.1: an MKCALENDAR that cannot set every property fails and creates
    /// nothing ("If the MKCALENDAR request fails, the server state preceding the request
    /// MUST be restored"); likewise extended MKCOL (RFC 5689 §3). The answer is 207 with
    /// each property's status, the one that failed with its own (403 for a protected
    /// property, RFC 4918 §9.2.1) and the others 424 Failed Dependency.
    @Test(arguments: ServerSetup.all) func makingACalendarWithAPropertyThatCannotBeSetCreatesNothing(
        _ setup: ServerSetup
    ) throws {
        let dav = try TestServer(setup).dav("anna")
        let bodies = [
            (
                "MKCALENDAR",
                "<C:mkcalendar \(DAVClient.namespaces)><D:set><D:prop><D:displayname>Trips</D:displayname><D:getetag>\"x\"</D:getetag></D:prop></D:set></C:mkcalendar>"
            ),
            (
                "MKCOL",
                "<D:mkcol \(DAVClient.namespaces)><D:set><D:prop><D:resourcetype><D:collection/><C:calendar/></D:resourcetype><D:displayname>Trips</D:displayname><D:getetag>\"x\"</D:getetag></D:prop></D:set></D:mkcol>"
            ),
        ]
        for (method, body) in bodies {
            let answer = try dav.send(method, "/dav/calendars/anna/trips/", body)
            let response = try #require(try answer.multistatus().response("/dav/calendars/anna/trips/"), "\(method)")
            #expect(response.status(of: .getETag) == 403, "\(method)")
            #expect(response.status(of: .displayName) == 424, "\(method)")
            if method == "MKCOL" { #expect(response.status(of: .resourceType) == 424) }
            #expect(try dav.propfind("/dav/calendars/anna/trips/").status == 404, "\(method)")
        }
    }
}
