package main

// version is the build's version, reported by GetServerInfo; release
// builds set it with -ldflags "-X main.version=v1.2.3".
var version = "dev"
