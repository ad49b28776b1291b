//go:build unix

package redistest

import "syscall"

// Pause stops the server process (SIGSTOP): connections stay open but
// nothing answers, like a hung or overloaded server.
func (s *Server) Pause() { _ = s.cmd.Process.Signal(syscall.SIGSTOP) }

// Resume continues a paused server (SIGCONT).
func (s *Server) Resume() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }
