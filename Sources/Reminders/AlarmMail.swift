import CalendarStore
import CivilTime
import HTTPTypes
import Scheduling

/// Where a reminder's mail goes out: the server's relay, fairly between users and never
/// on the scheduler's thread.
public protocol AlarmMailer: Sendable {
    /// Queues `message` for `owner`; `done` is called with nil once it is sent, else with
    /// why not. False when the owner's queue is full (then `done` is never called).
    func post(_ message: IMIP.Outgoing, for owner: String, done: @escaping @Sendable (String?) -> Void) -> Bool
}

/// The mail an `ACTION:EMAIL` alarm sends: to its owner's own addresses only (an alarm's
/// ATTENDEEs are whatever a client wrote; mailing them would make the server a relay for
/// anyone with an account), with the event's title, its time in the owner's calendar's
/// zone and a link to it.
public enum AlarmMail {
    /// Alarm mails one user's calendars send an hour, at most; the rest are recorded as refused.
    public static let perUserPerHour = 60
    /// Attempts before a mail is given up.
    public static let maxAttempts = 5

    /// The message for `job`, from `sender` (the server's `--smtp-from`, else the owner's
    /// first address), linking to the event under `baseURL` when there is one.
    public static func message(_ job: AlarmMailJob, sender: String?, baseURL: String?, now: Int) -> IMIP.Outgoing? {
        let record = job.record
        guard let from = sender ?? job.addresses.first else { return nil }
        let zoneName = record.timeZone.flatMap { TimeZoneDatabase.zone(named: $0) == nil ? nil : $0 } ?? "UTC"
        let zone = TimeZoneDatabase.zone(named: zoneName) ?? .utc
        let title = record.summary.flatMap { $0.isEmpty ? nil : $0 } ?? "(untitled)"
        let when = zone.spanText(record.occurrenceStart, record.occurrenceEnd, zoneName: zoneName)
        var text = ["Reminder: \(title)", "When: \(when)"]
        if let description = record.description, !description.isEmpty, description != title {
            text += ["", description]
        }
        if let baseURL {
            var link =
                baseURL.trimmingSuffix("/") + "/calendar/event?id=" + PercentEncoding.encode(record.eventIdentifier)
            if let occurrence = record.recurrenceID { link += "&occurrence=" + PercentEncoding.encode(occurrence) }
            text += ["", "Open it: " + link]
        }
        if record.late {
            text += ["", "This reminder comes late: the server was not running when it was due."]
        }
        return IMIP.message(
            from: from, name: "Almanac reminders", to: job.addresses, subject: "Reminder: \(title), \(when)",
            text: text.joined(separator: "\r\n") + "\r\n", itip: nil, now: now)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
