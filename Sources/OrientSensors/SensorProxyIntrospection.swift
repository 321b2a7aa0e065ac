/// The introspection data of the two objects, as iio-sensor-proxy's GDBus
/// service returns it: the standard interfaces, then its own interface with the
/// members of its interface XML in their order, so that clients generated from
/// that XML (gdbus-codegen, QtSensors) find every member with its type.
enum SensorProxyIntrospection {
    private static let header = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
                              "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        <node>
          <interface name="org.freedesktop.DBus.Properties">
            <method name="Get">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="out"/>
            </method>
            <method name="GetAll">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="a{sv}" name="properties" direction="out"/>
            </method>
            <method name="Set">
              <arg type="s" name="interface_name" direction="in"/>
              <arg type="s" name="property_name" direction="in"/>
              <arg type="v" name="value" direction="in"/>
            </method>
            <signal name="PropertiesChanged">
              <arg type="s" name="interface_name"/>
              <arg type="a{sv}" name="changed_properties"/>
              <arg type="as" name="invalidated_properties"/>
            </signal>
          </interface>
          <interface name="org.freedesktop.DBus.Introspectable">
            <method name="Introspect">
              <arg type="s" name="xml_data" direction="out"/>
            </method>
          </interface>
          <interface name="org.freedesktop.DBus.Peer">
            <method name="Ping"/>
            <method name="GetMachineId">
              <arg type="s" name="machine_uuid" direction="out"/>
            </method>
          </interface>

        """

    static let main = header + """
          <interface name="net.hadess.SensorProxy">
            <method name="ClaimAccelerometer"/>
            <method name="ReleaseAccelerometer"/>
            <method name="ClaimLight"/>
            <method name="ReleaseLight"/>
            <method name="ClaimProximity"/>
            <method name="ReleaseProximity"/>
            <property type="b" name="HasAccelerometer" access="read"/>
            <property type="s" name="AccelerometerOrientation" access="read"/>
            <property type="s" name="AccelerometerTilt" access="read"/>
            <property type="b" name="HasAmbientLight" access="read"/>
            <property type="s" name="LightLevelUnit" access="read"/>
            <property type="d" name="LightLevel" access="read"/>
            <property type="b" name="HasProximity" access="read"/>
            <property type="b" name="ProximityNear" access="read"/>
          </interface>
          <node name="Compass"/>
        </node>

        """

    static let compass = header + """
          <interface name="net.hadess.SensorProxy.Compass">
            <method name="ClaimCompass"/>
            <method name="ReleaseCompass"/>
            <property type="b" name="HasCompass" access="read"/>
            <property type="d" name="CompassHeading" access="read"/>
          </interface>
        </node>

        """
}
