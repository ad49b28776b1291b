package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
)

// helperRequest is the one command a helper runs, sent over the Unix socket
// it gets as file descriptor 3 together with the command's standard input,
// output and error (SCM_RIGHTS). A helper is started before it is needed
// (see warmPool), so the command cannot be in its argv.
type helperRequest struct {
	Spec helperSpec `json:"spec"`
	Args []string   `json:"args"`
	Env  []string   `json:"env"`
	Dir  string     `json:"dir"`
	// RulesetFlags go with the Landlock ruleset, which toold builds
	// once per session and sends as a fourth descriptor.
	RulesetFlags uint32 `json:"ruleset_flags,omitempty"`
	// RulesetKey names the ruleset: a helper keeps the thread it
	// confined with it for the next command of the same key, since
	// enforcing a ruleset again costs as much as the first time.
	RulesetKey string `json:"ruleset_key,omitempty"`
	// PortRuleset says a ruleset of denied ports comes as the last
	// descriptor, with these flags; it is enforced after the first.
	PortRuleset      bool   `json:"port_ruleset,omitempty"`
	PortRulesetFlags uint32 `json:"port_ruleset_flags,omitempty"`
}

// helperFiles are the descriptors that come with a request.
type helperFiles struct {
	stdio [3]*os.File
	// ruleset is -1 without Landlock; ports is -1 without a port
	// ruleset.
	ruleset, ports int
}

// layers are the rulesets to enforce, in order.
func (f helperFiles) layers(req *helperRequest) []layer {
	return []layer{{f.ruleset, req.RulesetFlags}, {f.ports, req.PortRulesetFlags}}
}

// maxRequest bounds a request: a script, its environment and the spec.
const maxRequest = 64 << 20

// send writes req as a 4-byte big-endian length and JSON, with stdio's
// descriptors and the ruleset (when not -1) attached to the first write.
func (req *helperRequest) send(conn *net.UnixConn, stdio [3]*os.File, ruleset, ports int) error {
	body, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if len(body) > maxRequest {
		return fmt.Errorf("sandbox: the command is too large (%d bytes)", len(body))
	}
	msg := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	msg = append(msg, body...)
	fds := []int{int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd())}
	if ruleset >= 0 {
		fds = append(fds, ruleset)
	}
	if ports >= 0 {
		fds = append(fds, ports)
	}
	rights := syscall.UnixRights(fds...)
	n, _, err := conn.WriteMsgUnix(msg, rights, nil)
	if err != nil {
		return err
	}
	if n < len(msg) {
		_, err = conn.Write(msg[n:])
	}
	return err
}

// receiveRequest reads a request and its descriptors from conn.
func receiveRequest(conn *net.UnixConn) (*helperRequest, helperFiles, error) {
	files := helperFiles{ruleset: -1, ports: -1}
	// The first read needs only the length and the descriptors; the rest
	// of a longer request is read below. A small buffer is not a large
	// allocation to zero for every command.
	buf := make([]byte, 8<<10)
	oob := make([]byte, syscall.CmsgSpace(5*4))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err == nil && n == 0 {
		err = io.EOF
	}
	if err != nil {
		return nil, files, err
	}
	msgs, err := syscall.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return nil, files, errors.New("no descriptors came with the request")
	}
	fds, err := syscall.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) < 3 || len(fds) > 5 {
		return nil, files, fmt.Errorf("the request came with %d descriptors, not 3 to 5", len(fds))
	}
	for i, fd := range fds[:3] {
		files.stdio[i] = os.NewFile(uintptr(fd), []string{"stdin", "stdout", "stderr"}[i])
	}
	extra := fds[3:]
	if n < 4 {
		if _, err := io.ReadFull(conn, buf[n:4]); err != nil {
			return nil, files, err
		}
		n = 4
	}
	size := int(binary.BigEndian.Uint32(buf[:4]))
	if size > maxRequest {
		return nil, files, fmt.Errorf("request of %d bytes", size)
	}
	body := make([]byte, size)
	copied := copy(body, buf[4:n])
	if _, err := io.ReadFull(conn, body[copied:]); err != nil {
		return nil, files, err
	}
	var req helperRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, files, fmt.Errorf("bad request: %w", err)
	}
	if req.Spec.Path == "" || len(req.Args) == 0 {
		return nil, files, errors.New("bad request: no program")
	}
	want := 0
	if req.Spec.Landlock {
		want++
	}
	if req.PortRuleset {
		want++
	}
	if len(extra) != want {
		return nil, files, errors.New("bad request: the Landlock rulesets do not match the spec")
	}
	if req.Spec.Landlock {
		files.ruleset, extra = extra[0], extra[1:]
	}
	if req.PortRuleset {
		files.ports = extra[0]
	}
	return &req, files, nil
}
