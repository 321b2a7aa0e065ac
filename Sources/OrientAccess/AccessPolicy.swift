// Who may do what (docs/security.md): the principals a request comes from, the
// policies the config chooses among, and the rate limits that bound what one
// client can make the daemon publish or send.

/// Who a client is, as far as the policy cares: root, a uid of the seat (the
/// active session on the seat, or a configured seat user), or someone else.
public enum Principal: Sendable, Hashable {
    case root
    case seat
    case other

    /// The principal of `uid`, given whether the seat includes it (root is always root).
    public init(uid: UInt32?, isSeat: Bool) {
        if uid == 0 {
            self = .root
        } else if uid != nil, isSeat {
            self = .seat
        } else {
            self = .other
        }
    }
}

/// Who may make a request of one kind (`constrain-permission`, `samples-permission`,
/// `sensors-permission`).
public enum AccessPolicy: String, Sendable, Hashable, CaseIterable {
    /// Any client that can reach the socket.
    case anyone
    /// Root and the seat.
    case seat
    /// Only uid 0.
    case root
    /// No client at all.
    case off

    /// Whether `principal` may.
    public func permits(_ principal: Principal) -> Bool {
        switch self {
        case .anyone: return true
        case .seat: return principal != .other
        case .root: return principal == .root
        case .off: return false
        }
    }

    /// The policies `constrain-permission` accepts (refusing every client would
    /// leave no way to constrain; `default-allowed` does that).
    public static let constrainChoices: [AccessPolicy] = [.seat, .root, .anyone]
    /// The policies `samples-permission` accepts: raw readings are never for anyone.
    public static let samplesChoices: [AccessPolicy] = [.root, .seat, .off]
    /// The policies `sensors-permission` accepts (light and proximity readings).
    public static let sensorsChoices: [AccessPolicy] = [.seat, .root, .anyone, .off]
}

/// Which uids count as the seat besides the one logind says holds it
/// (`[daemon] seat-users`): for systems without logind, kiosks, and tests.
public enum SeatUsers: Sendable, Hashable {
    /// These users, each a uid (`1000`) or a user name (`kiosk`), resolved by the daemon.
    case listed([String])
    /// Every uid counts as the seat: the policy of a single-user device where
    /// any local process is trusted.
    case everyone

    /// None: only root and logind's active session.
    public static let none = SeatUsers.listed([])

    /// The config value: names joined with commas, or `everyone`.
    public var configValue: String {
        switch self {
        case .listed(let names): return names.joined(separator: ", ")
        case .everyone: return "everyone"
        }
    }

    /// Parses a `seat-users` value: `everyone`, or a comma-separated list of
    /// uids and user names. Returns what is wrong, or the value.
    public static func parse(_ text: String) -> Result<SeatUsers, SeatUsersError> {
        let items = text.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces() }
        if items == ["everyone"] { return .success(.everyone) }
        var names: [String] = []
        for item in items {
            if item.isEmpty { return .failure(SeatUsersError("an empty name in its list (names are separated by single commas)")) }
            if item == "everyone" { return .failure(SeatUsersError("'everyone' stands alone, not in a list")) }
            if item.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                // (uid_t)-1 means "no uid" to the kernel.
                guard let uid = UInt32(item), uid != UInt32.max else {
                    return .failure(SeatUsersError("uid '\(item.prefix(32))' is out of range"))
                }
                names.append(String(uid))
                continue
            } else if !isUserName(item) {
                return .failure(SeatUsersError("'\(item.prefix(32))' is neither a uid nor a user name (letters, digits, '_', '-', '.'; not starting with '-')"))
            }
            names.append(item)
        }
        return .success(.listed(names))
    }

    /// A user name as shadow-utils accepts it: at most 32 bytes of ASCII letters,
    /// digits, `_`, `-`, `.`, an optional trailing `$`, not starting with `-`.
    static func isUserName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 32, bytes[0] != 0x2D else { return false }
        for (i, b) in bytes.enumerated() {
            let letter = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            let digit = b >= 0x30 && b <= 0x39
            if letter || digit || b == 0x5F || b == 0x2D || b == 0x2E { continue }
            if b == 0x24, i == bytes.count - 1 { continue }
            return false
        }
        return true
    }
}

/// Why a `seat-users` value is not usable.
public struct SeatUsersError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong with the value, for the config error.
    public var description: String
    init(_ description: String) { self.description = description }
}

extension String {
    func trimmingSpaces() -> String {
        var bytes = Substring(self)
        while let first = bytes.first, first == " " || first == "\t" { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == " " || last == "\t" { bytes = bytes.dropLast() }
        return String(bytes)
    }
}

/// A token bucket: at most `rate` events a second on average, `burst` at once.
/// Time is passed in (milliseconds on any monotonic clock).
package struct TokenBucket: Sendable, Equatable {
    package var rate: Double
    package var burst: Double
    private var tokens: Double
    private var lastMs: Double?

    /// A full bucket.
    package init(rate: Double, burst: Double) {
        self.rate = max(rate, 0.001)
        self.burst = max(burst, 1)
        tokens = self.burst
    }

    private mutating func refill(_ nowMs: Double) {
        if let lastMs, nowMs > lastMs { tokens = min(burst, tokens + (nowMs - lastMs) * rate / 1000) }
        if lastMs == nil || nowMs > lastMs ?? nowMs { lastMs = nowMs }
    }

    /// Takes a token if there is one at `nowMs`.
    package mutating func take(atMs nowMs: Double) -> Bool {
        refill(nowMs)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// When the next token is there (`nowMs` if one is there now).
    package mutating func nextTokenMs(atMs nowMs: Double) -> Double {
        refill(nowMs)
        return tokens >= 1 ? nowMs : nowMs + (1 - tokens) * 1000 / rate
    }
}

/// Thins a stream of timestamped samples to at most `rateHz` a second: a sample
/// passes when at least one period (less a tenth, for the sensor's jitter)
/// has gone by since the last one that passed.
package struct SampleThinning: Sendable, Equatable {
    package var rateHz: Double
    private var nextMs = -Double.infinity

    package init(rateHz: Double) {
        self.rateHz = max(rateHz, 0.001)
    }

    /// Whether the sample taken at `tMs` passes.
    package mutating func admit(tMs: Double) -> Bool {
        let period = 1000 / rateHz
        guard tMs >= nextMs - period / 10 else { return false }
        // A late sample does not buy a burst: the next one is due a period after it,
        // or after the slot it filled when it was on time.
        nextMs = tMs - nextMs < period ? nextMs + period : tMs + period
        return true
    }
}

/// Who may set and clear the user rotation lock (`[daemon] lock-permission`).
public enum LockPermission: String, Sendable, Hashable, CaseIterable {
    /// Root and the seat (the default): whoever is at the device decides, and
    /// after a user switch the new seat user may change what the last one set.
    case seat
    /// Root and the seat; once a lock is set, only the uid that set it or root,
    /// as long as that uid still holds the seat.
    case sameUser = "same-user"
    /// Only uid 0.
    case root
    /// Any client that can reach the socket.
    case anyone

    /// Whether a client of `principal` running as `uid` may lock or unlock, when
    /// the current lock was set by `lockOwner` (nil: no lock is set), and
    /// `ownerHoldsSeat` says whether that uid is still root or the seat.
    public func permits(_ principal: Principal, uid: UInt32, lockOwner: UInt32?, ownerHoldsSeat: Bool) -> Bool {
        switch self {
        case .anyone: return true
        case .seat: return principal != .other
        case .root: return principal == .root
        case .sameUser:
            guard principal != .other else { return false }
            return principal == .root || lockOwner == nil || lockOwner == uid || !ownerHoldsSeat
        }
    }
}

/// Whether a claim is checked against polkit action `net.hadess.SensorProxy.claim-sensor`.
public enum DBusPolkit: String, Sendable, Hashable, CaseIterable {
    /// Ask polkit; where polkit is not on the bus, allow.
    case auto
    /// Ask polkit; where polkit is not on the bus, refuse (as iio-sensor-proxy does).
    case required
    /// Never ask: anyone the bus policy lets call may claim.
    case off
}
