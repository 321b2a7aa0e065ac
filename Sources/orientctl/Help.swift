/// The help texts: the tool's, and one per command.
enum Help {
    static let tool = """
        usage: orientctl [--socket PATH] [--json] COMMAND [ARGS...]
               orientctl --version

        Talks to orientd, the screen-orientation daemon. The manual: man orientctl.

        Commands:
          get                         print the current state
          watch                       print the state on every change, until stopped
          lock [ORIENTATION|current]  lock the rotation (default: the current one)
          unlock                      unlock the rotation
          hold MASK -- COMMAND...     allow only MASK while COMMAND runs
          record FILE                 record sensor samples to a trace file
          status                      what orientd sees and why, and what to fix
          calibrate [TRACE...]        find the mount matrix; print the hwdb entry
          follow [OPTIONS]            rotate the screen and touch input with it
          help [COMMAND]              this help, or a command's

        Options:
          --socket PATH   the daemon's socket (default: $ORIENTD_SOCKET, else
                          /run/orientd/orientd.sock)
          --json          print JSON instead of text (get, watch, status)
          -h, --help      this help; 'orientctl COMMAND --help' for a command's
          --version       print orientctl's version

        Exit status: 0 success, 64 usage error, 65 bad data from orientd, 69 orientd
        unavailable, 70 internal error, 74 I/O error, 77 not permitted.

        """

    static func command(_ name: String) -> String {
        switch name {
        case "get":
            return """
                usage: orientctl [--socket PATH] get [--json]

                Prints the daemon's current state on one line, e.g. (here wrapped)
                  left-up (physical left-up, tilt vertical, rotation 90, landscape,
                  allowed normal,left-up,right-up, unlocked, sensor active)
                With --json, prints the state message as JSON instead (the protocol is
                in the doc directory, protocol.md: see orientctl(1), FILES).

                """
        case "watch":
            return """
                usage: orientctl [--socket PATH] watch [--json] [--no-wait]
                       orientctl [--socket PATH] watch --sensors [--json]

                Prints the current state, then one line per state change, until SIGINT or
                SIGTERM (exit 0). Keeps going when orientd restarts, and says so on stderr
                when it goes away and comes back. With no orientd at start it waits for one;
                --no-wait exits 69 at once instead. With --json, prints the JSON state lines.

                With --sensors, prints the light and proximity sensors instead: their
                readings now, then one line per change, e.g.
                  light 312.5 lux
                  proximity near
                (or 'light absent'). With --json, the protocol's sensor messages.
                Exits 77 when the daemon's sensors-permission refuses this user.

                """
        case "lock":
            return """
                usage: orientctl [--socket PATH] lock [ORIENTATION|current]

                Locks the screen rotation at ORIENTATION (normal, left-up, bottom-up or
                right-up) or at the current orientation (the default). The lock survives
                daemon restarts; apps that exclude the locked orientation still win.
                Prints what changed. Exits 77 when the daemon's lock policy forbids it.

                """
        case "unlock":
            return """
                usage: orientctl [--socket PATH] unlock

                Unlocks the screen rotation and prints what changed. Exits 77 when the
                daemon's lock policy forbids it.

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
                When orientd cannot be reached, COMMAND runs anyway, with a warning on
                stderr, and the constraint is registered as soon as orientd answers.

                Example: orientctl hold landscape -- mpv film.mkv

                """
        case "record":
            return """
                usage: orientctl [--socket PATH] record [--duration SECONDS] FILE

                Records the sensor's samples to FILE ('-' for standard output) in the
                orientd trace format: a header from the daemon (mount matrix and its
                source, rate, on-change, device, driver, orientd version), the line
                t_ms,x,y,z, then one sample per line in m/s² in the sensor frame, times
                from 0. Stops on SIGINT or SIGTERM, or after SECONDS. FILE is replaced
                only when the recording ends with samples; until then it is untouched.
                Exits 74 when FILE cannot be written, 69 when no sample arrived.

                """
        case "status":
            return """
                usage: orientctl [--socket PATH] status [--json]

                Says what orientd sees and why: its version and config file; the
                accelerometer (device, name, driver, modalias), how it is sampled; the
                mount matrix and where it came from; the natural geometry and z sign and
                why; who follows the orientation; the lock and the constraints, and who
                holds them. Also says whether iio-sensor-proxy competes for the sensor.
                Each problem found comes with a one-line fix. Exits 0 when orientd
                answered, 69 when it could not be reached (the report says why).

                """
        case "calibrate":
            return """
                usage: orientctl [--socket PATH] calibrate [--write] [--hwdb-file FILE]
                                 [--rest SECONDS] [--match-key KEY] [--non-interactive]
                                 [TRACE | UPRIGHT LEFT-UP FACE-UP]

                Fixes a screen that rotates the wrong way: finds the accelerometer's mount
                matrix from three poses (upright in the natural orientation, left edge up,
                lying face up), shows what each pose gives under the matrix in use and
                under the new one, and prints a hwdb entry with this device's match key.
                It offers to write it to /etc/udev/hwdb.d/61-sensor-local.hwdb, and prints
                the systemd-hwdb update and udevadm trigger steps, the orientd config
                alternative (mount-matrix) and how to send the entry to systemd.

                Without TRACE it asks for each pose and reads the raw samples from orientd
                (which gives them to root: run it with sudo), waiting for the device to
                rest. With TRACE (orientctl record) it takes the poses from the recording:
                one trace holding the three poses in order, the device moved between
                them, or one trace per pose.

                  --write            write the entry without asking
                  --hwdb-file FILE   the local hwdb file
                                     (default /etc/udev/hwdb.d/61-sensor-local.hwdb)
                  --rest SECONDS     how long each pose must be held still
                                     (0.2 to 10, default 1)
                  --match-key KEY    write the entry under KEY instead of the derived one
                  --non-interactive  never ask: poses from TRACE, the first key,
                                     write only with --write

                Refuses, saying why, when the device moves or the readings are too noisy,
                a pose is ambiguous, the poses contradict each other, there is no
                accelerometer, or the file may not be written. Exits 0 when done, 65 when
                the poses cannot be used, 69 without orientd or an accelerometer, 77 when
                not permitted.

                """
        case "follow":
            return FollowHelp.text
        default:
            return tool
        }
    }
}
