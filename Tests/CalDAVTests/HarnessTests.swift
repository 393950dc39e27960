import AlmanacTestSupport
import AlmanacTesting
import Foundation
import Testing

/// The harness itself: the loopback transport is a real listening socket, and the
/// parsed views refuse what they are not.
@Suite struct HarnessTests {
    @Test func aLoopbackServerListensOnARealPort() throws {
        let server = try TestServer(.loopback)
        #expect(server.port != 0)
        let raw = try RawHTTP.exchange(
            port: server.port, "OPTIONS /dav/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        // Not signed in: the challenge, straight off the wire.
        #expect(raw.hasPrefix("HTTP/1.1 401"))
        #expect(try server.dav(nil).send("OPTIONS", "/dav/").status == 401)
        #expect(try server.dav("anna").send("OPTIONS", "/dav/").status == 200)
    }

    @Test(arguments: ServerSetup.all) func aWrongPasswordIsRefused(_ setup: ServerSetup) throws {
        let server = try TestServer(setup)
        let wrong = "Basic " + Data("anna:not it".utf8).base64EncodedString()
        #expect(try server.send("PROPFIND", "/dav/", headers: ["Depth": "0"], authorization: wrong).status == 401)
    }

    @Test func parsedViewsRefuseOtherBodies() throws {
        let dav = try TestServer().dav("anna")
        // A 404 is not a multistatus, and a multistatus is not a DAV error.
        #expect(throws: TestServerError.self) { try dav.get("/dav/calendars/anna/none.ics").multistatus() }
        let root = try dav.propfind("/dav/")
        #expect(root.error == nil && root.precondition == nil)
        #expect(try root.multistatus().hrefs == ["/dav/"])
    }

    /// libxml2 recovers from broken markup; the harness does not, so a server that sent
    /// it would fail the suites.
    @Test(arguments: ["<a><b></a>", "<D:multistatus xmlns:D=\"DAV:\"><D:response>", "<a x=1/>", "", "text"])
    func malformedXMLIsNotReadAsADocument(_ text: String) {
        #expect(throws: TestServerError.self) { try DAVElement.parse(Array(text.utf8)) }
    }

    @Test func namespacesTextAndAttributesAreRead() throws {
        let root = try DAVElement.parse(
            Array(
                "<D:prop xmlns:D=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\"><C:comp name=\"VEVENT\"/><D:displayname>Work &amp; <![CDATA[<more>]]></D:displayname></D:prop>"
                    .utf8))
        #expect(root.name == .dav("prop"))
        #expect(root.childNames == [.caldav("comp"), .displayName])
        #expect(root.child(.caldav("comp"))?.attributes == ["name": "VEVENT"])
        #expect(root.child(.displayName)?.text == "Work & <more>")
    }
}
