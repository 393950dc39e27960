import AlmanacCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

exit(Almanac.run(Array(CommandLine.arguments.dropFirst()), io: ProcessIO()))
