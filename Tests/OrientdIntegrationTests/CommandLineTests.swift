import Testing

/// The command lines of orientd(8) and orientctl(1) and their sysexits codes.
@Suite("Command line")
struct CommandLineTests {
    /// A usage mistake and why it is one.
    struct Misuse: CustomTestStringConvertible, Sendable {
        var why: String
        var arguments: [String]
        var testDescription: String { why }
    }

    static let trace = Orientd.bundledTrace("brisk90.trace")

    static let misuses: [Misuse] = [
        Misuse(why: "an unknown option", arguments: ["--mock", trace, "--frobnicate"]),
        Misuse(why: "a stray argument", arguments: ["--mock", trace, "extra"]),
        Misuse(why: "--speed 0", arguments: ["--mock", trace, "--speed", "0"]),
        Misuse(why: "--speed -1", arguments: ["--mock", trace, "--speed", "-1"]),
        Misuse(why: "--speed fast", arguments: ["--mock", trace, "--speed", "fast"]),
        Misuse(why: "--speed nan", arguments: ["--mock", trace, "--speed", "nan"]),
        Misuse(why: "--speed inf", arguments: ["--mock", trace, "--speed", "inf"]),
        Misuse(why: "--speed without a value", arguments: ["--mock", trace, "--speed"]),
        Misuse(why: "--mock without a value", arguments: ["--mock"]),
        Misuse(why: "--loop without --mock", arguments: ["--loop"]),
        Misuse(why: "--exit-at-end without --mock", arguments: ["--exit-at-end", "--print"]),
        Misuse(why: "--loop with --exit-at-end", arguments: ["--mock", trace, "--loop", "--exit-at-end"]),
        Misuse(why: "a value for a flag", arguments: ["--mock", trace, "--print=yes"]),
        Misuse(why: "an unknown log level", arguments: ["--mock", trace, "--log-level", "loud"]),
    ]

    @Test("a usage mistake exits 64 with a message on stderr and nothing on stdout", arguments: misuses)
    func usageError(misuse: Misuse) throws {
        let run = try runOrientd(misuse.arguments, timeout: 5)
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("orientd: "), "\(run)")
        #expect(run.stderr.count > "orientd: ".count + 10, "\(run)")
    }

    @Test("--help prints the usage on stdout and exits 0")
    func help() throws {
        let run = try runOrientd(["--help"], timeout: 5)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.contains("Usage: orientd"))
        for option in ["--mock", "--speed", "--loop", "--exit-at-end", "--print", "--state-dir", "--version", "--help"] {
            #expect(run.stdout.contains(option), "usage does not mention \(option)")
        }
    }

    @Test("orientd --help and orientctl's every --help fit in 80 columns")
    func helpFitsATerminal() throws {
        var texts = [("orientd --help", try runOrientd(["--help"], timeout: 5).stdout)]
        for command in ["", "get", "watch", "lock", "unlock", "hold", "record", "status", "calibrate", "follow", "help"] {
            let arguments = command.isEmpty ? ["--help"] : [command, "--help"]
            texts.append(("orientctl \(arguments.joined(separator: " "))", try runOrientctl(arguments).stdout))
        }
        for (name, text) in texts {
            #expect(text.split(separator: "\n").count > 2, "\(name) printed no help")
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) where line.count > 80 {
                Issue.record("\(name): \(line.count) columns: \(line)")
            }
        }
    }

    @Test("orientd's help points at its manual and installed docs, not at paths in the repository")
    func helpPointsAtInstalledDocs() throws {
        for text in [try runOrientd(["--help"], timeout: 5).stdout, try runOrientctl(["--help"]).stdout,
                     try runOrientctl(["get", "--help"]).stdout, try runOrientctl(["watch", "--help"]).stdout] {
            #expect(!text.contains("docs/"), "\(text)")
        }
        #expect(try runOrientd(["--help"], timeout: 5).stdout.contains("man 8 orientd"))
        #expect(try runOrientctl(["--help"]).stdout.contains("man orientctl"))
    }

    @Test("an unknown orientd option gets a did-you-mean")
    func orientdDidYouMean() throws {
        let run = try runOrientd(["--mock", Self.trace, "--exit-at-edn"], timeout: 5)
        #expect(run.status == 64 && run.stderr.contains("unknown argument '--exit-at-edn'; did you mean '--exit-at-end'?"), "\(run)")
    }

    @Test("a replay at the default log level starts without a notice: the seat is no news")
    func quietStart() throws {
        let run = try runOrientd(["--mock", Self.trace, "--speed", "max", "--print", "--exit-at-end"])
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty, "\(run.stderr)")
    }

    @Test("--version prints orientd X.Y.Z first and exits 0")
    func version() throws {
        let run = try runOrientd(["--version"], timeout: 5)
        #expect(run.status == 0, "\(run)")
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.hasSuffix("\n"), "\(run.stdout.debugDescription)")
        // The first line is the daemon's version; library versions may follow.
        let first = run.lines.first ?? ""
        let pieces = first.split(separator: " ", omittingEmptySubsequences: false)
        let numbers = pieces.count == 2 ? pieces[1].split(separator: ".", omittingEmptySubsequences: false) : []
        #expect(pieces.first == "orientd", "\(first.debugDescription)")
        #expect(numbers.count == 3 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(first.debugDescription)")
    }

    @Test("without --mock and without an accelerometer there is no sensor: exit 69, or run publishing sensor absent")
    func noSensorSource() throws {
        let daemon = try OrientdProcess(["--print"])
        let line = daemon.readLine(timeout: 5)
        if let line {
            // A daemon that reads hardware never exits because of the sensor (docs/behaviour.md).
            let state = try StateLine(parsing: line)
            #expect(state.sensor == "absent" || state.sensor == "idle" || state.sensor == "active", "\(state)")
            #expect(daemon.waitForExit(timeout: 0.3) == false, "the daemon exited: \(daemon.stderr)")
            daemon.terminate()
            #expect(daemon.waitForExit(timeout: 5), "SIGTERM did not stop the daemon")
        } else {
            // A daemon without hardware support says so and exits 69.
            let exited = daemon.waitForExit(timeout: 5)
            if !exited { daemon.kill() }
            let run = daemon.result(timedOut: !exited)
            #expect(run.status == 69, "\(run)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("orientd: "), "\(run)")
        }
    }

    @Test("--option=value means the same as --option value")
    func inlineValues() throws {
        let spaced = try runOrientd(["--mock", Self.trace, "--speed", "max", "--print", "--exit-at-end"])
        let inline = try runOrientd(["--mock=\(Self.trace)", "--speed=max", "--print", "--exit-at-end"])
        #expect(spaced.status == 0 && inline.status == 0, "\(spaced) / \(inline)")
        #expect(!spaced.lines.isEmpty)
        #expect(inline.lines == spaced.lines)
    }
}
