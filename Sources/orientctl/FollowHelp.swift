/// `orientctl follow --help`.
enum FollowHelp {
    static let text = """
        usage: orientctl [--socket PATH] follow [--backend NAME] [--output NAME]
                         [--exec TEMPLATE] [--timeout SECONDS]
                         [--compositor-timeout SECONDS] [--disable-input DEVICE]...
                         [--disable-keyboard] [--disable-touchpad]

        Shows every effective orientation (after app constraints and the lock) on the
        built-in panel and turns its touchscreen and pen input with it, through the
        compositor's own commands, until SIGINT or SIGTERM. Each command is logged on
        standard error with its exit status. Only changes are applied; while a command
        runs, newer orientations replace older ones, and a command that hangs is
        killed after --timeout. Keeps going when orientd or the compositor restarts;
        stops (exit 0) when the compositor's socket stays away.

        Backends (default: the first of SWAYSOCK, HYPRLAND_INSTANCE_SIGNATURE,
        NIRI_SOCKET, WAYLAND_DISPLAY, DISPLAY that is set):
          sway        swaymsg output NAME transform T; input type:touch and
                      type:tablet_tool map_to_output NAME
          hyprland    hyprctl --batch: monitor NAME,transform,T; touchdevice and
                      tablet transform T
          niri        niri msg output NAME transform T
          wlr-randr   wlr-randr --output NAME --transform T (river, labwc, Wayfire, ...)
          x11         xrandr --output NAME --rotate R; xinput set-prop (map-to-output
                      with a second monitor) for each touchscreen and pen
          exec        only the --exec template

        Options:
          --backend NAME          one of the backends above
          --output NAME           the output to rotate
                                  (default: the first eDP, DSI or LVDS output)
          --exec TEMPLATE         a shell command run after the backend's (alone
                                  with no --backend); placeholders {orientation}
                                  {previous} {transform} {xrandr} {output}, also in
                                  $ORIENTATION $PREV_ORIENTATION $ORIENTD_TRANSFORM
                                  $ORIENTD_XRANDR $ORIENTD_OUTPUT; {{ and }} are braces
          --timeout SECONDS       how long one command may run before it is killed
                                  (default 5)
          --compositor-timeout SECONDS
                                  how long a compositor whose socket went away may
                                  take to come back before follow stops (default 10)
          --disable-input DEVICE  disable DEVICE while not in the natural orientation
                                  (sway, x11)
          --disable-keyboard      the same for the built-in keyboard
                                  (AT Translated Set 2)
          --disable-touchpad      the same for the touchpads

        Example: orientctl follow --exec 'notify-send "Screen: {orientation}"'

        """
}
