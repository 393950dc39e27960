/// A command's options: `--name value` pairs (repeatable), `--flag`s and operands.
struct Options {
    private var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    private(set) var operands: [String] = []

    /// Parses `arguments` by `spec`'s options: those with a value take the next
    /// argument (even when it starts with `-`) or `--name=value`; anything else that
    /// starts with `-` (other than `-` itself, and after `--`) is a usage error.
    init(_ arguments: [String], for spec: CommandSpec) throws(CommandFailure) {
        let valued = Set(spec.options.filter { $0.value != nil }.map(\.name))
        let allowedFlags = Set(spec.options.filter { $0.value == nil }.map(\.name))
        let command = spec.name
        var rest = arguments[...]
        var operandsOnly = false
        while let argument = rest.popFirst() {
            if operandsOnly || argument == "-" || !argument.hasPrefix("-") {
                operands.append(argument)
            } else if argument == "--" {
                operandsOnly = true
            } else if let equals = argument.firstIndex(of: "="), valued.contains(String(argument[..<equals])) {
                values[String(argument[..<equals]), default: []].append(
                    String(argument[argument.index(after: equals)...]))
            } else if valued.contains(argument) {
                guard let value = rest.popFirst() else {
                    throw .usage("'\(argument)' needs a value (see 'almanac \(command) --help')")
                }
                values[argument, default: []].append(value)
            } else if allowedFlags.contains(argument) {
                flags.insert(argument)
            } else {
                throw .usage("unknown option '\(argument)' for '\(command)' (see 'almanac \(command) --help')")
            }
        }
    }

    /// The last value given for `name`.
    subscript(_ name: String) -> String? { values[name]?.last }

    /// Every value given for `name`, in order.
    func all(_ name: String) -> [String] { values[name] ?? [] }

    func required(_ name: String, command: String) throws(CommandFailure) -> String {
        guard let value = self[name] else { throw .usage("'\(command)' needs \(name)") }
        return value
    }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
}
