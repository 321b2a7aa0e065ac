#if canImport(Glibc)
import Glibc
#endif
import CLinux
import OrientProtocol
import OrientSensors

/// `orientd --sensor-core`: the process that alone loads libssc and reads a
/// Qualcomm phone's Sensor Core for the daemon (`SensorCore`), with
/// `SensorCoreMessage` lines on its standard input and output.
///
/// Why a process: libssc cannot be told its service went away without
/// failing in ways the daemon must not share. Its close, once the DSP's
/// service is gone, frees a `GError` and then formats its message (libssc
/// 0.4.4's `sensor_close_ready`: a crash, seen in make check-ssc), and
/// without a close its report threads, QMI clients and GLib contexts stay
/// for good (8 descriptors a restart). Here the daemon ends the process when
/// the service goes, which frees all of it, and a crash in libssc costs the
/// daemon nothing but a new process. GLib and libssc stay out of the
/// daemon's memory too.
///
/// The process ends when its input ends (the daemon closed it or is gone),
/// after closing every open sensor.
package enum SensorCoreProcess {
    /// The daemon's argument for it.
    package static let argument = "--sensor-core"

    /// Runs the process; returns its exit status.
    package static func run() -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // Named for `ps` (its file is /proc/self/exe: "exe" otherwise).
        _ = pthread_setname_np(pthread_self(), "orientd-core")
        let library: LibSSC
        switch LibSSC.load() {
        case .failure(let error):
            send(.noLibrary(error.message))
            return 0
        case .success(let loaded): library = loaded
        }
        let thread: SensorCoreThread
        do {
            thread = try SensorCoreThread(library: library)
            try thread.spawn()
        } catch {
            _ = writeAll(fd: 2, Array("orientd --sensor-core: cannot start its thread: \(error)\n".utf8))
            return 1
        }
        guard send(.ready) else { return 0 }
        var input: [UInt8] = []
        var fds = [pollfd(fd: 0, events: Int16(POLLIN), revents: 0), pollfd(fd: thread.outFD, events: Int16(POLLIN), revents: 0)]
        while true {
            if poll(&fds, 2, -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            if fds[1].revents != 0 {
                for message in thread.take() where !send(message) {
                    thread.end()
                    return 0
                }
            }
            guard fds[0].revents != 0 else { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = read(0, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            input += chunk.prefix(count)
            while let newline = input.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: input[..<newline], as: UTF8.self)
                input.removeSubrange(...newline)
                do throws(SensorCoreMessageError) {
                    switch try SensorCoreMessage.parse(line) {
                    case .open(let token, let kind): thread.ask(.open(token: token, kind: kind))
                    case .close(let token): thread.ask(.close(token: token))
                    default: throw SensorCoreMessageError(line: line, reason: "not a request")
                    }
                } catch {
                    _ = writeAll(fd: 2, Array("orientd --sensor-core: ignoring a line: \(error)\n".utf8))
                }
            }
            if input.count > SensorCoreMessage.maxLine { input = [] }
        }
        // Its sensors closed before it goes (the DSP stops sending).
        thread.end()
        thread.waitEnded(timeoutMs: 5000)
        return 0
    }

    /// One message on standard output; false when the daemon is gone.
    @discardableResult
    private static func send(_ message: SensorCoreMessage) -> Bool {
        writeAll(fd: 1, Array((message.line + "\n").utf8))
    }
}
