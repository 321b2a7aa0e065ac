import Testing

@testable import OrientDevices

@Suite("Delivered rate")
struct RateMeterTests {
    @Test("readings every 50 ms measure 20 Hz; every 100 ms, 10 Hz")
    func steady() {
        for (period, hz) in [(50.0, 20.0), (100, 10)] {
            var meter = RateMeter()
            for i in 0..<40 { meter.note(1000 + Double(i) * period) }
            let measured = meter.hz(atMs: 1000 + 39 * period)
            #expect(abs((measured ?? 0) - hz) < 1e-9, "period \(period): \(String(describing: measured))")
        }
    }

    @Test("nothing measured with fewer than two readings, or when they are older than the window")
    func nothing() {
        var meter = RateMeter()
        #expect(meter.hz(atMs: 0) == nil)
        meter.note(100)
        #expect(meter.hz(atMs: 100) == nil)
        meter.note(150)
        #expect(meter.hz(atMs: 150) == 20)
        // An on-change sensor at rest: silence for longer than the window.
        #expect(meter.hz(atMs: 150 + RateMeter.windowMs + 1) == nil)
        meter.reset()
        #expect(meter.hz(atMs: 150) == nil)
    }

    @Test("a rate that changes is measured over the window's readings only")
    func change() {
        var meter = RateMeter()
        var t = 0.0
        for _ in 0..<20 { t += 100; meter.note(t) }  // 10 Hz
        for _ in 0..<60 { t += 50; meter.note(t) }  // then 20 Hz for 3 s
        #expect(meter.hz(atMs: t) == 20)
    }

    @Test("hostile times: non-finite or going back are ignored")
    func hostile() {
        var meter = RateMeter()
        meter.note(.nan)
        meter.note(.infinity)
        meter.note(1000)
        meter.note(900)
        meter.note(-.infinity)
        meter.note(1100)
        #expect(meter.hz(atMs: 1100) == 10)
    }
}
