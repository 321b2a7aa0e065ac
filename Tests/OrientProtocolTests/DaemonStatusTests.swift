@testable import OrientProtocol
import Testing

/// The `status` reply: what the daemon writes reads back the same, and every
/// malformed reply is an error naming the member.
@Suite("The status reply")
struct DaemonStatusTests {
    static let full = DaemonStatus(
        version: "0.2.0", configFile: "/etc/orientd/orientd.conf", sensorState: .active,
        sensor: DaemonStatus.Sensor(
            device: "iio:device4", syspath: "/sys/devices/pci0000:00/i2c-MXC4005:00/iio:device4", name: "mxc4005",
            driver: "mxc4005", modalias: "acpi:MXC4005:MXC4005:", capture: "polled", rateHz: 20, deliveredHz: 19.5, onChange: false),
        dmiModalias: "dmi:bvnLENOVO:svnLENOVO:pn82N7:",
        mountMatrix: DaemonStatus.Decision(try! MountMatrix(parsing: "0, 1, 0; -1, 0, 0; 0, 0, 1"), reason: "in_accel_mount_matrix"),
        natural: DaemonStatus.Decision(.landscape, reason: "drm"), zSign: DaemonStatus.Decision(1, reason: "default"),
        clients: 3, subscribers: 1, sampleReaders: 1, dbusClaimers: 2,
        lock: DaemonStatus.Lock(orientation: .leftUp, uid: 1000, pid: 4242),
        constraints: [DaemonStatus.Constraint(id: "player", allow: ["left-up", "right-up"], client: 7, uid: 1000, pid: 99)],
        problems: [
            DaemonStatus.Problem(
                sensor: "iio:device4", problem: "readings at rest are 26.1 g, not 1 g: taking 256 m/s² as g",
                fix: "fix the scale (in_accel_scale) or set `[sensor] scale = 0.038307` in the config"),
            DaemonStatus.Problem(problem: "a problem of no sensor in particular", fix: "a fix"),
        ])

    static let bare = DaemonStatus(
        version: "0.2.0", sensorState: .absent, mountMatrix: DaemonStatus.Decision(.identity, reason: "identity"),
        natural: DaemonStatus.Decision(.portrait, reason: "default"), zSign: DaemonStatus.Decision(-1, reason: "config"))

    @Test("a status line reads back as the status it was written from", arguments: [full, bare])
    func roundTrip(status: DaemonStatus) throws {
        let line = status.json(seq: 12)
        #expect(line.hasPrefix(#"{"type":"status","seq":12,"version":"0.2.0","#), "\(line)")
        #expect(try DaemonStatus(jsonLine: Array(line.utf8)) == status)
        guard case .status(let decoded, let seq) = try ServerMessage.decode(Array(line.utf8)) else {
            Issue.record("not decoded as a status message: \(line)")
            return
        }
        #expect(decoded == status && seq == 12)
    }

    @Test("a status without a D-Bus side has no dbus_claimers; a lock without a pid has pid null")
    func absentMembers() throws {
        let line = Self.bare.json(seq: nil)
        #expect(!line.contains("dbus_claimers") && line.contains(#""lock":null"#) && !line.contains(#""seq""#), "\(line)")
        var locked = Self.bare
        locked.lock = DaemonStatus.Lock(orientation: .rightUp, uid: 0, pid: nil)
        #expect(locked.json(seq: nil).contains(#""lock":{"orientation":"right-up","uid":0,"pid":null}"#))
    }

    @Test("a status with more constraints than fit in a line lists the first ones and counts them all")
    func lineLimit() throws {
        var status = Self.full
        status.constraints = (0..<200).map {
            DaemonStatus.Constraint(
                id: String(repeating: "\"", count: 60) + "\($0)", allow: ["normal", "left-up", "bottom-up", "right-up"],
                client: $0, uid: 4_294_967_295, pid: 2_147_483_647)
        }
        status.constraintCount = 200
        status.configFile = "/" + String(repeating: "x", count: 5000)
        let line = status.json(seq: Int64.max)
        #expect(line.utf8.count <= 4096, "\(line.utf8.count) bytes")
        let decoded = try DaemonStatus(jsonLine: Array(line.utf8))
        #expect(decoded.constraintCount == 200 && !decoded.constraints.isEmpty && decoded.constraints.count < 200)
        #expect(decoded.constraints == Array(status.constraints.prefix(decoded.constraints.count)))
        var oneMore = status
        oneMore.constraints = Array(status.constraints.prefix(decoded.constraints.count + 1))
        #expect(oneMore.json(seq: Int64.max, limit: .max).utf8.count > 4096, "as many constraints as fit are shown")
        #expect((decoded.configFile?.utf8.count ?? 0) <= DaemonStatus.maxTextBytes, "long paths are clipped")
    }

    /// (a change to the members of a valid reply, the words the error must contain)
    static let malformed: [(String, String, String)] = [
        ("version", #"{"type":"status","config":null}"#, "status is missing 'version'"),
        ("sensor kind", #"{"type":"status","version":"1","sensor":[]}"#, "'status.sensor' must be an object"),
        ("sensor state", #"{"type":"status","version":"1","sensor":{"state":"sleepy"}}"#, "'status.sensor.state' is 'sleepy'"),
        ("matrix", #"{"type":"status","version":"1","sensor":{"state":"idle"},"mount_matrix":{"matrix":"1, 0; 0, 1","source":"x"}}"#,
         "'status.mount_matrix.matrix' is not a mount matrix"),
        ("source", #"{"type":"status","version":"1","sensor":{"state":"idle"},"mount_matrix":{"matrix":"1, 0, 0; 0, 1, 0; 0, 0, 1","source":5}}"#,
         "'status.mount_matrix.source' must be a string, not 5"),
    ]

    @Test("a malformed status reply is an error naming the member", arguments: malformed)
    func malformedReply(why: String, line: String, expected: String) {
        do {
            let status = try DaemonStatus(jsonLine: Array(line.utf8))
            Issue.record("\(why): decoded \(status)")
        } catch {
            #expect(error.message.contains(expected), "\(why): \(error.message)")
        }
    }

    @Test("every member of a valid reply, broken in turn, is an error naming it", arguments: [
        ("z_sign", "sign", ".number(0)", "'status.z_sign.sign' must be 1 or -1"),
        ("z_sign", "sign", ".string", "'status.z_sign.sign' must be a number"),
        ("natural", "geometry", ".string", "'status.natural.geometry' is"),
        ("consumers", "subscribers", ".number(-1)", "'status.consumers.subscribers' must be a count"),
        ("consumers", "samples", ".number(1.5)", "'status.consumers.samples' must be an integer"),
        ("consumers", "dbus_claimers", ".number(-2)", "dbus_claimers' must not be negative"),
        ("lock", "uid", ".number(-1)", "'status.lock.uid' must be a uid"),
        ("lock", "orientation", ".string", "'status.lock.orientation' is"),
        ("sensor", "rate_hz", ".string", "'status.sensor.rate_hz' must be a number"),
        ("sensor", "on_change", ".number(1)", "'status.sensor.on_change' must be true or false"),
    ])
    func brokenMember(object: String, key: String, replacement: String, expected: String) throws {
        let value: JSONValue
        switch replacement {
        case ".string": value = .string("sideways")
        default: value = .number(Double(replacement.dropFirst(8).dropLast()) ?? 0)
        }
        var members = try #require(Self.full.jsonValue().members)
        let index = try #require(members.firstIndex { $0.key == object })
        var inner = try #require(members[index].value.members)
        let slot = try #require(inner.firstIndex { $0.key == key })
        inner[slot].value = value
        members[index].value = .object(inner)
        do {
            let status = try DaemonStatus(fields: members)
            Issue.record("\(object).\(key) = \(value.json()): decoded \(status)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test("a constraint entry that is not an object, or allows a name that is not an orientation, is an error")
    func brokenConstraint() throws {
        for (entry, expected) in [
            (JSONValue.string("player"), "'status.constraints[0]' must be an object"),
            (.object([
                JSONMember(key: "id", value: .string("a")), JSONMember(key: "allow", value: .array([.string("landscape")])),
                JSONMember(key: "client", value: .number(1)),
            ]), "'status.constraints[0].allow' holds a string ('landscape')"),
        ] {
            var members = try #require(Self.bare.jsonValue().members)
            let index = try #require(members.firstIndex { $0.key == "constraints" })
            members[index].value = .array([entry])
            do {
                _ = try DaemonStatus(fields: members)
                Issue.record("\(entry.json()) decoded")
            } catch {
                #expect(error.message.contains(expected), "\(error.message)")
            }
        }
    }

    @Test("a status without problems (a daemon before them) decodes with none; unknown members of a problem are ignored")
    func problemsOptional() throws {
        var members = try #require(Self.full.jsonValue().members)
        let index = try #require(members.firstIndex { $0.key == "problems" })
        members.remove(at: index)
        let older = try DaemonStatus(fields: members)
        #expect(older.problems.isEmpty)
        var expected = Self.full
        expected.problems = []
        #expect(older == expected)
        members.append(JSONMember(key: "problems", value: .null))
        #expect(try DaemonStatus(fields: members).problems.isEmpty)
        members[members.count - 1].value = .array([.object([
            JSONMember(key: "problem", value: .string("p")), JSONMember(key: "fix", value: .string("f")),
            JSONMember(key: "severity", value: .string("warning")), JSONMember(key: "since_ms", value: .number(12)),
        ])])
        #expect(try DaemonStatus(fields: members).problems == [DaemonStatus.Problem(problem: "p", fix: "f")])
        #expect(Self.bare.json(seq: nil).contains(#","problems":[],"#))
    }

    @Test("a malformed problems member is an error naming it", arguments: [
        (JSONValue.string("none"), "'status.problems' must be an array"),
        (.array([.string("scale")]), "'status.problems[0]' must be an object"),
        (.array([.object([JSONMember(key: "fix", value: .string("f"))])]), "status.problems[0] is missing 'problem'"),
        (.array([.object([JSONMember(key: "problem", value: .string("p"))])]), "status.problems[0] is missing 'fix'"),
        (.array([.object([
            JSONMember(key: "sensor", value: .number(4)), JSONMember(key: "problem", value: .string("p")),
            JSONMember(key: "fix", value: .string("f")),
        ])]), "'status.problems[0].sensor' must be a string"),
    ] as [(JSONValue, String)])
    func brokenProblems(value: JSONValue, expected: String) throws {
        var members = try #require(Self.bare.jsonValue().members)
        let index = try #require(members.firstIndex { $0.key == "problems" })
        members[index].value = value
        do {
            let status = try DaemonStatus(fields: members)
            Issue.record("\(value.json()) decoded: \(status)")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test("status is a request op")
    func requestOp() throws {
        #expect(try RequestDecoder.decode(Array(#"{"op":"status","seq":3}"#.utf8)).get() == RequestLine(seq: 3, request: .status))
    }
}
