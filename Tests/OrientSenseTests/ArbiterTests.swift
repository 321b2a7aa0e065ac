import Testing
@testable import OrientSense
import OrientProtocol

/// SPEC §5: constraints, the rotation lock and the effective orientation.
@Suite("Arbiter")
struct ArbiterTests {
    /// One resolve on a fresh arbiter (no current effective orientation yet).
    private func resolveFresh(
        physical: Orientation,
        constraints: [OrientationMask],
        lock: Orientation? = nil,
        defaultAllowed: OrientationMask = .all,
        natural: NaturalGeometry = .portrait
    ) -> Resolution {
        var arbiter = Arbiter(defaultAllowed: defaultAllowed, natural: natural)
        return arbiter.resolve(physical: physical, constraints: constraints, lock: lock)
    }

    // MARK: Allowed set

    @Test(
        "the allowed set is the intersection of all constraints",
        arguments: [
            ([.all], .all),
            ([.allButUpsideDown(natural: .portrait)], .allButUpsideDown(natural: .portrait)),
            ([.all, .allButUpsideDown(natural: .portrait)], .allButUpsideDown(natural: .portrait)),
            ([.allButUpsideDown(natural: .portrait), [.normal, .bottomUp]], .normal),
            ([[.leftUp, .rightUp], .allButUpsideDown(natural: .portrait), [.leftUp, .bottomUp]], .leftUp),
            ([[.normal, .leftUp, .bottomUp], [.leftUp, .bottomUp, .rightUp]], [.leftUp, .bottomUp]),
            ([.rightUp, .rightUp], .rightUp),
        ] as [([OrientationMask], OrientationMask)]
    )
    func allowedIsIntersection(constraints: [OrientationMask], allowed: OrientationMask) {
        let result = resolveFresh(physical: .normal, constraints: constraints)
        #expect(result.allowed == allowed)
        #expect(result.conflict == false)
    }

    @Test(
        "with no constraints the allowed set is the default, without a conflict",
        arguments: [.all, .allButUpsideDown(natural: .portrait), [.leftUp, .rightUp], .normal] as [OrientationMask]
    )
    func noConstraintsGiveDefault(defaultAllowed: OrientationMask) {
        let result = resolveFresh(physical: .normal, constraints: [], defaultAllowed: defaultAllowed)
        #expect(result.allowed == defaultAllowed)
        #expect(result.conflict == false)
    }

    @Test(
        "conflicting constraints fall back to the default allowed set and report a conflict",
        arguments: [
            (.all, [.normal, .leftUp], .all),
            (.allButUpsideDown(natural: .portrait), [.normal, .leftUp], .allButUpsideDown(natural: .portrait)),
            (.allButUpsideDown(natural: .portrait), [[.normal, .bottomUp], [.leftUp, .rightUp]], .allButUpsideDown(natural: .portrait)),
            ([.leftUp, .rightUp], [.normal, .bottomUp], [.leftUp, .rightUp]),
            (.all, [[]], .all),
            (.allButUpsideDown(natural: .portrait), [.all, []], .allButUpsideDown(natural: .portrait)),
        ] as [(OrientationMask, [OrientationMask], OrientationMask)]
    )
    func conflictFallsBackToDefault(
        defaultAllowed: OrientationMask, constraints: [OrientationMask], allowed: OrientationMask
    ) {
        let result = resolveFresh(physical: .normal, constraints: constraints, defaultAllowed: defaultAllowed)
        #expect(result.allowed == allowed)
        #expect(result.conflict == true)
    }

    @Test(
        "an empty default allowed set counts as all",
        arguments: [[], [.normal, .leftUp]] as [[OrientationMask]]
    )
    func emptyDefaultCountsAsAll(constraints: [OrientationMask]) {
        let result = resolveFresh(physical: .bottomUp, constraints: constraints, defaultAllowed: [])
        #expect(result.allowed == .all)
        #expect(result.orientation == .bottomUp)
    }

    @Test("a conflict with the default all-but-upside-down keeps a bottom-up device out of bottom-up")
    func conflictWithCustomDefaultExcludesUpsideDown() {
        let result = resolveFresh(
            physical: .bottomUp, constraints: [.normal, .rightUp], defaultAllowed: .allButUpsideDown(natural: .portrait))
        #expect(result.conflict)
        #expect(result.allowed == .allButUpsideDown(natural: .portrait))
        #expect(result.orientation == .leftUp)
    }

    // MARK: Lock

    @Test(
        "a lock the allowed set permits holds the effective orientation whatever the physical one",
        arguments: Orientation.cardinal, Orientation.allCases
    )
    func lockHonouredWhenAllowed(lock: Orientation, physical: Orientation) {
        let result = resolveFresh(physical: physical, constraints: [], lock: lock)
        #expect(result.orientation == lock)
        #expect(result.locked == lock)
        #expect(result.rotation == lock.rotation)
    }

    @Test(
        "a lock holds within the constraints that allow it",
        arguments: [
            (.leftUp, [.allButUpsideDown(natural: .portrait)], .normal),
            (.rightUp, [[.leftUp, .rightUp]], .leftUp),
            (.bottomUp, [[.normal, .bottomUp], .all], .normal),
        ] as [(Orientation, [OrientationMask], Orientation)]
    )
    func lockHonouredWithinConstraints(lock: Orientation, constraints: [OrientationMask], physical: Orientation) {
        let result = resolveFresh(physical: physical, constraints: constraints, lock: lock)
        #expect(result.orientation == lock)
    }

    @Test(
        "a lock the constraints exclude loses to them",
        arguments: [
            // lock, constraints, physical, effective
            (.bottomUp, [.allButUpsideDown(natural: .portrait)], .leftUp, .leftUp),
            (.bottomUp, [.allButUpsideDown(natural: .portrait)], .bottomUp, .leftUp),
            (.leftUp, [[.normal, .bottomUp]], .leftUp, .normal),
            (.leftUp, [[.normal, .bottomUp]], .bottomUp, .bottomUp),
            (.normal, [[.leftUp, .rightUp]], .normal, .leftUp),
            (.normal, [[.leftUp, .rightUp]], .rightUp, .rightUp),
            (.rightUp, [.landscape(natural: .landscape)], .undefined, .normal),
        ] as [(Orientation, [OrientationMask], Orientation, Orientation)]
    )
    func constraintBeatsLock(
        lock: Orientation, constraints: [OrientationMask], physical: Orientation, effective: Orientation
    ) {
        let result = resolveFresh(physical: physical, constraints: constraints, lock: lock)
        #expect(result.orientation == effective)
        #expect(result.locked == lock)
    }

    @Test("a lock the default allowed set excludes on conflict loses to it")
    func conflictDefaultBeatsLock() {
        let result = resolveFresh(
            physical: .rightUp, constraints: [.normal, .leftUp], lock: .bottomUp,
            defaultAllowed: .allButUpsideDown(natural: .portrait))
        #expect(result.conflict)
        #expect(result.orientation == .rightUp)
    }

    @Test("the lock takes over again once the constraint excluding it is released")
    func lockReturnsAfterRelease() {
        var arbiter = Arbiter(natural: .portrait)
        let excluded = arbiter.resolve(physical: .normal, constraints: [.allButUpsideDown(natural: .portrait)], lock: .bottomUp)
        #expect(excluded.orientation == .normal)
        let released = arbiter.resolve(physical: .normal, constraints: [], lock: .bottomUp)
        #expect(released.orientation == .bottomUp)
    }

    @Test("an undefined lock counts as no lock")
    func undefinedLockIsNoLock() {
        let result = resolveFresh(physical: .leftUp, constraints: [], lock: .undefined)
        #expect(result.orientation == .leftUp)
        #expect(result.locked == nil)
    }

    @Test(
        "while locked the physical orientation is still reported",
        arguments: Orientation.allCases
    )
    func lockedReportsPhysical(physical: Orientation) {
        let result = resolveFresh(physical: physical, constraints: [], lock: .normal)
        #expect(result.orientation == .normal)
        #expect(result.physical == physical)
        #expect(result.locked == .normal)
    }

    @Test("unlocking follows the physical orientation again")
    func unlockFollowsPhysical() {
        var arbiter = Arbiter(natural: .portrait)
        #expect(arbiter.resolve(physical: .leftUp, constraints: [], lock: .normal).orientation == .normal)
        let unlocked = arbiter.resolve(physical: .leftUp, constraints: [], lock: nil)
        #expect(unlocked.orientation == .leftUp)
        #expect(unlocked.locked == nil)
    }

    // MARK: Effective orientation

    @Test(
        "the physical orientation is effective when allowed",
        arguments: Orientation.cardinal
    )
    func physicalWhenAllowed(physical: Orientation) {
        var arbiter = Arbiter(natural: .portrait)
        _ = arbiter.resolve(physical: .normal, constraints: [], lock: nil)
        let result = arbiter.resolve(physical: physical, constraints: [], lock: nil)
        #expect(result.orientation == physical)
        #expect(result.physical == physical)
        #expect(arbiter.effective == physical)
    }

    @Test(
        "the nearest allowed orientation breaks ties normal, left-up, right-up, bottom-up",
        arguments: [
            // physical, allowed, nearest
            (.bottomUp, [.leftUp, .rightUp], .leftUp),
            (.normal, [.leftUp, .rightUp], .leftUp),
            (.leftUp, [.normal, .bottomUp], .normal),
            (.rightUp, [.normal, .bottomUp], .normal),
            (.bottomUp, [.normal, .leftUp], .leftUp),
            (.bottomUp, [.normal, .rightUp], .rightUp),
            (.bottomUp, [.normal], .normal),
            (.bottomUp, .allButUpsideDown(natural: .portrait), .leftUp),
            (.normal, [.bottomUp, .rightUp], .rightUp),
            (.normal, [.bottomUp], .bottomUp),
            (.leftUp, [.rightUp, .bottomUp], .bottomUp),
            (.leftUp, [.rightUp], .rightUp),
            (.rightUp, [.leftUp, .bottomUp], .bottomUp),
            (.rightUp, [.leftUp], .leftUp),
            (.leftUp, .all, .leftUp),
        ] as [(Orientation, OrientationMask, Orientation)]
    )
    func nearestAllowed(physical: Orientation, allowed: OrientationMask, nearest: Orientation) {
        #expect(Arbiter.nearest(to: physical, in: allowed) == nearest)
        let result = resolveFresh(physical: physical, constraints: [allowed])
        #expect(result.orientation == nearest)
    }

    @Test("nearest finds nothing in an empty mask")
    func nearestInEmptyMask() {
        for orientation in Orientation.allCases {
            #expect(Arbiter.nearest(to: orientation, in: []) == nil)
        }
    }

    @Test(
        "the current effective orientation is kept while still allowed",
        arguments: [
            // current, physical, constraint, effective
            (.rightUp, .bottomUp, .allButUpsideDown(natural: .portrait), .rightUp),
            (.normal, .leftUp, [.normal, .rightUp], .normal),
            (.bottomUp, .normal, [.bottomUp, .leftUp], .bottomUp),
            (.leftUp, .normal, [.leftUp, .rightUp], .leftUp),
            (.rightUp, .normal, [.leftUp, .rightUp], .rightUp),
        ] as [(Orientation, Orientation, OrientationMask, Orientation)]
    )
    func keepsCurrentWhileAllowed(
        current: Orientation, physical: Orientation, constraint: OrientationMask, effective: Orientation
    ) {
        var arbiter = Arbiter(natural: .portrait)
        #expect(arbiter.resolve(physical: current, constraints: [], lock: nil).orientation == current)
        let result = arbiter.resolve(physical: physical, constraints: [constraint], lock: nil)
        #expect(result.orientation == effective)
    }

    @Test("the current effective orientation is left once a constraint excludes it")
    func leavesCurrentWhenExcluded() {
        var arbiter = Arbiter(natural: .portrait)
        _ = arbiter.resolve(physical: .rightUp, constraints: [], lock: nil)
        let sticky = arbiter.resolve(physical: .bottomUp, constraints: [[.leftUp, .rightUp]], lock: nil)
        #expect(sticky.orientation == .rightUp)
        let moved = arbiter.resolve(physical: .bottomUp, constraints: [[.normal, .leftUp]], lock: nil)
        #expect(moved.orientation == .leftUp)
    }

    @Test("a device turned into a disallowed orientation and back follows it back")
    func followsPhysicalBackIntoAllowed() {
        var arbiter = Arbiter(natural: .portrait)
        let constraints: [OrientationMask] = [.allButUpsideDown(natural: .portrait)]
        #expect(arbiter.resolve(physical: .leftUp, constraints: constraints, lock: nil).orientation == .leftUp)
        #expect(arbiter.resolve(physical: .bottomUp, constraints: constraints, lock: nil).orientation == .leftUp)
        #expect(arbiter.resolve(physical: .rightUp, constraints: constraints, lock: nil).orientation == .rightUp)
    }

    @Test(
        "an undefined physical orientation gives the first allowed in preference order",
        arguments: [
            (.all, .normal),
            (.allButUpsideDown(natural: .portrait), .normal),
            ([.leftUp, .rightUp], .leftUp),
            ([.bottomUp, .rightUp], .rightUp),
            ([.leftUp, .bottomUp], .leftUp),
            (.bottomUp, .bottomUp),
        ] as [(OrientationMask, Orientation)]
    )
    func undefinedPhysicalGivesFirstAllowed(allowed: OrientationMask, effective: Orientation) {
        let result = resolveFresh(physical: .undefined, constraints: [allowed])
        #expect(result.orientation == effective)
        #expect(result.physical == .undefined)
        #expect(Arbiter.nearest(to: .undefined, in: allowed) == effective)
    }

    @Test("an undefined physical orientation keeps the current effective one while allowed")
    func undefinedPhysicalKeepsCurrent() {
        var arbiter = Arbiter(natural: .portrait)
        _ = arbiter.resolve(physical: .rightUp, constraints: [], lock: nil)
        #expect(arbiter.resolve(physical: .undefined, constraints: [], lock: nil).orientation == .rightUp)
        let excluded = arbiter.resolve(physical: .undefined, constraints: [.allButUpsideDown(natural: .portrait)], lock: nil)
        #expect(excluded.orientation == .rightUp)
        let moved = arbiter.resolve(physical: .undefined, constraints: [[.bottomUp, .leftUp]], lock: nil)
        #expect(moved.orientation == .leftUp)
    }

    @Test("effective is undefined before the first resolve and never after")
    func effectiveNeverUndefinedAfterResolve() {
        let fresh = Arbiter(natural: .portrait)
        #expect(fresh.effective == .undefined)
        let masks = (0...15).map { OrientationMask(rawValue: UInt8($0)) }
        let locks: [Orientation?] = [nil] + Orientation.allCases
        for current in Orientation.allCases {
            for physical in Orientation.allCases {
                for mask in masks {
                    for lock in locks {
                        var arbiter = Arbiter(natural: .landscape)
                        _ = arbiter.resolve(physical: current, constraints: [], lock: nil)
                        let result = arbiter.resolve(physical: physical, constraints: [mask], lock: lock)
                        #expect(result.orientation != .undefined)
                        #expect(result.allowed.contains(result.orientation))
                        #expect(arbiter.effective == result.orientation)
                    }
                }
            }
        }
    }

    // MARK: Geometry

    @Test(
        "rotation, layout and axis follow the effective orientation and the natural geometry",
        arguments: [
            (.normal, .portrait, 0, .portrait, .vertical),
            (.leftUp, .portrait, 90, .landscape, .horizontal),
            (.bottomUp, .portrait, 180, .portrait, .vertical),
            (.rightUp, .portrait, 270, .landscape, .horizontal),
            (.normal, .landscape, 0, .landscape, .horizontal),
            (.leftUp, .landscape, 90, .portrait, .vertical),
            (.bottomUp, .landscape, 180, .landscape, .horizontal),
            (.rightUp, .landscape, 270, .portrait, .vertical),
        ] as [(Orientation, NaturalGeometry, Int, Layout, Axis)]
    )
    func geometry(orientation: Orientation, natural: NaturalGeometry, rotation: Int, layout: Layout, axis: Axis) {
        let result = resolveFresh(physical: orientation, constraints: [], natural: natural)
        #expect(result.orientation == orientation)
        #expect(result.rotation == rotation)
        #expect(result.layout == layout)
        #expect(result.axis == axis)
    }

    @Test("rotation, layout and axis follow the lock, not the physical orientation")
    func geometryFollowsLock() {
        let result = resolveFresh(physical: .normal, constraints: [], lock: .leftUp, natural: .portrait)
        #expect(result.rotation == 90)
        #expect(result.layout == .landscape)
        #expect(result.axis == .horizontal)
    }

    @Test("a change of natural geometry shows at the next resolve")
    func naturalChangeAppliesNextResolve() {
        var arbiter = Arbiter(natural: .portrait)
        #expect(arbiter.resolve(physical: .normal, constraints: [], lock: nil).layout == .portrait)
        arbiter.natural = .landscape
        #expect(arbiter.resolve(physical: .normal, constraints: [], lock: nil).layout == .landscape)
    }

    @Test("a change of default allowed set shows at the next resolve")
    func defaultChangeAppliesNextResolve() {
        var arbiter = Arbiter(natural: .portrait)
        #expect(arbiter.resolve(physical: .bottomUp, constraints: [], lock: nil).orientation == .bottomUp)
        arbiter.defaultAllowed = .allButUpsideDown(natural: .portrait)
        let result = arbiter.resolve(physical: .bottomUp, constraints: [], lock: nil)
        #expect(result.allowed == .allButUpsideDown(natural: .portrait))
        #expect(result.orientation == .leftUp)
    }

    @Test(
        "portrait and landscape mask names resolve against the natural geometry through the arbiter",
        arguments: [
            // name, natural, allowed, effective for a physical normal device
            ("portrait", .portrait, [.normal], .normal),
            ("landscape", .portrait, [.leftUp, .rightUp], .leftUp),
            ("portrait", .landscape, [.rightUp], .rightUp),
            ("landscape", .landscape, [.normal, .bottomUp], .normal),
        ] as [(String, NaturalGeometry, OrientationMask, Orientation)]
    )
    func maskNamesThroughArbiter(
        name: String, natural: NaturalGeometry, allowed: OrientationMask, effective: Orientation
    ) throws {
        let mask = try OrientationMask(names: [name], natural: natural)
        let result = resolveFresh(physical: .normal, constraints: [mask], natural: natural)
        #expect(result.allowed == allowed)
        #expect(result.orientation == effective)
        #expect(result.layout == Layout(rawValue: name))
    }
}
