/// The help texts: the tool's, and one per command.
enum Help {
    static let tool = """
        usage: orientctl [--socket PATH] [--json] COMMAND [ARGS...]

        Talks to orientd, the screen-orientation daemon.

        Commands:
          get                          print the current state
          watch                        print the state on every change, until SIGINT/SIGTERM
          lock [ORIENTATION|current]   lock the rotation (default: the current orientation)
          unlock                       unlock the rotation
          hold MASK -- COMMAND...      allow only MASK while COMMAND runs; exit with its status
          record FILE                  record sensor samples to a trace file ('-': standard output)

        Options:
          --socket PATH   the daemon's socket (default: $ORIENTD_SOCKET, else /run/orientd/orientd.sock)
          --json          print the daemon's JSON state lines (get, watch)
          -h, --help      this help; 'orientctl COMMAND --help' for a command

        Exit status: 0 success, 64 usage error, 65 bad data from orientd, 69 orientd
        unavailable, 70 internal error, 74 I/O error, 77 not permitted.

        """

    static func command(_ name: String) -> String {
        switch name {
        case "get":
            return """
                usage: orientctl [--socket PATH] get [--json]

                Prints the daemon's current state on one line, e.g.
                  left-up (physical left-up, tilt vertical, rotation 90, landscape, allowed normal,left-up,right-up, unlocked, sensor active)
                With --json, prints the state message as JSON (SPEC §7) instead.

                """
        case "watch":
            return """
                usage: orientctl [--socket PATH] watch [--json]

                Prints the current state, then one line per state change, until SIGINT or
                SIGTERM (exit 0). Keeps going when orientd restarts. With --json, prints the
                JSON state lines.

                """
        case "lock":
            return """
                usage: orientctl [--socket PATH] lock [ORIENTATION|current]

                Locks the screen rotation at ORIENTATION (normal, left-up, bottom-up or
                right-up) or at the current orientation (the default). The lock survives
                daemon restarts; apps that exclude the locked orientation still win.
                Exits 77 when the daemon's lock policy forbids it.

                """
        case "unlock":
            return """
                usage: orientctl [--socket PATH] unlock

                Unlocks the screen rotation. Exits 77 when the daemon's lock policy forbids it.

                """
        case "hold":
            return """
                usage: orientctl [--socket PATH] hold MASK -- COMMAND [ARGS...]

                Registers a constraint allowing only MASK, runs COMMAND, releases the
                constraint when it exits, and exits with its status (128+N if signal N
                killed it; 127 if it cannot be found, 126 if it cannot be run).
                MASK is a comma-separated list of: normal, left-up, bottom-up, right-up,
                portrait (the one upright portrait orientation), landscape (both),
                all-but-upside-down (portrait and landscape), all.
                SIGINT, SIGTERM and SIGHUP are passed on to COMMAND. If orientctl itself
                is killed, the daemon drops the constraint when the connection closes.

                Example: orientctl hold landscape -- mpv film.mkv

                """
        case "record":
            return """
                usage: orientctl [--socket PATH] record [--duration SECONDS] FILE

                Records the sensor's samples to FILE ('-' for standard output) in the
                orientd trace format: a header from the daemon (mount matrix, rate,
                on-change), the line t_ms,x,y,z, then one sample per line in m/s² in the
                sensor frame. Stops on SIGINT or SIGTERM, or after SECONDS. Exits 74 when
                FILE cannot be written.

                """
        default:
            return tool
        }
    }
}
