package bash

import (
	"fmt"
	"strconv"
	"syscall"

	"github.com/toold/toold/internal/tools/shells"
)

// A killed command's result says why it was killed, in its text and in its
// metadata (killed_by), so that neither the model nor a client has only an
// exit code to guess from.
const (
	killedByOutputCap = "output_cap"
	killedBySignal    = "signal"
)

// outputCapLine heads the result of a command killed at hardCap.
func outputCapLine() string {
	return fmt.Sprintf("The command was killed because its output passed %d MiB.", hardCap>>20)
}

// signalLine heads the result of a command whose shell a signal killed.
func signalLine(sig syscall.Signal) string {
	return "Command was " + shells.KilledBy(sig)
}

// exitLine heads the result of a non-zero exit. bash reports a process it
// waited for that a signal killed as 128+N: the line names the signal, so
// that a process the sandbox's limits killed is said to be killed.
func exitLine(code int) string {
	line := "Exit code " + strconv.Itoa(code)
	if sig := shells.ExitSignal(code); sig != 0 {
		line += fmt.Sprintf(" (128+%d: a process of the command was %s)", int(sig), shells.KilledBy(sig))
	}
	return line
}
