import CalendarStore
import CivilTime
import HTTPTypes
import ICalendar
import JSON

/// The JSON body of a delivery, built from the outbox row alone, so every attempt sends
/// the same document (docs/webhooks.md lists the members).
public enum WebhookPayload {
    /// The API path of an event (`/api/v1/events/{id}`) or a calendar.
    static func path(_ kind: String, _ identifier: String) -> String {
        "/api/v1/\(kind)/" + PercentEncoding.encode(identifier)
    }

    public static func body(_ delivery: WebhookDelivery) -> [UInt8] {
        var href: JSONValue = .null
        if let booking = delivery.booking {
            if delivery.type != .holdExpired { href = .string(path("bookings", booking)) }
        } else if let event = delivery.eventIdentifier {
            if delivery.type != .eventDeleted || delivery.occurrence != nil { href = .string(path("events", event)) }
        } else if delivery.type != .calendarDeleted {
            href = .string(path("calendars", delivery.calendar))
        }
        func text(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }
        let occurrence: JSONValue =
            delivery.occurrence.map {
                .object([("recurrenceId", .string($0.recurrenceID)), ("span", .string($0.span))])
            } ?? .null
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(delivery.id)), ("type", .string(delivery.type.rawValue)),
            ("occurredAt", .string(CivilDateTime.utcText(milliseconds: delivery.occurred))),
            ("webhookId", .string(delivery.webhookID)), ("calendarId", .string(delivery.calendar)),
            ("sequence", .integer(delivery.sequence)), ("eventId", text(delivery.eventIdentifier)),
            ("uid", text(delivery.uid)), ("etag", text(delivery.etag)), ("resource", text(delivery.resource)),
            ("href", href), ("occurrence", occurrence),
        ]
        if delivery.type == .holdExpired {
            members.append(("holdId", text(delivery.booking)))
        } else if delivery.booking != nil {
            members.append(("bookingId", text(delivery.booking)))
        }
        if delivery.type == .alarmDue {
            members.append(("alarm", delivery.detail.flatMap { try? JSONValue(parsing: $0) } ?? .null))
        }
        let document: JSONValue = .object(members)
        return Array(document.jsonText.utf8)
    }

    /// The body of a test delivery (`ping`): no change behind it.
    public static func ping(id: String, webhook: String, at milliseconds: Int) -> [UInt8] {
        let document: JSONValue = .object([
            ("id", .string(id)), ("type", .string("ping")),
            ("occurredAt", .string(CivilDateTime.utcText(milliseconds: milliseconds))), ("webhookId", .string(webhook)),
        ])
        return Array(document.jsonText.utf8)
    }
}
