import Testing

@Suite("The tests' slowdown factor (ORIENTD_TEST_SLOWDOWN)")
struct SlowdownTests {
    @Test("unset or empty is 1; a whole number from 1 to 100 is taken", arguments: [(nil, 1), ("", 1), ("1", 1), ("20", 20), ("100", 100)] as [(String?, Int)])
    func accepted(text: String?, factor: Int) {
        #expect(Slowdown.parse(text) == factor)
    }

    @Test("anything else is refused", arguments: ["0", "-3", "101", "2.5", " 5", "5 ", "abc", "1e2", "99999999999999999999999"])
    func refused(text: String) {
        #expect(Slowdown.parse(text) == nil)
    }
}
