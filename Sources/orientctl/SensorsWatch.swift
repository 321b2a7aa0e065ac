#if canImport(Glibc)
import Glibc
#endif
import OrientClient
import OrientProtocol

/// `orientctl watch --sensors`: the light and proximity readings now, then a
/// line per change, until SIGINT/SIGTERM (exit 0). Keeps going across daemon
/// restarts (the client watches again when it reconnects).
enum SensorsWatch {
    static func run(_ client: OrientClient, json: Bool) async -> Int32 {
        let signals = SignalPipe.stream([SIGINT, SIGTERM])
        let readings: AsyncStream<SensorMessage>
        do {
            readings = try await client.sensors([.light, .proximity])
        } catch {
            return ExitStatus.report(error)
        }
        return await withTaskGroup(of: Int32.self) { group in
            group.addTask {
                for await reading in readings {
                    guard Output.line(json ? reading.json() : summary(reading)) else {
                        Output.error("cannot write the reading: \(systemError())")
                        return ExitStatus.ioError
                    }
                }
                return ExitStatus.success
            }
            group.addTask {
                for await _ in signals { return ExitStatus.success }
                return ExitStatus.success
            }
            let status = await group.next() ?? ExitStatus.success
            group.cancelAll()
            return status
        }
    }

    /// One reading for people: `light 312.5 lux`, `proximity near`, `light absent`.
    static func summary(_ reading: SensorMessage) -> String {
        let name = reading.sensor.rawValue
        guard reading.present else { return "\(name) absent" }
        switch reading.reading {
        case .light(let level, let unit)?: return "\(name) \(jsonNumber(level)) \(unit == .lux ? "lux" : "(vendor scale)")"
        case .proximity(let near)?: return "\(name) \(near ? "near" : "far")"
        case nil: return "\(name) present, not read yet"
        }
    }
}
