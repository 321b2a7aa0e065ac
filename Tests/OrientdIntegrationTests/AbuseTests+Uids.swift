import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension AbuseTests {
    // MARK: - 7. One uid hogging the client table

    /// Opens `count` connections as `uid` (setpriv and perl), holds them until
    /// its stdin closes, and reports how many got `hello` and how many `limit`.
    final class Hog {
        let process = ChildProcess()
        private let input = Pipe()
        private let output = Pipe()
        private let exited = DispatchSemaphore(value: 0)

        init(_ daemon: DaemonHarness, uid: Int, count: Int) throws {
            chmod(daemon.workspace.path, 0o755)  // let the other uid reach the socket
            let script = #"""
                alarm 60;
                my ($path, $count) = @ARGV; my ($ok, $no) = (0, 0); my @held;
                for (1 .. $count) {
                    socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
                    connect($s, pack_sockaddr_un($path)) or die "connect: $!";
                    my $line = <$s>;
                    if (defined $line && $line =~ /"hello"/) { $ok++; push @held, $s } else { $no++; close $s }
                }
                $| = 1; print "$ok $no\n"; <STDIN>;
                """#
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = [
                "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/perl", "-MSocket", "-e", script,
                daemon.socketPath, String(count),
            ]
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.standardError
            process.terminationHandler = { [exited] _ in exited.signal() }
            try process.run()
        }

        /// Waits for the counts: (accepted, refused).
        func counts() throws -> (accepted: Int, refused: Int) {
            let line = String(decoding: output.fileHandleForReading.availableData, as: UTF8.self)
            let fields = line.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            guard fields.count == 2 else { throw DaemonHarnessError("the hog said \(line.debugDescription)") }
            return (fields[0], fields[1])
        }

        /// Lets go of every connection and waits for the process to end.
        func release() throws {
            try? input.fileHandleForWriting.close()
            guard exited.wait(timeout: .now() + 15) == .success else {
                kill(process.processIdentifier, SIGKILL)
                throw DaemonHarnessError("the hog did not exit")
            }
        }
    }

    @Test(
        "one uid (nobody) opening 100 connections gets clients-per-uid of them, each refusal one limit line, the log one line; when it lets go its slots are free again and fds return to baseline",
        .enabled(if: LockAndConfigTests.canSwitchUser, "needs root, /usr/bin/setpriv and /usr/bin/perl to connect as nobody"))
    func oneUIDHoggingTheTable() throws {
        let daemon = try DaemonHarness(config: Self.config(clients: 64) + "clients-per-uid = 16\nreserved-clients = 8\n")
        let watched = try WellBehaved(daemon, subscribers: 2)
        let baseline = try Self.baseline(daemon, watched)
        let hog = try Hog(daemon, uid: 65534, count: 100)
        let (accepted, refused) = try hog.counts()
        #expect(accepted == 16 && refused == 84, "nobody got \(accepted) slots and \(refused) refusals")
        let logged = Self.logged("too many clients of uid 65534 (clients-per-uid 16)", daemon, since: baseline)
        #expect(logged == 1, "\(logged) log lines for \(refused) refusals")
        // Root still connects while the hog holds its slots.
        #expect(try daemon.connect().request(#"{"op":"get","seq":1}"#).seq == 1)
        try hog.release()
        // Its count went back to zero: the same uid gets all 16 again.
        let again = try Hog(daemon, uid: 65534, count: 16)
        #expect(try again.counts() == (16, 0), "slots of the first hog were not given back")
        try again.release()
        let figures = try Self.checkRecovery(
            daemon, watched, baseline, final: Self.constrain("c", ["right-up"])
        ) { $0.allowed == ["right-up"] && $0.orientation == "right-up" && $0.hasNullLock }
        print("abuse/one-uid: nobody got \(accepted) of 100 connections, \(refused) refused in \(logged) log line; fds \(baseline.fds) → \(figures.fds)")
        try daemon.stopCleanly()
    }
}
