/// The QRTR name service's control packets (Linux `include/uapi/linux/qrtr.h`,
/// `struct qrtr_ctrl_pkt`): how a Qualcomm phone's Snapdragon Sensor Core
/// (QMI service 400 over QRTR) is found, and followed as it comes and goes.
///
/// A client sends `NEW_LOOKUP` for a service to the local node's control
/// port; the name service answers with one `NEW_SERVER` per server, an empty
/// `NEW_SERVER` at the end of that list, and from then on `NEW_SERVER` and
/// `DEL_SERVER` as servers start and stop. Every field is 32-bit little-endian.
public enum QRTRControl {
    /// The Snapdragon Sensor Core's QMI service (0x190).
    public static let sensorCoreService: UInt32 = 400
    /// `QRTR_PORT_CTRL`: the port the name service speaks from.
    public static let controlPort: UInt32 = 0xffff_fffe
    /// `sizeof(struct qrtr_ctrl_pkt)`.
    public static let packetSize = 20

    /// `enum qrtr_pkt_type` values used here.
    public static let newServerType: UInt32 = 4
    public static let delServerType: UInt32 = 5
    public static let newLookupType: UInt32 = 10

    /// A server of a service, as the name service announces it.
    public struct Server: Sendable, Hashable {
        public var service: UInt32
        public var instance: UInt32
        public var node: UInt32
        public var port: UInt32

        public init(service: UInt32, instance: UInt32, node: UInt32, port: UInt32) {
            self.service = service
            self.instance = instance
            self.node = node
            self.port = port
        }
    }

    /// One control packet, as far as a lookup needs it.
    public enum Message: Sendable, Equatable {
        /// A server is up.
        case newServer(Server)
        /// A server went away.
        case delServer(Server)
        /// The end of the lookup's first answer (an all-zero `NEW_SERVER`).
        case endOfList
        /// Another command (`HELLO`, `BYE`, `DEL_CLIENT`…): nothing for a lookup.
        case other(command: UInt32)
    }

    /// The `NEW_LOOKUP` packet for every instance of `service`.
    public static func lookup(service: UInt32) -> [UInt8] {
        var packet: [UInt8] = []
        for word in [newLookupType, service, 0, 0, 0] {
            withUnsafeBytes(of: word.littleEndian) { packet += $0 }
        }
        return packet
    }

    /// Parses one packet received from the name service.
    public static func parse(_ bytes: [UInt8]) throws(QRTRControlError) -> Message {
        guard bytes.count >= packetSize else { throw .short(count: bytes.count) }
        func word(_ index: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { value, byte in value | UInt32(bytes[index * 4 + byte]) << (8 * UInt32(byte)) }
        }
        let server = Server(service: word(1), instance: word(2), node: word(3), port: word(4))
        switch word(0) {
        case newServerType:
            return server == Server(service: 0, instance: 0, node: 0, port: 0) ? .endOfList : .newServer(server)
        case delServerType: return .delServer(server)
        case let command: return .other(command: command)
        }
    }
}

/// A control packet that cannot be one.
public enum QRTRControlError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than `struct qrtr_ctrl_pkt`.
    case short(count: Int)

    public var description: String {
        switch self {
        case .short(let count): "a QRTR control packet of \(count) bytes (at least \(QRTRControl.packetSize) expected)"
        }
    }
}

/// The servers of one service that are up, from the name service's packets:
/// the service is up while one is.
public struct QRTRServers: Sendable, Equatable {
    /// The service followed.
    public let service: UInt32
    /// Its servers that are up.
    public private(set) var servers: Set<QRTRControl.Server> = []
    /// Whether the lookup's first answer has ended: before that, "none up" is not yet known.
    public private(set) var listed = false

    public init(service: UInt32) { self.service = service }

    /// Whether a server of the service is up.
    public var isUp: Bool { !servers.isEmpty }

    /// Takes one packet; returns whether `isUp` or `listed` changed. Servers
    /// of other services are ignored (the lookup asked for one).
    public mutating func apply(_ message: QRTRControl.Message) -> Bool {
        let before = (isUp, listed)
        switch message {
        case .newServer(let server) where server.service == service: servers.insert(server)
        case .delServer(let server) where server.service == service: servers.remove(server)
        case .endOfList: listed = true
        default: break
        }
        return before != (isUp, listed)
    }
}
