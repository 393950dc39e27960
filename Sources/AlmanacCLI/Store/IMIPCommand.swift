import AlmanacServer
import CalendarStore
import Scheduling

/// `almanac imip receive`: one mail message on standard input: an answer to an
/// invitation, a proposed time, a request for the current version, or a proposal declined.
enum IMIPCommand {
    static func run(_ arguments: [String], io: CommandIO) throws(CommandFailure) -> Int32 {
        guard arguments.first == "receive" else { throw .usage("'imip' needs receive") }
        let options = try Options(Array(arguments.dropFirst()), for: try CommandTable.imip.spec("receive"))
        guard options.operands.isEmpty else { throw .usage("'imip receive' reads the message on standard input") }
        let message = try io.read(path: "-")
        guard message.count <= 1 << 20 else { throw CommandFailure(status: 1, "the message is larger than 1 MiB") }
        let backend = try StoreContext.openBackend(options, io: io)
        var mail: ServerMail?
        if let relay = try ServeCommand.relay(options) {
            do {
                mail = try ServerMail(relay: relay)
            } catch {
                throw CommandFailure(status: 1, "the mail relay cannot be used: \(error)")
            }
        }
        let now = io.now
        let agent = SchedulingAgent(backend: backend, mail: mail, now: { now })
        do {
            io.write(try agent.receive(message, for: nil) + "\n")
            return 0
        } catch {
            throw CommandFailure(status: 1, "the message was not taken: \(error.description)")
        }
    }
}
