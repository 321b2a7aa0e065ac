/// The standard D-Bus error names the interface answers with.
public enum DBusError {
    /// No such method on the object.
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    /// No such object path.
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    /// No such interface on the object.
    public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    /// Arguments of the wrong type or count.
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    /// A write to a read-only property.
    public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    /// polkit refused the claim.
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    /// Too many claimers or pending authorisations.
    public static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"
    /// The name is not served.
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    /// The name has no owner.
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
}
