import Testing
import OrientSensors
import TestSupport

/// The QRTR name service's packets, as Linux's `struct qrtr_ctrl_pkt` lays them out.
@Suite struct QRTRControlTests {
    /// A packet of five little-endian words.
    func packet(_ words: [UInt32]) -> [UInt8] {
        words.flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (8 * UInt32($0))) } }
    }

    @Test func theLookupAsksForEveryInstanceOfTheService() {
        // cmd NEW_LOOKUP (10), service 400 (0x190), instance 0: every instance.
        #expect(QRTRControl.lookup(service: 400) == [10, 0, 0, 0, 0x90, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(QRTRControl.lookup(service: 400).count == QRTRControl.packetSize)
    }

    @Test func serversComeAndGoAndTheListEnds() throws {
        let server = QRTRControl.Server(service: 400, instance: 1, node: 1, port: 0x4001)
        #expect(try QRTRControl.parse(packet([4, 400, 1, 1, 0x4001])) == .newServer(server))
        #expect(try QRTRControl.parse(packet([5, 400, 1, 1, 0x4001])) == .delServer(server))
        #expect(try QRTRControl.parse(packet([4, 0, 0, 0, 0])) == .endOfList)
        // A deleted server with all-zero fields is not the end of a list.
        #expect(try QRTRControl.parse(packet([5, 0, 0, 0, 0])) == .delServer(QRTRControl.Server(service: 0, instance: 0, node: 0, port: 0)))
        // HELLO, BYE, DEL_CLIENT: nothing for a lookup.
        #expect(try QRTRControl.parse(packet([2, 0, 0, 0, 0])) == .other(command: 2))
        #expect(try QRTRControl.parse(packet([6, 1, 0x4001, 0, 0])) == .other(command: 6))
    }

    @Test func shortPacketsAreRefusedAndLongOnesReadTheirFirstTwentyBytes() throws {
        for count in [0, 1, 4, 19] {
            let error = thrownError(QRTRControlError.self) { try QRTRControl.parse([UInt8](repeating: 4, count: count)) }
            #expect(error == .short(count: count))
            #expect(error?.description == "a QRTR control packet of \(count) bytes (at least 20 expected)")
        }
        // Hostile: a huge packet of 0xff, and a valid one with trailing garbage.
        #expect(try QRTRControl.parse([UInt8](repeating: 0xff, count: 65536)) == .other(command: 0xffff_ffff))
        #expect(try QRTRControl.parse(packet([4, 400, 2, 1, 7]) + [1, 2, 3]) == .newServer(.init(service: 400, instance: 2, node: 1, port: 7)))
    }

    @Test func theServiceIsUpWhileOneOfItsServersIs() {
        var servers = QRTRServers(service: 400)
        var changed: Bool
        #expect(!servers.isUp && !servers.listed)
        // The first answer: the list ends with nothing up.
        changed = servers.apply(.endOfList)
        #expect(changed)
        #expect(servers.listed && !servers.isUp)
        let a = QRTRControl.Server(service: 400, instance: 1, node: 1, port: 10)
        let b = QRTRControl.Server(service: 400, instance: 2, node: 1, port: 11)
        changed = servers.apply(.newServer(a))
        #expect(changed)
        #expect(servers.isUp)
        // A second server changes nothing that is told; so does one going while the other stays.
        changed = servers.apply(.newServer(b))
        #expect(!changed)
        changed = servers.apply(.delServer(a))
        #expect(!changed)
        #expect(servers.isUp)
        changed = servers.apply(.delServer(b))
        #expect(changed)
        #expect(!servers.isUp)
        // Another service's servers, an unknown server going, other commands: ignored.
        changed = servers.apply(.newServer(QRTRControl.Server(service: 401, instance: 1, node: 1, port: 12)))
        #expect(!changed)
        changed = servers.apply(.delServer(a))
        #expect(!changed)
        changed = servers.apply(.other(command: 3))
        #expect(!changed)
        #expect(!servers.isUp)
    }
}
