import OrientClient
import OrientProtocol


/// Exit codes (sysexits.h) and how client errors map onto them.
enum ExitStatus {
    static let success: Int32 = 0
    /// EX_USAGE: bad command line.
    static let usage: Int32 = 64
    /// EX_DATAERR: the daemon sent something orientctl cannot use.
    static let dataError: Int32 = 65
    /// EX_UNAVAILABLE: the daemon is not running or not reachable.
    static let unavailable: Int32 = 69
    /// EX_SOFTWARE: an internal error (orientctl sent something the daemon rejects).
    static let software: Int32 = 70
    /// EX_IOERR: writing the output failed.
    static let ioError: Int32 = 74
    /// EX_NOPERM: the daemon's policy forbids the request.
    static let noPermission: Int32 = 77

    /// Prints `error` for a user and returns the exit code for it.
    static func report(_ error: OrientClientError) -> Int32 {
        switch error {
        case .unavailable(let reason):
            Output.error("cannot reach orientd: \(reason)")
            return unavailable
        case .timedOut(let reason):
            Output.error("orientd did not answer: \(reason)")
            return unavailable
        case .protocol(let reason):
            Output.error("unexpected data from orientd: \(reason)")
            return dataError
        case .server(let refusal):
            Output.error("orientd refused: \(refusal.message) (\(refusal.code.rawValue))")
            switch refusal.code {
            case .notPermitted: return noPermission
            case .limit: return unavailable
            case .badArgument: return usage
            case .badJSON, .unknownOp, .unknownID, .tooLong: return software
            }
        }
    }
}
