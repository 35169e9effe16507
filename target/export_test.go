package target

// Every test of the package checks that the model is used under the
// server's lock (Server.locked).
func init() { lockCheck = true }
