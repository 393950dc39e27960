import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A large calendar read on every core: its components split into runs, each run
/// parsed as a calendar of its own, the runs joined again.
///
/// It applies to the common shape of a large file: one `VCALENDAR`, its properties,
/// then its components, each line ending in CRLF or LF, nothing after `END:VCALENDAR`.
/// Each run is parsed with the calendar's own header (`BEGIN:VCALENDAR` and its
/// properties, so a METHOD is seen as in the whole file) and its own `END:VCALENDAR`
/// line, by the same parser and options as a whole-file parse.
///
/// The joined document is used only when every run parsed without a single
/// diagnostic and the runs' counts together stay inside the limits; then it equals
/// the whole-file parse, because nothing the parser carries from one component of
/// the calendar to the next changes a clean result. Otherwise (a warning, an error,
/// another shape) the caller parses the whole file in one pass, so diagnostics, their
/// order and their line numbers are always the one-pass ones.
enum ParallelParse {
    /// The processors online; one means a large input is read in one pass all the same.
    static let onlineCores = max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))

    /// Inputs smaller than this are parsed in one pass: splitting costs more than it saves.
    static let minimumBytes = 1 << 20

    /// The whole-file document, or nil when the caller must parse in one pass.
    static func document(_ input: UnsafeBufferPointer<UInt8>, options: ParseOptions, parts: Int? = nil)
        -> ICalendarDocument?
    {
        let wanted = parts ?? (input.count >= minimumBytes && onlineCores > 1 ? onlineCores * 2 : 1)
        guard wanted > 1, let layout = Layout(input), layout.componentStarts.count >= 2 else { return nil }
        let runs = layout.runs(wanted)
        guard runs.count > 1 else { return nil }
        // Read-only views of the caller's input, which outlives the parse.
        nonisolated(unsafe) let header = UnsafeBufferPointer(rebasing: input[0..<layout.componentStarts[0]])
        nonisolated(unsafe) let end = UnsafeBufferPointer(rebasing: input[layout.calendarEnd...])

        struct Outcome {
            var calendar: Component?
            var clean = false
            var components = 0
            var properties = 0
        }
        let outcomes = UnsafeMutableBufferPointer<Outcome>.allocate(capacity: runs.count)
        outcomes.initialize(repeating: Outcome())
        defer {
            outcomes.deinitialize()
            outcomes.deallocate()
        }
        nonisolated(unsafe) let slots = outcomes
        nonisolated(unsafe) let source = input
        DispatchQueue.concurrentPerform(iterations: runs.count) { index in
            let run = runs[index]
            var bytes: [UInt8] = []
            bytes.reserveCapacity(header.count + run.count + end.count)
            bytes.append(contentsOf: header)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: source[run]))
            bytes.append(contentsOf: end)
            // Each slot is written by its own iteration only.
            slots[index] = bytes.withUnsafeBufferPointer { buffer in
                var parser = ContentParser(input: buffer, options: options)
                parser.run()
                let roots = parser.roots
                guard parser.diagnostics.isEmpty, roots.count == 1, let calendar = roots.first,
                    calendar.name == "VCALENDAR"
                else { return Outcome() }
                return Outcome(
                    calendar: calendar, clean: true, components: parser.componentCount,
                    properties: parser.propertyCount)
            }
        }
        guard outcomes.allSatisfy(\.clean),
            outcomes.reduce(0, { $0 + $1.components }) <= options.limits.maxComponents,
            outcomes.reduce(0, { $0 + $1.properties }) <= options.limits.maxProperties,
            var calendar = outcomes[0].calendar
        else { return nil }
        calendar.components.reserveCapacity(layout.componentStarts.count)
        for index in 1..<runs.count {
            calendar.components.append(contentsOf: outcomes[index].calendar?.components ?? [])
            outcomes[index].calendar = nil
        }
        return ICalendarDocument(components: [calendar])
    }

    /// Where a calendar's components start, found from line starts alone (a folded
    /// line's continuation starts with a space, so it never looks like BEGIN or END).
    struct Layout {
        /// The offset of each `BEGIN:` line directly inside the VCALENDAR.
        var componentStarts: [Int] = []
        /// The offset of the `END:VCALENDAR` line, which ends the input.
        var calendarEnd = 0

        /// Nil unless the input is one VCALENDAR whose properties all come before its
        /// components, with nothing after it and no CR that does not end a line.
        init?(_ input: UnsafeBufferPointer<UInt8>) {
            guard Self.startsWith(input, 0, "BEGIN:VCALENDAR"), !ContentParser.hasBareCarriageReturn(input) else {
                return nil
            }
            var depth = 0
            var lineStart = 0
            var closed = false
            while lineStart < input.count {
                let lineFeed = ContentParser.find(0x0A, in: input, from: lineStart)
                guard !closed else { return nil }  // anything after END:VCALENDAR
                if Self.startsWith(input, lineStart, "BEGIN:") {
                    if depth == 0, lineStart != 0 { return nil }
                    if depth == 1 { componentStarts.append(lineStart) }
                    depth += 1
                } else if Self.startsWith(input, lineStart, "END:") {
                    depth -= 1
                    if depth < 0 { return nil }
                    if depth == 0 {
                        calendarEnd = lineStart
                        closed = true
                    }
                } else if depth == 1, !componentStarts.isEmpty {
                    return nil  // a calendar property after its first component
                } else if depth == 0 {
                    return nil
                }
                lineStart = lineFeed + 1
            }
            guard closed else { return nil }
        }

        /// `runs` contiguous runs of whole components, of about equal bytes.
        func runs(_ runs: Int) -> [Range<Int>] {
            guard let first = componentStarts.first else { return [] }
            let target = max(1, (calendarEnd - first) / runs)
            var result: [Range<Int>] = []
            var start = first
            for next in componentStarts.dropFirst() where next - start >= target && result.count < runs - 1 {
                result.append(start..<next)
                start = next
            }
            result.append(start..<calendarEnd)
            return result
        }

        /// Whether the line at `offset` starts with `prefix`, ignoring ASCII case as the parser does.
        static func startsWith(_ input: UnsafeBufferPointer<UInt8>, _ offset: Int, _ prefix: StaticString) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard offset + count <= input.count else { return false }
            let expected = prefix.utf8Start
            for index in 0..<count {
                let byte = input[offset + index]
                let folded = byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte
                if folded != expected[index] { return false }
            }
            return true
        }
    }
}
