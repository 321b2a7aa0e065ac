import TestSupport
import Testing

@testable import OrientProtocol

private func decode(_ line: String) -> Result<RequestLine, ProtocolError> {
    RequestDecoder.decode(Array(line.utf8))
}

@Suite("watch-sensors requests")
struct WatchSensorsRequestTests {
    @Test(
        "watch-sensors decodes a set of sensor names; an empty list stops watching",
        arguments: [
            (#"{"op":"watch-sensors","seq":1,"sensors":["light","proximity"]}"#, RequestLine(seq: 1, request: .watchSensors([.light, .proximity]))),
            (#"{"op":"watch-sensors","sensors":["proximity","light"]}"#, RequestLine(request: .watchSensors([.light, .proximity]))),
            (#"{"op":"watch-sensors","sensors":["proximity"]}"#, RequestLine(request: .watchSensors([.proximity]))),
            (#"{"op":"watch-sensors","sensors":[]}"#, RequestLine(request: .watchSensors([]))),
            (#"{"sensors":["light"],"op":"watch-sensors","rate":5}"#, RequestLine(request: .watchSensors([.light]))),
        ])
    func valid(line: String, expected: RequestLine) {
        #expect(decode(line) == .success(expected))
    }

    @Test(
        "a bad sensors list is bad-argument naming the problem, with the seq",
        arguments: [
            (#"{"op":"watch-sensors","seq":4}"#, "watch-sensors needs 'sensors' (a list of sensor names"),
            (#"{"op":"watch-sensors","seq":4,"sensors":"light"}"#, "'sensors' must be an array of sensor names (light or proximity), not a string ('light')"),
            (#"{"op":"watch-sensors","seq":4,"sensors":null}"#, "not null"),
            (#"{"op":"watch-sensors","seq":4,"sensors":{"light":true}}"#, "not an object"),
            (#"{"op":"watch-sensors","seq":4,"sensors":["light",1]}"#, "'sensors' entry 2 must be a string (light or proximity), not 1"),
            (#"{"op":"watch-sensors","seq":4,"sensors":[["light"]]}"#, "'sensors' entry 1 must be a string"),
            (#"{"op":"watch-sensors","seq":4,"sensors":["lux"]}"#, "unknown sensor 'lux' in 'sensors' (expected light or proximity)"),
            (#"{"op":"watch-sensors","seq":4,"sensors":["Light"]}"#, "unknown sensor 'Light'"),
            (#"{"op":"watch-sensors","seq":4,"sensors":[""]}"#, "unknown sensor ''"),
            (#"{"op":"watch-sensors","seq":4,"sensors":["accelerometer"]}"#, "the accelerometer is not watched with watch-sensors: subscribe gives the orientation, samples its readings"),
            (#"{"op":"watch-sensors","seq":4,"sensors":["compass"]}"#, "the compass is not served on the socket"),
            (#"{"op":"watch-sensors","seq":4,"sensors":["light","proximity","light"]}"#, "'sensors' names 'light' twice"),
            (longSensorName, longSensorNameShown),
            (hugeSensors, "'sensors' has 1000 entries; at most 8"),
            (nineSensors, "'sensors' has 9 entries; at most 8"),
        ])
    func errors(line: String, fragment: String) throws {
        guard case .failure(let error) = decode(line) else {
            Issue.record("\(line) decoded")
            return
        }
        #expect(error.code == .badArgument)
        #expect(error.seq == 4)
        #expect(error.message.contains(fragment), "\(error.message)")
    }

    @Test("watch-sensors is listed among the ops")
    func listed() {
        #expect(RequestDecoder.ops.last == "watch-sensors")
        #expect(RequestDecoder.sensorNames == ["light", "proximity"])
    }
}

private let hugeArray = "[" + Array(repeating: "\"light\"", count: 1000).joined(separator: ",") + "]"
private let nineLights = "[" + Array(repeating: "\"light\"", count: 9).joined(separator: ",") + "]"
// The lines built by interpolation, named here: Swift 6.0 crashes on string
// interpolation inside @Test(arguments:).
private let longSensorName = #"{"op":"watch-sensors","seq":4,"sensors":["\#(String(repeating: "x", count: 200))"]}"#
private let longSensorNameShown = "unknown sensor '\(String(repeating: "x", count: 64))…'"
private let hugeSensors = #"{"op":"watch-sensors","seq":4,"sensors":\#(hugeArray)}"#
private let nineSensors = #"{"op":"watch-sensors","seq":4,"sensors":\#(nineLights)}"#

@Suite("sensor messages")
struct SensorMessageTests {
    @Test(
        "the pushed message is one line in the documented form, and decodes back equal",
        arguments: [
            (SensorMessage(.light, reading: .light(level: 312.5, unit: .lux), tMs: 1500),
             #"{"type":"sensor","sensor":"light","present":true,"level":312.5,"unit":"lux","t_ms":1500}"#),
            (SensorMessage(.light, reading: .light(level: 0, unit: .vendor), tMs: 2.125),
             #"{"type":"sensor","sensor":"light","present":true,"level":0,"unit":"vendor","t_ms":2.125}"#),
            (SensorMessage(.proximity, reading: .proximity(near: true), tMs: 4000),
             #"{"type":"sensor","sensor":"proximity","present":true,"near":true,"t_ms":4000}"#),
            (SensorMessage(.proximity, reading: .proximity(near: false), tMs: 4000),
             #"{"type":"sensor","sensor":"proximity","present":true,"near":false,"t_ms":4000}"#),
            (SensorMessage(.proximity, present: false, tMs: 0),
             #"{"type":"sensor","sensor":"proximity","present":false,"t_ms":0}"#),
            (SensorMessage(.light, reading: nil, tMs: 10),
             #"{"type":"sensor","sensor":"light","present":true,"t_ms":10}"#),
        ])
    func pushed(message: SensorMessage, line: String) throws {
        #expect(message.json() == line)
        #expect(try ServerMessage.decode(Array(line.utf8)) == .sensor(message))
    }

    @Test("level and near read the reading")
    func accessors() {
        #expect(SensorMessage(.light, reading: .light(level: 5, unit: .lux), tMs: 0).level == 5)
        #expect(SensorMessage(.light, reading: .light(level: 5, unit: .lux), tMs: 0).near == nil)
        #expect(SensorMessage(.proximity, reading: .proximity(near: true), tMs: 0).near == true)
        #expect(SensorMessage(.proximity, present: false, tMs: 0).near == nil)
    }

    @Test("the reply lists the readings in sensor order and reads back")
    func reply() throws {
        let readings = [
            SensorMessage(.proximity, reading: .proximity(near: false), tMs: 7),
            SensorMessage(.light, reading: .light(level: 300, unit: .lux), tMs: 5),
        ]
        let line = Reply.sensorsOK(seq: 1, readings: readings)
        #expect(
            line == #"{"type":"ok","seq":1,"sensors":[{"sensor":"light","present":true,"level":300,"unit":"lux","t_ms":5},{"sensor":"proximity","present":true,"near":false,"t_ms":7}]}"#)
        guard case .ok(let seq, let fields) = try ServerMessage.decode(Array(line.utf8)) else {
            Issue.record("not an ok")
            return
        }
        #expect(seq == 1)
        #expect(try SensorMessage.readings(okFields: fields) == readings.reversed())
        #expect(Reply.sensorsOK(seq: nil, readings: []) == #"{"type":"ok","sensors":[]}"#)
    }

    @Test(
        "a malformed sensor message says which member is wrong",
        arguments: [
            (#"{"type":"sensor","present":true,"t_ms":1}"#, "sensor message is missing 'sensor'"),
            (#"{"type":"sensor","sensor":"heat","present":true,"t_ms":1}"#, "'sensor' is 'heat' (expected one of light, proximity)"),
            (#"{"type":"sensor","sensor":3,"present":true,"t_ms":1}"#, "'sensor' must be a sensor name, not 3"),
            (#"{"type":"sensor","sensor":"light","t_ms":1}"#, "missing 'present'"),
            (#"{"type":"sensor","sensor":"light","present":"yes","t_ms":1}"#, "'present' must be true or false"),
            (#"{"type":"sensor","sensor":"light","present":true}"#, "missing 't_ms'"),
            (#"{"type":"sensor","sensor":"light","present":true,"t_ms":"1"}"#, "'t_ms' must be a number"),
            (#"{"type":"sensor","sensor":"light","present":true,"level":-1,"unit":"lux","t_ms":1}"#, "'level' must be a light level (a number, 0 or more), not -1"),
            (#"{"type":"sensor","sensor":"light","present":true,"level":"300","unit":"lux","t_ms":1}"#, "'level' must be a light level"),
            (#"{"type":"sensor","sensor":"light","present":true,"level":300,"t_ms":1}"#, "has 'level' but no 'unit'"),
            (#"{"type":"sensor","sensor":"light","present":true,"level":300,"unit":"lumen","t_ms":1}"#, "'unit' is 'lumen' (expected one of lux, vendor)"),
            (#"{"type":"sensor","sensor":"proximity","present":true,"near":1,"t_ms":1}"#, "'near' must be true or false, not 1"),
            (#"{"type":"sensor","sensor":"proximity","present":false,"near":true,"t_ms":1}"#, "has a reading but 'present' is false"),
        ])
    func malformed(line: String, fragment: String) {
        let error = thrownError(ProtocolDecodeError.self) { try ServerMessage.decode(Array(line.utf8)) }
        #expect(error?.message.contains(fragment) == true, "\(line): \(error?.message ?? "")")
    }

    @Test(
        "a malformed reply list says which entry is wrong",
        arguments: [
            ([JSONMember(key: "x", value: .null)], "has no 'sensors'"),
            ([JSONMember(key: "sensors", value: .string("light"))], "'sensors' must be an array"),
            ([JSONMember(key: "sensors", value: .array([.number(1)]))], "'sensors' entry 1 must be an object, not a number"),
            ([JSONMember(key: "sensors", value: .array([.object([JSONMember(key: "sensor", value: .string("light"))])]))], "'sensors' entry 1: sensor message is missing 'present'"),
            ([JSONMember(key: "sensors", value: .array([lightEntry, lightEntry]))], "'sensors' lists light twice"),
        ])
    func malformedReply(fields: [JSONMember], fragment: String) {
        let error = thrownError(ProtocolDecodeError.self) { try SensorMessage.readings(okFields: fields) }
        #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
    }
}

private let lightEntry = JSONValue.object([
    JSONMember(key: "sensor", value: .string("light")), JSONMember(key: "present", value: .bool(false)),
    JSONMember(key: "t_ms", value: .number(1)),
])
