import Foundation
@testable import OrientProtocol
import TestSupport
import Testing

/// The `sensors` list of the `status` reply.
@Suite("The status reply's sensors")
struct DaemonStatusSensorsTests {
    static let accelerometer = DaemonStatus.SensorEntry(
        kind: .accelerometer, device: "iio:device4", syspath: "/sys/devices/i2c-MXC4005:00/iio:device4",
        driver: "iio-poll-accel", sources: ["in_accel_x_raw", "in_accel_y_raw", "in_accel_z_raw", "in_accel_scale"],
        state: .inUse)
    static let light = DaemonStatus.SensorEntry(
        kind: .light, device: "iio:device2", syspath: "/sys/devices/iio:device2", driver: "iio-poll-als",
        sources: ["in_illuminance0_raw", "in_illuminance0_scale"], state: .idle, value: "312.5 lux")
    static let skipped = DaemonStatus.SensorEntry(
        kind: .proximity, device: "iio:device3", syspath: "/sys/devices/iio:device3", state: .skipped,
        reason: "no in_proximity_nearlevel and no PROXIMITY_NEAR_LEVEL")

    static func status(_ sensors: [DaemonStatus.SensorEntry]) -> DaemonStatus {
        var status = DaemonStatusTests.bare
        status.sensors = sensors
        return status
    }

    @Test("the sensors list reads back as written, every field and state")
    func roundTrip() throws {
        let status = Self.status([Self.accelerometer, Self.light, Self.skipped])
        let line = status.json(seq: 3)
        #expect(
            line.contains(
                #""sensors":[{"kind":"accelerometer","device":"iio:device4","syspath":"/sys/devices/i2c-MXC4005:00/iio:device4","driver":"iio-poll-accel","sources":["in_accel_x_raw","in_accel_y_raw","in_accel_z_raw","in_accel_scale"],"state":"in-use","reason":null,"value":null}"#),
            "\(line)")
        #expect(line.contains(#""state":"skipped","reason":"no in_proximity_nearlevel and no PROXIMITY_NEAR_LEVEL""#))
        #expect(try DaemonStatus(jsonLine: Array(line.utf8)) == status)
    }

    @Test("a status from a daemon without the list decodes with no sensors")
    func olderDaemon() throws {
        var line = Self.status([]).json(seq: nil)
        #expect(line.hasSuffix(#","sensors":[]}"#))
        line = String(line.dropLast(#","sensors":[]}"#.count)) + "}"
        #expect(try DaemonStatus(jsonLine: Array(line.utf8)).sensors == [])
    }

    @Test("an entry of a kind this reader does not know is left out; the rest reads")
    func unknownKind() throws {
        let line = Self.status([Self.light]).json(seq: nil).replacingOccurrences(
            of: #""sensors":["#, with: #""sensors":[{"kind":"barometer","device":"iio:device9","state":"in-use"},"#)
        #expect(try DaemonStatus(jsonLine: Array(line.utf8)).sensors == [Self.light])
    }

    @Test(
        "a malformed entry is an error naming its path",
        arguments: [
            (#""sensors":5"#, "'status.sensors' must be an array, not 5"),
            (#""sensors":[1]"#, "'status.sensors[0]' must be an object, not a number"),
            (#""sensors":[{"device":"d","state":"idle"}]"#, "status.sensors[0] is missing 'kind'"),
            (#""sensors":[{"kind":"light","state":"idle"}]"#, "status.sensors[0] is missing 'device'"),
            (#""sensors":[{"kind":"light","device":"d"}]"#, "status.sensors[0] is missing 'state'"),
            (#""sensors":[{"kind":"light","device":"d","state":"busy"}]"#, "'status.sensors[0].state' is 'busy' (expected one of in-use, idle, skipped)"),
            (#""sensors":[{"kind":"light","device":"d","state":"idle","sources":"in_illuminance_raw"}]"#, "'status.sensors[0].sources' must be an array"),
            (#""sensors":[{"kind":"light","device":"d","state":"idle","sources":[1]}]"#, "'status.sensors[0].sources[0]' must be a string, not 1"),
            (#""sensors":[{"kind":"light","device":7,"state":"idle"}]"#, "'status.sensors[0].device' must be a string, not 7"),
        ])
    func malformed(member: String, fragment: String) {
        let line = Self.status([]).json(seq: nil).replacingOccurrences(of: #""sensors":[]"#, with: member)
        let error = thrownError(ProtocolDecodeError.self) { try DaemonStatus(jsonLine: Array(line.utf8)) }
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }

    @Test("long texts are clipped and long source lists cut, so an entry stays small")
    func clipped() throws {
        var entry = Self.light
        entry.driver = String(repeating: "d", count: 1000)
        entry.sources = (0..<100).map { "in_illuminance\($0)_raw" }
        entry.syspath = "/sys/" + String(repeating: "p", count: 2000)
        let decoded = try DaemonStatus(jsonLine: Array(Self.status([entry]).json(seq: nil).utf8)).sensors[0]
        #expect(decoded.driver?.utf8.count ?? 0 <= DaemonStatus.SensorEntry.maxShortTextBytes)
        #expect(decoded.sources.count == DaemonStatus.SensorEntry.maxSources)
        #expect(decoded.syspath.utf8.count <= DaemonStatus.maxTextBytes)
    }

    @Test("a status whose sensors do not fit with every constraint still fits the line: constraints, then sensors, go")
    func fitsTheLine() throws {
        var status = DaemonStatusTests.full
        var entry = Self.light
        entry.syspath = "/sys/" + String(repeating: "p", count: 600)
        entry.reason = String(repeating: "r", count: 600)
        status.sensors = Array(repeating: entry, count: 6)
        let line = status.json(seq: 1, limit: 4096)
        #expect(line.utf8.count <= 4096)
        let decoded = try DaemonStatus(jsonLine: Array(line.utf8))
        #expect(decoded.constraints.isEmpty && decoded.constraintCount == 1)
        #expect(!decoded.sensors.isEmpty && decoded.sensors.count < 6)
    }
}
