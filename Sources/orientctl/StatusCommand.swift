#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

/// `orientctl status`: what the daemon sees and why, whether iio-sensor-proxy
/// competes for the sensor, and the one-line fix for each problem.
/// Exits 0 when the daemon answered (problems or not), 69 when it did not.
enum StatusCommand {
    static func run(_ client: OrientClient, json: Bool) async -> Int32 {
        // Tests point the iio-sensor-proxy lookups at a directory of their own.
        let root = getenv("ORIENTCTL_SYSROOT").map { String(cString: $0) } ?? "/"
        var report = StatusReport(
            socket: client.socketPath, unreachable: nil, state: nil, daemon: nil,
            conflict: ServiceConflict.iioSensorProxy(root: root))
        do {
            report.daemon = try await client.status()
            report.state = try await client.get()
        } catch {
            switch error {
            case .unavailable, .timedOut: report.unreachable = error
            default: return ExitStatus.report(error)
            }
        }
        guard Output.write(json ? report.json : report.text, to: 1) else {
            Output.error("cannot write the status: \(systemError())")
            return ExitStatus.ioError
        }
        return report.unreachable == nil ? ExitStatus.success : ExitStatus.unavailable
    }
}
