import OrientProtocol
import OrientSensors

/// Runs `read` now and then every `intervalMs` on the loop's timer until
/// stopped: the polled drivers' clock. One timer armed at a time; nothing
/// runs after `stop()`.
final class Poller {
    private let loop: EventLoop
    private let intervalMs: Double
    private var timer: EventLoop.TimerID?
    private var read: () -> Void = {}
    private var running = false

    init(loop: EventLoop, intervalMs: Double) {
        self.loop = loop
        self.intervalMs = intervalMs
    }

    /// Starts polling: the first reading is taken on the loop, right away
    /// (never inside the caller).
    func start(_ read: @escaping () -> Void) {
        self.read = read
        running = true
        schedule(atMs: MonotonicClock.nowMs())
    }

    private func schedule(atMs t: Double) {
        timer = loop.schedule(atMs: t) { [weak self] in
            guard let self, self.running else { return }
            self.timer = nil
            let started = MonotonicClock.nowMs()
            self.read()
            if self.running { self.schedule(atMs: started + self.intervalMs) }
        }
    }

    /// Polls one sysfs attribute: the bytes of each read go through `parse`, and
    /// what it makes goes to `deliver`; a failed read is delivered as
    /// `.failed`, a text that does not parse is logged once (until a good one)
    /// and dropped. `stop()` closes the attribute.
    func start(reading attribute: SysfsAttribute, log: Log, sysname: String,
               parse: @escaping ([UInt8]) throws(AttributeError) -> SensorEvent, deliver: @escaping (SensorEvent) -> Void) {
        self.attribute = attribute
        var loggedGarbage = false
        start {
            let text: [UInt8]
            do throws(SensorError) {
                text = try attribute.readBytes()
            } catch {
                deliver(.failed(error))
                return
            }
            do throws(AttributeError) {
                let event = try parse(text)
                loggedGarbage = false
                deliver(event)
            } catch {
                if !loggedGarbage { log.warning("\(sysname): \(error) (dropping such readings)") }
                loggedGarbage = true
            }
        }
    }

    private var attribute: SysfsAttribute?

    /// Stops polling (and closes the attribute `start(reading:…)` read).
    func stop() {
        running = false
        loop.cancel(timer)
        timer = nil
        read = {}
        attribute?.close()
        attribute = nil
    }
}
