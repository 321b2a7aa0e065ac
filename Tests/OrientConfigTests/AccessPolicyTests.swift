import OrientAccess
import Testing

@Suite("Access policy")
struct AccessPolicyTests {
    @Test("root is root whatever the seat says; a uid is the seat only when the seat includes it; unknown credentials are nobody")
    func principals() {
        #expect(Principal(uid: 0, isSeat: false) == .root)
        #expect(Principal(uid: 1000, isSeat: true) == .seat)
        #expect(Principal(uid: 1000, isSeat: false) == .other)
        #expect(Principal(uid: nil, isSeat: true) == .other)
    }

    @Test(
        "each policy admits exactly its principals",
        arguments: [
            (AccessPolicy.anyone, [Principal.root, .seat, .other]), (.seat, [.root, .seat]), (.root, [.root]), (.off, []),
        ])
    func policies(policy: AccessPolicy, admitted: [Principal]) {
        for principal in [Principal.root, .seat, .other] {
            #expect(policy.permits(principal) == admitted.contains(principal), "\(policy) \(principal)")
        }
    }

    @Test("seat-users takes uids and user names, or everyone alone")
    func seatUsers() throws {
        #expect(try SeatUsers.parse("1000, kiosk ,user.name,machine$").get() == .listed(["1000", "kiosk", "user.name", "machine$"]))
        #expect(try SeatUsers.parse("everyone").get() == .everyone)
        #expect(try SeatUsers.parse("0001000").get() == .listed(["1000"]))
        for bad in ["", "1000,", "everyone,1000", "4294967295", "99999999999", "-x", "a b", "é", String(repeating: "a", count: 33)] {
            #expect(throws: SeatUsersError.self, "\(bad)") { try SeatUsers.parse(bad).get() }
        }
        #expect(SeatUsers.everyone.configValue == "everyone")
        #expect(SeatUsers.listed(["1000", "kiosk"]).configValue == "1000, kiosk")
    }

    @Test("a token bucket allows its burst at once, then its rate, and refills no further than its burst")
    func tokenBucket() {
        var bucket = TokenBucket(rate: 10, burst: 3)
        func takes(_ times: [Double]) -> [Bool] { times.map { bucket.take(atMs: $0) } }
        #expect(takes([0, 0, 0, 0, 0]) == [true, true, true, false, false])
        let next = bucket.nextTokenMs(atMs: 0)
        #expect(next == 100)
        #expect(takes([99, 100, 150]) == [false, true, false])
        // An hour idle refills the burst, not 36,000 tokens; a clock that steps
        // back takes nothing extra.
        #expect(takes([3_600_000, 3_600_000, 3_600_000, 3_600_000, 1000]) == [true, true, true, false, false])
    }

    @Test("sample thinning passes one sample per period of a faster sensor, with its jitter, and never a burst")
    func sampleThinning() {
        var thinning = SampleThinning(rateHz: 50)
        // A 200 Hz sensor with ±0.3 ms of jitter for 10 s: 500 samples pass, each ≥ 18 ms apart.
        var passed: [Double] = []
        for i in 0..<2000 {
            let t = Double(i) * 5 + (i % 3 == 0 ? 0.3 : -0.3)
            if thinning.admit(tMs: t) { passed.append(t) }
        }
        #expect(abs(passed.count - 500) <= 1, "\(passed.count)")
        let gaps = zip(passed, passed.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 18 }, "\(gaps.filter { $0 < 18 })")
        // After a silence, one sample passes, then one a period again.
        var late = SampleThinning(rateHz: 50)
        let admitted = [0.0, 1000, 1005, 1020].map { late.admit(tMs: $0) }
        #expect(admitted == [true, true, false, true])
        // A sensor slower than the cap passes whole.
        var slow = SampleThinning(rateHz: 50)
        let all = (0..<20).map { slow.admit(tMs: Double($0) * 100) }
        #expect(all.allSatisfy { $0 })
    }
}
