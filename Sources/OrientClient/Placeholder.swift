// The client library: see OrientClient.swift.
