#if canImport(Glibc)
import Glibc
#endif
import Testing

/// The persisted rotation lock: `DIR/lock` in the state directory (docs/protocol.md, orientd(8)).
@Suite("Persisted rotation lock")
struct RotationLockTests {
    static let trace = Orientd.bundledTrace("brisk90.trace")

    static func replay(_ extra: [String], environment: [String: String] = [:]) throws -> (OrientdRun, [StateLine]) {
        let run = try runOrientd(
            ["--mock", trace, "--speed", "max", "--print", "--exit-at-end"] + extra, environment: environment)
        return (run, try StateLine.parseAll(run.lines))
    }

    @Test(
        "a lock file in --state-dir locks the screen from the first state, while physical still follows the device",
        arguments: StateLine.orientations)
    func lockFromStateDir(orientation: String) throws {
        let directory = try TemporaryDirectory()
        try directory.write("lock", "\(orientation)\n")
        let (run, states) = try Self.replay(["--state-dir", directory.path])
        #expect(run.status == 0, "\(run)")
        #expect(run.warnings == [], "\(run)")
        let first = try #require(states.first)
        #expect(first.locked == orientation)
        #expect(first.orientation == orientation)
        #expect(states.allSatisfy { $0.locked == orientation && $0.orientation == orientation })
        // brisk90 turns normal → left-up; the lock hides that, `physical` does not.
        #expect(physicalSequence(states) == ["normal", "left-up"])
        #expect(sequenceProblems(states) == [])
    }

    @Test("the state directory defaults to $STATE_DIRECTORY (the first of a colon-separated list)")
    func lockFromStateDirectoryEnvironment() throws {
        let directory = try TemporaryDirectory()
        try directory.write("lock", "right-up\n")
        let (run, states) = try Self.replay([], environment: ["STATE_DIRECTORY": directory.path + ":/nonexistent/second"])
        #expect(run.status == 0, "\(run)")
        #expect(states.first?.locked == "right-up")
        #expect(states.first?.orientation == "right-up")
    }

    @Test("a corrupt lock file starts unlocked with a warning that names the file")
    func corruptLockFile() throws {
        let directory = try TemporaryDirectory()
        let lock = try directory.write("lock", "sideways\n")
        let (run, states) = try Self.replay(["--state-dir", directory.path])
        #expect(run.status == 0, "\(run)")
        #expect(states.first?.locked == nil)
        #expect(states.allSatisfy { $0.locked == nil })
        #expect(run.stderr.contains(lock), "\(run)")
        #expect(run.stderr.contains("warning"), "\(run)")

        let empty = try TemporaryDirectory()
        let (_, unlocked) = try Self.replay(["--state-dir", empty.path])
        #expect(states == unlocked, "a corrupt lock changed the replay")
    }

    @Test("a state directory that does not exist starts unlocked, silently")
    func absentStateDirectory() throws {
        let directory = try TemporaryDirectory()
        let (run, states) = try Self.replay(["--state-dir", directory.file("missing")])
        #expect(run.status == 0, "\(run)")
        #expect(run.warnings == [], "\(run)")
        #expect(!states.isEmpty)
        #expect(states.allSatisfy { $0.locked == nil })
    }

    @Test("a state directory path that is a regular file starts unlocked")
    func stateDirectoryIsAFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("not-a-directory", "left-up\n")
        let (run, states) = try Self.replay(["--state-dir", file])
        #expect(run.status == 0, "\(run)")
        #expect(!states.isEmpty)
        #expect(states.allSatisfy { $0.locked == nil })
        #expect(run.warnings.allSatisfy { $0.contains(file) }, "a warning must name the path: \(run)")
    }

    @Test("an unreadable state directory starts unlocked", .enabled(if: getuid() != 0, "root reads any directory"))
    func unreadableStateDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("lock", "left-up\n")
        chmod(directory.path, 0)
        defer { chmod(directory.path, 0o700) }
        let (run, states) = try Self.replay(["--state-dir", directory.path])
        #expect(run.status == 0, "\(run)")
        #expect(!states.isEmpty)
        #expect(states.allSatisfy { $0.locked == nil })
        #expect(run.warnings.allSatisfy { $0.contains(directory.path) }, "a warning must name the path: \(run)")
    }
}
