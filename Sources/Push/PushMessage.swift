import CalendarStore

/// The body of a WebDAV-Push message as DAVx⁵ reads it (dav4jvm's `PushMessage`): the
/// collection's topic, a `content-update` with the sync token after the change when its
/// members changed, a `property-update` when its own properties did.
///
/// The draft's text still wraps the topic and sync token in a `DAV:propstat`; DAVx⁵
/// reads the flat form, which newer revisions of the draft's schema use too.
public enum PushMessage {
    /// The WebDAV-Push XML namespace.
    public static let namespace = "https://bitfire.at/webdav-push"

    public static func body(topic: String, syncToken: String?, propertiesChanged: Bool) -> [UInt8] {
        var xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <P:push-message xmlns:D="DAV:" xmlns:P="\(namespace)"><P:topic>\(escaped(topic))</P:topic>
            """
        if let syncToken {
            xml += "<P:content-update><D:sync-token>\(escaped(syncToken))</D:sync-token></P:content-update>"
        }
        if propertiesChanged { xml += "<P:property-update/>" }
        xml += "</P:push-message>\n"
        return Array(xml.utf8)
    }

    /// The message a job owes.
    static func body(for job: PushJob, topicKey: String) -> [UInt8] {
        body(
            topic: PushTopic.topic(ofCalendar: job.subscription.calendar, key: topicKey),
            syncToken: job.content
                ? SyncToken(calendar: job.subscription.calendar, sequence: job.sequence).description : nil,
            propertiesChanged: job.property)
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }
}
