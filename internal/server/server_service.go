package server

import (
	"context"
	"math"

	"github.com/toold/toold/internal/claudecode"
	"github.com/toold/toold/internal/sandbox"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// ServerInfo is what GetServerInfo reports besides the auth mode.
type ServerInfo struct {
	// Version is the build's version ("dev" when not set at link time).
	Version string
	// Store is the state store: memory or redis.
	Store string
	// Sandbox reports the protections probed at start; nil reports none.
	Sandbox SandboxReporter
	// SettingsWarnings say what of the operator's settings file is not
	// applied (skipped hooks, ignored keys).
	SettingsWarnings []string
}

// SandboxReporter is the sandbox launcher, as far as the server needs it.
type SandboxReporter interface {
	Status() sandbox.Status
}

var _ SandboxReporter = (*sandbox.Launcher)(nil)

// serverService implements toold.v1.ServerService.
type serverService struct {
	tooldv1.UnimplementedServerServiceServer
	info ServerInfo
	auth string
}

func newServerService(info ServerInfo, authMode string) *serverService {
	if info.Version == "" {
		info.Version = "dev"
	}
	if authMode == "" {
		authMode = "none"
	}
	return &serverService{info: info, auth: authMode}
}

func (s *serverService) GetServerInfo(context.Context, *tooldv1.GetServerInfoRequest) (*tooldv1.GetServerInfoResponse, error) {
	out := &tooldv1.GetServerInfoResponse{Version: s.info.Version, Store: s.info.Store, Auth: s.auth,
		ClaudeCodeVersion: claudecode.Version, SettingsWarnings: s.info.SettingsWarnings}
	if s.info.Sandbox != nil {
		out.Sandbox = sandboxToProto(s.info.Sandbox.Status())
	} else {
		out.Sandbox = &tooldv1.SandboxStatus{Mode: string(sandbox.ModeOff)}
	}
	return out, nil
}

func sandboxToProto(st sandbox.Status) *tooldv1.SandboxStatus {
	l := st.Limits
	return &tooldv1.SandboxStatus{
		Mode:          string(st.Mode),
		LandlockAbi:   int32(st.LandlockABI),
		Landlock:      st.Landlock,
		Network:       st.Network,
		NetworkDenied: st.NetworkDenied,
		UserSwitch:    st.UserSwitch,
		User:          st.User,
		Uid:           int32(st.UID),
		Gid:           int32(st.GID),
		Cgroup:        st.Cgroup,
		CgroupDir:     st.CgroupDir,
		MemoryMax:     st.MemoryMax,
		PidsMax:       st.PidsMax,
		Subreaper:     st.Subreaper,
		Limits: &tooldv1.SandboxLimits{
			CpuSeconds:   clampInt64(l.CPUSeconds),
			AddressSpace: clampInt64(l.AddressSpace),
			OpenFiles:    clampInt64(l.OpenFiles),
			Processes:    clampInt64(l.Processes),
			FileSize:     clampInt64(l.FileSize),
			MemoryMax:    l.MemoryMax,
			PidsMax:      l.PidsMax,
		},
		Missing:        st.Missing,
		HiddenPaths:    st.Hidden,
		HiddenEnforced: st.HiddenEnforced,
		DeniedPorts:    ports(st.DeniedPorts),
		PortsDenied:    st.PortsDenied,
	}
}

func ports(ps []int) []int32 {
	out := make([]int32, len(ps))
	for i, p := range ps {
		out[i] = int32(p)
	}
	return out
}

// clampInt64 converts an rlimit; RLIM_INFINITY does not fit and reads as
// the largest value.
func clampInt64(v uint64) int64 {
	if v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}
