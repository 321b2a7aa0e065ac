import Testing
import OrientSensors
import TestSupport

/// The lines between orientd and its Sensor Core process.
@Suite struct SensorCoreMessageTests {
    @Test func everyMessageReadsBackAsWritten() throws {
        let messages: [SensorCoreMessage] = [
            .open(token: 1, kind: .accelerometer), .open(token: 2, kind: .compass), .close(token: 3), .ready,
            .noLibrary("libssc.so.2: cannot open shared object file: No such file or directory"), .opened(token: 4),
            .failed(token: 5, why: .missing, message: "the Sensor Core has no compass"), .failed(token: 6, why: .lost, message: ""),
            .accelerometer(token: 7, x: -9.81, y: 0.125, z: 1e-3), .light(token: 8, lux: 42.5), .proximity(token: 9, near: true),
            .proximity(token: 10, near: false), .compass(token: 11, degrees: 269.999969),
        ]
        for message in messages {
            #expect(try SensorCoreMessage.parse(message.line) == message, "\(message.line)")
        }
    }

    @Test func aMessageWithNewlinesStaysOneLine() throws {
        // "\r\n" is one Character, one space.
        let message = SensorCoreMessage.failed(token: 1, why: .open, message: "two\nlines\r\nhere")
        #expect(!message.line.contains("\n"))
        #expect(try SensorCoreMessage.parse(message.line) == .failed(token: 1, why: .open, message: "two lines here"))
    }

    @Test func malformedOversizedAndHostileLinesAreRefusedWithTheReason() {
        let cases: [(String, String)] = [
            ("", "unknown message ''"),
            ("hello", "unknown message 'hello'"),
            ("open 1", "2 words, 3 expected"),
            ("open 1 gyroscope", "no sensor kind 'gyroscope'"),
            ("open -1 light", "no token (a positive integer) at word 2"),
            ("open 0 light", "no token (a positive integer) at word 2"),
            ("close 99999999999999999999999", "no token (a positive integer) at word 2"),
            ("accelerometer 1 nan 0 0", "no finite number at word 3"),
            ("accelerometer 1 inf 0 0", "no finite number at word 3"),
            ("accelerometer 1 1 2", "4 words, 5 expected"),
            ("accelerometer 1 1 2 3 4", "6 words, 5 expected"),
            ("light 1 ", "no finite number at word 3"),
            ("proximity 1 2", "proximity is 0 or 1"),
            ("failed 1 crashed boom", "no failure (open, missing or lost)"),
            ("ready now", "2 words, 1 expected"),
            (String(repeating: "x", count: 2000), "longer than 1024 bytes"),
        ]
        for (line, reason) in cases {
            let error = thrownError(SensorCoreMessageError.self) { try SensorCoreMessage.parse(line) }
            #expect(error?.reason == reason, "\(line.prefix(30))")
        }
        // The description names what was wrong and the line's start, never all of a long one.
        let error = thrownError(SensorCoreMessageError.self) { try SensorCoreMessage.parse("light 1 " + String(repeating: "9", count: 1000)) }
        #expect(error.map { "\($0)".count < 200 } == true)
    }
}
